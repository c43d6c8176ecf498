/**
 * Feature commands beyond the jobs, registered with registerCommand() on import
 * (create-agent, simulate-device, restore). Loaded only by the CLI entry point.
 */
import './console-link';
import './create-agent';
import './create-user';
import './restore';
import './commands-terminals';
