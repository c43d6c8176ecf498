/**
 * The console calls the service's own JSON API (`/api/fingerprint/v1/…`), so it has exactly the
 * validation, errors and audit trail of any other client. The session cookie goes along by
 * itself (same origin); every change also carries the session's CSRF token in a header.
 */

import type { Static } from '@sinclair/typebox';
import type { ConsoleSessionView } from '..';

export const API = '/api/fingerprint/v1';

/** `GET /console/session`: who is signed in, their role, areas and allowed actions, the CSRF token. */
export type SessionInfo = Static<typeof ConsoleSessionView>;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The error body's `details` (the field, the validation errors…). */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** Said when the server cannot be reached at all (the browser says only "Failed to fetch"). */
export const UNREACHABLE = 'The server could not be reached. Check your connection and try again.';
/** Said for the server's own failure: a 500, or a proxy's 502–504 that has no error body. */
export const SERVER_PROBLEM = 'The server had a problem and did not do this. Try again; if it keeps happening, tell your administrator.';

/** `fetch`, with a network failure turned into an ApiError in plain words (status 0, `unreachable`). */
export async function reach(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch {
    throw new ApiError(0, 'unreachable', UNREACHABLE);
  }
}

/** What to say for an answer with no error body of the API's own. */
const noBody = (status: number) => (status >= 500 ? SERVER_PROBLEM : `The server answered ${status}.`);

let session: SessionInfo | null = null;
/** Called when the session is over (401): the shell shows the sign-in notice. */
let onSignedOut: () => void = () => undefined;

export function useSession(info: SessionInfo, signedOut: () => void): void {
  session = info;
  onSignedOut = signedOut;
}

export function currentSession(): SessionInfo {
  if (!session) throw new Error('not signed in');
  return session;
}

/**
 * Whether the signed-in role may take this action: a `METHOD path` row of the server's policy
 * (src/platform/http/policy.ts), as the session lists them. The console offers only what it may,
 * so no button answers 403 (test/platform/policy.test.ts checks every action named here is a row).
 */
export function can(action: string): boolean {
  return session?.actions.includes(action) ?? false;
}

/**
 * The areas of a member (a person, a terminal, an agent, an account) outside the signed-in
 * caller's areas: none for a caller of every area. A caller limited to areas deactivates,
 * deletes, disables or wipes only a member wholly within them (the server answers 403 with
 * `outside`), so the console offers those only when this is empty.
 */
export function outsideMine(areas: readonly string[]): string[] {
  const mine = session?.areas ?? [];
  return mine.length === 0 ? [] : areas.filter((a) => !mine.includes(a));
}

/**
 * Whether the signed-in caller is limited to no area. What belongs to every area is theirs alone
 * (the server answers 403 to anyone else): turning a terminal's enrollment station on or off.
 */
export function ofEveryArea(): boolean {
  return (session?.areas ?? []).length === 0;
}

/** Whether the member is wholly within the caller's areas (see outsideMine). */
export function whollyMine(areas: readonly string[]): boolean {
  const mine = session?.areas ?? [];
  return mine.length === 0 || (areas.length > 0 && outsideMine(areas).length === 0);
}

/** Reads `/console/session`; null when nobody is signed in. */
export async function loadSession(): Promise<SessionInfo | null> {
  const response = await reach('session', { credentials: 'same-origin', cache: 'no-store' });
  if (response.status === 401) return null;
  if (!response.ok) throw new ApiError(response.status, 'unavailable', noBody(response.status));
  return (await response.json()) as SessionInfo;
}

/** What a sign-in post answered: its status, the parsed body (or the error's message), and Retry-After in seconds. */
/** A sign-in endpoint's answer; `T` is the JSON body its successful answer has. */
export interface SignInAnswer<T = Record<string, unknown>> {
  status: number;
  body: T | null;
  message: string;
  retryAfter: number | null;
}

/** Posts to the console's own sign-in endpoints (no session yet, so no CSRF token). */
export async function signInPost<T extends object = Record<string, unknown>>(path: string, body: unknown): Promise<SignInAnswer<T>> {
  let response: Response;
  try {
    response = await reach(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      credentials: 'same-origin',
      cache: 'no-store',
      body: JSON.stringify(body),
    });
  } catch {
    return { status: 0, body: null, message: UNREACHABLE, retryAfter: null };
  }
  let parsed: (T & { error?: { message?: string } }) | null = null;
  try {
    parsed = response.status === 204 ? null : ((await response.json()) as T & { error?: { message?: string } });
  } catch {
    parsed = null;
  }
  const error = parsed?.error;
  const retry = Number(response.headers.get('retry-after'));
  return {
    status: response.status,
    body: parsed,
    message: error?.message ?? noBody(response.status),
    retryAfter: Number.isFinite(retry) && retry > 0 ? retry : null,
  };
}

async function send(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const info = currentSession();
  if (method !== 'GET' && info.csrf_token) headers[info.csrf_header] = info.csrf_token;
  if (body !== undefined) headers['content-type'] = contentType;
  const url = path.startsWith('/') ? path : `${API}/${path}`;
  const response = await reach(url, {
    method,
    headers,
    credentials: 'same-origin',
    cache: 'no-store',
    body:
      body === undefined
        ? undefined
        : body instanceof ArrayBuffer || (typeof body === 'string' && contentType !== 'application/json')
          ? body
          : JSON.stringify(body),
  });
  if (response.status === 401) {
    onSignedOut();
    throw new ApiError(401, 'unauthorized', 'Your session has ended. Sign in again.');
  }
  if (!response.ok) throw await failureOf(response);
  return response;
}

/** A refused answer as an ApiError: the API's error body, or words for an answer without one (a proxy's 502). */
export async function failureOf(response: Response): Promise<ApiError> {
  try {
    const parsed = (await response.json()) as { error?: { code?: string; message?: string; details?: Record<string, unknown> } };
    return new ApiError(response.status, parsed.error?.code ?? 'error', parsed.error?.message ?? noBody(response.status), parsed.error?.details ?? {});
  } catch {
    // not the error body
    return new ApiError(response.status, 'error', noBody(response.status));
  }
}

async function json<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await send(method, path, body);
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

export const api = {
  get: <T>(path: string) => json<T>('GET', path),
  post: <T>(path: string, body: unknown = {}) => json<T>('POST', path, body),
  patch: <T>(path: string, body: unknown) => json<T>('PATCH', path, body),
  put: <T>(path: string, body: unknown) => json<T>('PUT', path, body),
  delete: <T>(path: string) => json<T>('DELETE', path),
  /** A response as it is (a CSV download). */
  raw: (path: string) => send('GET', path),
  /** Posts a CSV text (an import) and reads the JSON answer. */
  postCsv: async <T>(path: string, csv: string) => (await (await send('POST', path, csv, 'text/csv')).json()) as T,
  /** Posts a file's bytes as they are (a terminal's USB file) and reads the JSON answer. */
  postFile: async <T>(path: string, content: ArrayBuffer | string) => (await (await send('POST', path, content, 'application/octet-stream')).json()) as T,
};

export interface List<T> {
  results: T[];
  next_cursor: string | null;
}

/** What a query string is made of (query() leaves out the empty values). */
export type QueryParams = Record<string, string | number | undefined | null>;

/** Reads a list page (`api.get` in the console; the tests pass a client of their own). */
export type ListReader = <T>(path: string) => Promise<List<T>>;

/** The API's largest page (`?limit=`, docs/api.md). */
export const MAX_PAGE = 1000;

/**
 * A list read a page at a time, following `next_cursor`: the rows read so far, whether the server
 * has more, and `next()` for the following page. Never one page taken for the whole list: past
 * the API's 1,000 a page that ignored its cursor showed the first rows and silently left the rest.
 */
export interface Pager<T> {
  readonly rows: readonly T[];
  /** The server has rows not read yet (true before the first page). */
  readonly more: boolean;
  /** Reads the next page (nothing when there is none) and returns its rows. */
  next(): Promise<T[]>;
  /** Reads pages until at least `count` rows are read, or there are no more. */
  until(count: number): Promise<void>;
}

export function pager<T>(path: string, params: QueryParams = {}, pageSize = MAX_PAGE, read: ListReader = api.get): Pager<T> {
  const rows: T[] = [];
  // undefined: nothing read yet; null: the last page was read.
  let cursor: string | null | undefined;
  const next = async (): Promise<T[]> => {
    if (cursor === null) return [];
    const page = await read<T>(`${path}${query({ ...params, limit: pageSize, cursor })}`);
    // A cursor answered twice would read the same page for ever: the list ends there.
    cursor = page.next_cursor && page.next_cursor !== cursor ? page.next_cursor : null;
    rows.push(...page.results);
    return page.results;
  };
  return {
    rows,
    get more() {
      return cursor !== null;
    },
    next,
    async until(count) {
      while (rows.length < count && cursor !== null) await next();
    },
  };
}

/** Every row of a list, page after page (lists that stay small: terminals, users, keys, schedules…). */
export async function everyRow<T>(path: string, params: QueryParams = {}, read: ListReader = api.get): Promise<T[]> {
  const all = pager<T>(path, params, MAX_PAGE, read);
  while (all.more) await all.next();
  return [...all.rows];
}

/** Query string from the given, non-empty values. */
export function query(params: QueryParams): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const text = q.toString();
  return text ? `?${text}` : '';
}
