/** Biometric data: consent, encrypted templates, their fan-out and per-terminal sync status. */
export { stagedAad } from './aad';
export { hasConsent } from './consent-records';
export type { BiometricEvents } from './events';
export { checkKind, isBiometricType } from './kinds';
export type { TemplateView } from './model';
export { Biometrics } from './module';
export * as biometricReactions from './reactions';
export { rotateTemplateKeys } from './rotate-keys';
export { biometricRoutes } from './routes';
export { deviceAccepts, sameVersion } from './rules';
export { BIOMETRIC_SETTINGS } from './runtime';
export { type StoredTemplate, type TemplateStore, userCommand } from './templates';
export { type TemplatesNotReaching, templatesNotReaching } from './unreachable';
