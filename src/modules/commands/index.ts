/** Device commands: the queue, its results, retries and expiry. Rendering is the terminals module's. */
export type { CommandEvents } from './events';
export { commandJobs } from './jobs';
export { DeviceCommand } from './model';
export { describeReturnCode } from './return-codes';
export { commandRoutes } from './routes';

export { CommandService, type CommandView, type DueCommand, type NewCommand } from './service';
