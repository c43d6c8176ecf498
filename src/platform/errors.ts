/**
 * One error type with a code, and the one table that maps codes to HTTP statuses. Services
 * throw `FpaError`; the API layer turns it into `{ "error": { code, message, details, request_id } }`.
 */
import { currentRequestId } from './request-context';

export const ERROR_STATUS = {
  // 400: the request itself is malformed
  validation_error: 400,
  invalid_template: 400,
  invalid_cursor: 400,
  // 401/403: who is calling
  unauthorized: 401,
  forbidden: 403,
  wrong_agent: 403,
  agent_sessions_disabled: 403,
  raw_commands_disabled: 403,
  // 404/405: no such resource, or not with this method (the `Allow` header lists the methods)
  not_found: 404,
  method_not_allowed: 405,
  // 409: the resource is in a state that does not allow this
  session_closed: 409,
  agent_revoked: 409,
  conflict: 409,
  device_not_pending: 409,
  device_not_approved: 409,
  device_busy: 409,
  enrollee_inactive: 409,
  job_running: 409,
  /** A feed's `after` beyond the last sequence ever handed out: a cursor from before a restore (platform/db/sequences.ts). */
  cursor_ahead: 409,
  // 413
  payload_too_large: 413,
  /** A body sent as another media type than the route reads (JSON; CSV too where records are imported): src/platform/http/body.ts. */
  unsupported_media_type: 415,
  // 422: the request is well-formed but breaks a rule of the spec
  finger_not_requested: 422,
  finger_not_allowed: 422,
  biometric_not_allowed: 422,
  not_in_scope: 422,
  algorithm_incompatible: 422,
  consent_required: 422,
  fingers_missing: 422,
  too_few_fingers: 422,
  too_many_fingers: 422,
  template_too_large: 422,
  /** An agent upload whose bytes are a ZKFinger template of another generation than the one declared (ADMS.md §6.2). */
  template_algorithm_mismatch: 422,
  /** An agent upload of the very bytes already staged for another finger of the session. */
  template_duplicate: 422,
  unknown_employee: 422,
  /** An area name that is not in the catalogue (`areas/`): nothing creates an area by a typing mistake (AREAS_CREATED_ON_USE off). */
  unknown_area: 422,
  employee_inactive: 422,
  webhook_url_refused: 422,
  confirmation_required: 422,
  command_not_supported: 422,
  /** A card number no terminal can hold (not 1 to 4294967295 once leading zeros are dropped). */
  invalid_card: 422,
  /** A terminal user's PIN that not every terminal can hold (not 1 to 9 digits): not adopted as an enrollee's. */
  invalid_pin: 422,
  /** A report too large for the format asked (a PDF past its row limit): narrow it, or take CSV or Excel. */
  report_too_large: 422,
  /** A password with fewer than 12 characters other than spaces (twelve spaces are no password): users/passwords.ts. */
  weak_password: 422,
  // 426: a WebSocket endpoint asked without the upgrade handshake
  upgrade_required: 426,
  // 429
  rate_limited: 429,
  // 5xx
  internal_error: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * The challenge of a 401's `WWW-Authenticate` (RFC 9110 §11.6.1 requires one on every 401): the
 * administrator API takes Bearer tokens (JWTs, API keys, METRICS_TOKEN); the agent API says
 * `Agent` instead (`FpaError`'s `challenge`).
 */
export const BEARER_CHALLENGE = 'Bearer realm="fpa"';

export class FpaError extends Error {
  readonly status: number;
  /** For `unauthorized`: the scheme the route takes, as `WWW-Authenticate` names it. */
  readonly challenge: string;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
    options: { challenge?: string } = {},
  ) {
    super(message);
    this.name = 'FpaError';
    this.status = ERROR_STATUS[code];
    this.challenge = options.challenge ?? BEARER_CHALLENGE;
  }
}

export interface ErrorBody {
  error: { code: string; message: string; details: Record<string, unknown>; request_id?: string };
}

/** The error body; made while serving a request, it names that request (its id is in the log lines too). */
export function errorBody(code: string, message: string, details: Record<string, unknown> = {}): ErrorBody {
  const requestId = currentRequestId();
  return { error: { code, message, details, ...(requestId ? { request_id: requestId } : {}) } };
}

export const notFound = (what: string, id: string): FpaError => new FpaError('not_found', `${what} not found`, { [what.toLowerCase().replace(/ /g, '_')]: id });

/**
 * Whether an error came from the database (driver or query builder). Drizzle's query errors
 * carry every bound parameter in their message (template ciphertexts, secrets), so such an
 * error is only ever described by its code.
 */
export function databaseErrorCode(error: unknown): string | null {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 6; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^(SQLITE_|LIBSQL|CLIENT_CLOSED|SERVER_ERROR|HRANA|TRANSACTION|URL_|PROTOCOL)/.test(code)) return code;
    if (e.name === 'DrizzleQueryError' || e.name === 'LibsqlError' || e.name === 'LibsqlBatchError') {
      const inner = (e.cause as { code?: unknown } | undefined)?.code;
      return typeof inner === 'string' ? inner : 'DATABASE_ERROR';
    }
  }
  return null;
}

/** Text that is safe to log or store about any error: never query parameters or data. */
export function describeError(error: unknown): string {
  const dbCode = databaseErrorCode(error);
  if (dbCode) return `database error (${dbCode})`;
  if (error instanceof FpaError) return error.message;
  if (error instanceof Error) return `${error.name}: ${error.message}`.slice(0, 300);
  return String(error).slice(0, 300);
}

/**
 * Why something failed, for an operator's terminal (start-up, a script): the error and its causes
 * in turn, without a database query's own text (drizzle's "Failed query: …" carries every bound
 * parameter) — what a bare `error.message` left out (`Failed query: CREATE TABLE …` said nothing
 * of the refused connection under it). An error that already says why (a database that cannot
 * be opened, db/unavailable.ts) ends the chain.
 */
export function explainFailure(error: unknown): string {
  const parts: string[] = [];
  let e: unknown = error;
  for (let depth = 0; e !== undefined && e !== null && depth < 6; depth++) {
    if (!(e instanceof Error)) {
      parts.push(String(e));
      break;
    }
    const own = e.name === 'DrizzleQueryError' || e.message.startsWith('Failed query:') ? 'a database statement failed' : e.message.trim();
    if (own !== '' && !parts.some((p) => p.includes(own))) parts.push(own);
    if (e.name === 'DatabaseUnavailableError') break;
    e = e.cause;
  }
  return parts.join(': ').slice(0, 2000);
}

/** True for SQLITE_BUSY ("database is locked") anywhere in the cause chain (drizzle wraps driver errors). */
export function isSqliteBusy(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 6; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('SQLITE_BUSY')) return true;
    if (/database is locked|SQLITE_BUSY/.test(e.message)) return true;
  }
  return false;
}
