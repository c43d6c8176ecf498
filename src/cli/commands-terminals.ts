/** Operator commands of the terminals feature, registered with the CLI on import. */
import { registerCommand } from './run';
import { SIMULATE_USAGE, simulateDevice } from './simulate-device';

registerCommand(
  'simulate-device',
  simulateDevice,
  `${SIMULATE_USAGE}\nA simulated terminal for trying the service without hardware: it handshakes, polls, answers commands and punches.`,
);
