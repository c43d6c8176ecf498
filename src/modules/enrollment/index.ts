/** Enrollment: agents and the agent API, agent sessions and remote sessions on a terminal. */

export { agentRoutes } from './agent-routes';

export type { EnrollmentEvents } from './events';
export { enrollmentJobs } from './jobs';
export type { AgentView } from './model';
export { Enrollment } from './module';
export * as enrollmentReactions from './reactions';
export { rotateStagedKeys } from './rotate-staged';
export { enrollmentRoutes } from './routes';
export { ENROLLMENT_SETTINGS } from './runtime';
export type { SessionView } from './sessions';
export type { WalkUpEnrollment } from './walk-up';
