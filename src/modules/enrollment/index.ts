/**
 * Enrollment, the one home of biometric data: consent, agents and the agent API, agent and remote
 * sessions, walk-up enrollment, the encrypted template store, its fan-out to the terminals and
 * per-terminal sync status.
 */

export { agentRoutes } from './agent-routes';
export { hasConsent, lastWithdrawnAt } from './consent-records';
export { biometricRoutes } from './enrollee-routes';
export type { EnrollmentEvents } from './events';
export type { FanOut } from './fan-out';
export { enrollmentJobs } from './jobs';
export { isBiometricType, kindAlgorithmOf, readsKind } from './kinds';
export { templateQuery } from './leaving';
export type { AgentView, ConsentRecordView, TemplateView } from './model';
export { Enrollment } from './module';
export * as enrollmentReactions from './reactions';
export { rotateTemplateKeys } from './rotate-keys';
export { rotateStagedKeys } from './rotate-staged';
export { enrollmentRoutes } from './routes';
export { ENROLLMENT_SETTINGS } from './runtime';
export { sealedTemplateSamples } from './sealed-samples';
export type { SessionView } from './sessions';
export type { TemplateStore, TemplatesDestroyed } from './template-store';
export { TEMPLATE_REFUSALS, type TemplatesNotReaching, templatesNotReaching } from './unreachable';
export type { HeldBiometric, WalkUpEnrollment } from './walk-up';
