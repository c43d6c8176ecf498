/**
 * Feature commands beyond the jobs, registered with registerCommand() on import
 * (create-agent, simulate-device, backup, restore). Loaded only by the CLI entry point.
 */
import './backup';
import './console-link';
import './create-agent';
import './create-user';
import './restore';
import './commands-terminals';
