/** The audit log: who did what, recorded in the transaction that did it. */
export { type AuditEntry, audit } from './service';
