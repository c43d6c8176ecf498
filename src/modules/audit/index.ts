/** The audit log: who did what, recorded in the transaction that did it, and `audit-log/`. */
export type { AuditEntryView } from './model';
export { auditRoutes } from './routes';
export { AUDIT_SETTINGS } from './runtime';
export { type AuditEntry, AuditService, audit, auditDownload, auditMany, redactAuditBefore } from './service';
