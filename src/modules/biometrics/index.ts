/** Biometric data: consent, encrypted templates, their fan-out and per-terminal sync status. */
export { templateAad, stagedAad } from './aad';
export { hasConsent, type ConsentView } from './consent';
export type { BiometricEvents } from './events';
export { rotateTemplateKeys } from './rotate-keys';
export { biometricRoutes } from './routes';
export { deviceAccepts, sameVersion } from './rules';
export { Biometrics } from './service';
export { userCommand, type OpenedTemplate, type StoreTemplateInput, type StoredTemplate, type TemplateSource, type TemplateStore } from './templates';
