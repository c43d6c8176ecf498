/** Operator commands of the terminals feature, registered with the CLI on import. */
import { registerCommand } from '../cli';
import { simulateDevice } from '../simulator/cli';

registerCommand('simulate-device', simulateDevice);
