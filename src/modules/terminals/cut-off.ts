/**
 * Requests a terminal (or anyone) cut off: the connection closed before the body arrived, because
 * the client went away or sent too slowly and the server's idle timeout closed it. Nothing of such
 * a request is kept and the terminal sends it again: it is the network's doing, not the server's,
 * so it is no error. Each is logged at debug; a warning says so at most once a minute per address,
 * with how many were cut off since the last one (300 slow sockets wrote 300 error lines).
 */
import { BoundedMap } from '../../platform/bounded-map';
import type { Logger } from '../../platform/log';
import type { Clock } from '../../platform/runtime';

/** Raised in place of the body's read error when the client is gone. */
export class ClientWentAway extends Error {
  constructor(cause: unknown) {
    super('the client went away before its request body arrived', { cause });
    this.name = 'ClientWentAway';
  }
}

function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}

/**
 * A body read that failed because the connection closed (the request's signal is aborted, or the
 * read itself was aborted) becomes ClientWentAway; any other failure is passed on as it is.
 */
export function whenClientGone(request: Request, error: unknown): unknown {
  return request.signal.aborted || isAbortError(error) ? new ClientWentAway(error) : error;
}

/** A warning per address at most this often. */
const WARN_EVERY_MS = 60_000;
/** Addresses remembered: a flood from many addresses cannot grow the map without end. */
const MAX_ADDRESSES = 10_000;

export class CutOffRequests {
  /** Per address: when it was last warned of, and the cut-offs since. */
  private readonly byAddress = new BoundedMap<string, { warnedAt: number; since: number }>(MAX_ADDRESSES);

  constructor(
    private readonly log: Logger,
    private readonly clock: Clock,
  ) {}

  note(ip: string | null, serial: string | null, path: string): void {
    this.log.debug('terminal request cut off: the connection closed before its body arrived; the terminal will resend', { path, serial, ip });
    const now = this.clock.now();
    const key = ip ?? '';
    const seen = this.byAddress.get(key);
    if (seen && now - seen.warnedAt < WARN_EVERY_MS) {
      this.byAddress.set(key, { warnedAt: seen.warnedAt, since: seen.since + 1 });
      return;
    }
    const count = (seen?.since ?? 0) + 1;
    this.log.warn('terminal requests cut off by the client (it went away or sent too slowly); the terminals resend them', {
      ip,
      serial,
      count,
      ...(seen ? { since: new Date(seen.warnedAt).toISOString() } : {}),
    });
    this.byAddress.set(key, { warnedAt: now, since: 0 });
  }
}
