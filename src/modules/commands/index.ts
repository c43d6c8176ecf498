/** Device commands: the queue, its results, retries and expiry. Rendering is the terminals module's. */
export type { CommandEvents } from './events';
export { commandJobs } from './jobs';
export { describeReturnCode } from './return-codes';
export { commandRoutes } from './routes';
export {
  CommandService,
  DELETE_KINDS,
  NEVER_EXPIRES,
  type CommandAnswer,
  type CommandKind,
  type CommandOutcome,
  type CommandRow,
  type CommandView,
  type DueCommand,
  type NewCommand,
} from './service';
export type { MarkCandidate } from './sent-marks';
export { COMMAND_STATUSES, type CommandStatus } from './tables';
