/** Terminals: the ADMS push protocol (docs/protocol/adms.md), uploads, walk-up, commands on the wire. */
export { usbImportRoutes } from './admin-routes';
export { terminalJobs } from './jobs';
export { Terminals } from './module';
export * as terminalReactions from './reactions';
export { TERMINAL_SETTINGS } from './runtime';
export type { UsbImportResult } from './usb-import';
