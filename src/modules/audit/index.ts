/** The audit log: who did what, recorded in the transaction that did it. */
export { audit, type AuditEntry } from './service';
