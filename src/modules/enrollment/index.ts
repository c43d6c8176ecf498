/** Enrollment: agents and the agent API, agent sessions and remote sessions on a terminal. */

export { agentRoutes } from './agent-routes';
export type { AgentRow, AgentView } from './agents';
export type { EnrollmentEvents } from './events';
export { enrollmentJobs } from './jobs';
export type { StartRemoteEnrollment } from './remote-sessions';
export { rotateStagedKeys } from './rotate-staged';
export { enrollmentRoutes } from './routes';
export { Enrollment } from './service';
export type { SessionRow, SessionView } from './sessions';
