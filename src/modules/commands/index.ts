/** Device commands: the queue, its results, retries and expiry. Rendering is the terminals module's. */
export type { CommandEvents } from './events';
export { commandJobs } from './jobs';
export { DeviceCommand } from './model';
export { describeReturnCode } from './return-codes';
export { commandRoutes } from './routes';
export type { MarkCandidate } from './sent-marks';
export {
  type CommandAnswer,
  type CommandKind,
  type CommandOutcome,
  type CommandRow,
  CommandService,
  type CommandView,
  DELETE_KINDS,
  type DueCommand,
  NEVER_EXPIRES,
  type NewCommand,
} from './service';
export { COMMAND_STATUSES, type CommandStatus } from './tables';
