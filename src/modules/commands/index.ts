/** Device commands: the queue, its results, retries and expiry. Rendering is the terminals module's. */
export type { CommandEvents } from './events';
export { commandJobs } from './jobs';
export { type CommandKind, type DueCommand, type NewCommand, NO_RESULT, QUERY_USERS_KEY, wentOut } from './kinds';
export { commandSentAt, sentDeleteUnfinished, templateWritesSent } from './lookups';
export { DeviceCommand } from './model';
export {
  commandStates,
  type FailedKind,
  type FailingCommands,
  failingCommands,
  type OpenDelete,
  openDeletesOf,
  type WaitingCommands,
  waitingSince,
} from './open';
export { refuseUntilApproved } from './operator';
export type { CancelRefusal, RetryRefusal } from './operator-actions';
export * as commandReactions from './reactions';
export { describeReturnCode } from './return-codes';
export { commandRoutes } from './routes';
export { COMMAND_SETTINGS } from './runtime';
export { CommandService, type DeletesReplaced } from './service';
export { type ReplacedDelete, supersedeConsentRefusalDeletes, supersedeRefusalDelete } from './supersede';
export type { CommandView } from './views';
