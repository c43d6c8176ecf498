/** Terminals: the ADMS push protocol (docs/protocol/adms.md), uploads, walk-up, commands on the wire. */
export type { TerminalEvents } from './events';
export { terminalJobs } from './jobs';
export { Terminals } from './service';
