/** Terminals: the ADMS push protocol (docs/protocol/adms.md), uploads, walk-up, commands on the wire. */
export { terminalJobs } from './jobs';
export * as terminalReactions from './reactions';
export { Terminals } from './service';
