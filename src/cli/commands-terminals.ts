/** Operator commands of the terminals feature, registered with the CLI on import. */
import { registerCommand } from './run';
import { simulateDevice } from './simulate-device';

registerCommand('simulate-device', simulateDevice);
