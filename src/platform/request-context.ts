/**
 * The request a piece of work is done for: every HTTP request gets an id (the caller's
 * `x-request-id` when it is a plain token, else a new UUID), echoed in the answer, written in
 * every log line made while serving it and in every error body (`error.request_id`), so an
 * operator can tie the error a user reports to the server's log.
 *
 * Carried by AsyncLocalStorage rather than passed through every call: the log lines that matter
 * are written deep in services that know nothing of HTTP.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Actor } from './http/caller';

export const REQUEST_ID_HEADER = 'x-request-id';

/** What a caller may choose as its id: what proxies and tracing systems send, nothing that could forge a log line. */
const SAFE_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/**
 * Who the work is done by, once known: the authenticated caller of a request (with `by`, the name
 * its audit rows carry), or a job (no `by`: whatever it writes is the job's).
 */
export interface ContextActor extends Actor {
  by?: string;
}

interface RequestStore {
  requestId: string;
  /** The request served, for the context of an HTTP request (a job's has none). */
  request?: Request;
  actor?: ContextActor;
  /** The answer carries the id among its headers already (echoIn): nothing to add to it. */
  echoed?: boolean;
}

const storage = new AsyncLocalStorage<RequestStore>();

/** The caller's id when it is safe to echo and log, else a new one. */
export function requestIdFrom(headers: Headers): string {
  const given = headers.get(REQUEST_ID_HEADER)?.trim();
  return given && SAFE_ID.test(given) ? given : crypto.randomUUID();
}

/**
 * Runs `work` as part of the request `requestId`; answers what it answered, and whether that
 * answer carries the id already (echoIn), so that the server adds it only when it does not.
 */
export async function inRequestContext<T>(request: Request, requestId: string, work: () => T | Promise<T>): Promise<{ answer: T; echoed: boolean }> {
  const store: RequestStore = { requestId, request };
  const answer = await storage.run(store, work);
  return { answer, echoed: store.echoed === true };
}

/**
 * Puts the id of the request being served among the headers its route answers with, and says
 * so: the server then leaves the built answer as it is instead of setting the header on it once
 * more (which makes Bun build the answer's header list again: a few percent of an idle poll).
 */
export function echoIn(headers: Record<string, string | number>): void {
  const store = storage.getStore();
  if (!store) return;
  headers[REQUEST_ID_HEADER] = store.requestId;
  store.echoed = true;
}

/**
 * The id of `request`, entering its context first when it has none yet: Bun routes static paths
 * itself, past any wrapper of `fetch`, so a hook at the start of the plugin's routes enters it
 * (`enterWith` holds for the rest of that request's work).
 *
 * A context found is the request's own only when it was made for this very request. `enterWith`
 * runs while the route's hooks run synchronously in their caller's context, and stays there: a
 * host's `await app.handle(…)` (a warm-up, a test) leaves its code, and whatever it serves after
 * (Bun's server started later included), in that request's context. Taken as the current request's,
 * it gave every later request the same id, ignored a caller's own `x-request-id`, and carried one
 * request's caller into the next.
 */
export function enterRequestContext(request: Request): string {
  const current = storage.getStore();
  if (current?.request === request) return current.requestId;
  const requestId = requestIdFrom(request.headers);
  storage.enterWith({ requestId, request });
  return requestId;
}

/** The id of the request being served, or null outside one (jobs, workers, start-up). */
export function currentRequestId(): string | null {
  return storage.getStore()?.requestId ?? null;
}

/** Whether the request being served is a HEAD: its answer carries the headers only. */
export function servingHead(): boolean {
  return storage.getStore()?.request?.method === 'HEAD';
}

/** Records who the current request acts as (the administrator check, once it succeeded). */
export function setContextActor(actor: ContextActor): void {
  const store = storage.getStore();
  if (store) store.actor = actor;
}

/** Runs `work` as `actor` (a job run), inside the current request's id when there is one. */
export function actingAs<T>(actor: ContextActor, work: () => T): T {
  return storage.run({ requestId: currentRequestId() ?? crypto.randomUUID(), actor }, work);
}

/** Who the current work is done by, or null when nobody said. */
export function currentActor(): ContextActor | null {
  return storage.getStore()?.actor ?? null;
}
