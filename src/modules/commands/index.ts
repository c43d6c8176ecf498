/** Device commands: the queue, its results, retries and expiry. Rendering is the terminals module's. */
export type { CommandEvents } from './events';
export { type OpenDelete, openDeletesOf } from './deletes';
export { commandJobs } from './jobs';
export type { DueCommand, NewCommand } from './kinds';
export { DeviceCommand } from './model';
export { describeReturnCode } from './return-codes';
export { commandRoutes } from './routes';
export { CommandService } from './service';
export type { CommandView } from './views';
