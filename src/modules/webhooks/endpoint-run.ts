/**
 * One claim of one endpoint, worked as a stream (ordered-delivery.ts claims it): the events after
 * its position fetched in order, sent with up to WEBHOOK_CONCURRENCY requests in flight, and the
 * position moved over the unbroken run of answers that hand an event off.
 */
import type { WriteContext } from '../../platform/db/client';
import type { GroupCommit } from '../../platform/db/group-commit';
import { describeError } from '../../platform/errors';
import type { EventLog, LoggedEvent } from '../events';
import { type Dispatcher, errorOf, eventMessage, isDelivered, verdictOf } from './dispatch';
import {
  deliveryLog,
  type EndpointState,
  type Entry,
  emptyProgress,
  endpointStateAfter,
  mergedProgress,
  type Progress,
  type RunHealth,
  writeRunProgress,
} from './run-writes';
import type { WebhookRuntime } from './runtime';
import type { WebhookResponse } from './sender';
import type { webhookEndpoints } from './tables';
import { sendsOf, type Tries, triesAfter } from './tries';

export type EndpointRow = typeof webhookEndpoints.$inferSelect;

/** One endpoint's progress write: false when its claim had passed on. */
export type ProgressWriter = GroupCommit<(w: WriteContext) => Promise<boolean>, boolean>;

export interface StreamTotals {
  delivered: number;
  /** Refused by the receiver (4xx): dead-lettered as message rows, passed. */
  dead: number;
  /** Failed attempts that will be retried. */
  retrying: number;
  /** Runs whose write came too late to count (the claim had passed on). */
  stale: number;
}

export const emptyStreamTotals = (): StreamTotals => ({ delivered: 0, dead: 0, retrying: 0, stale: 0 });

/** A caught-up endpoint keeps its claim this long, waiting for new events. */
const LINGER_MS = 500;

/** The progress of the endpoints being worked is written this often, all in one transaction. */
export const FLUSH_MS = 250;

/**
 * One claim of one endpoint, worked as a stream: events are fetched in order after the
 * position, up to WEBHOOK_CONCURRENCY requests are in flight (started in sequence order), and
 * the position follows the unbroken run of answers that hand an event off. The position is
 * written while sending goes on, every FLUSH_MS together with the other endpoints worked here
 * (one transaction), one write at a time per endpoint, so delivery does not wait for the
 * database: under a heavy write load a write simply carries more events. Every write is made
 * under the claim token; one that finds the claim gone stops the run (another instance has the
 * endpoint: it starts from the last position written). A crash re-sends at most what was
 * answered since the last write.
 */
export class EndpointRun {
  /** Fetched and not handed off yet, in sequence order; the first `started` of them were sent. */
  private readonly queue: Entry[] = [];
  private started = 0;
  private inFlight = 0;
  /** Every subscribed event up to here has been fetched. */
  private fetched: number;
  private fetching: Promise<void> | null = null;
  private caughtUp = false;
  /** A retryable failure, a dead letter or a 410 was answered: nothing more is started. */
  private halted = false;
  /**
   * The answer that dead-lettered a message and so ended this try: the endpoint backs off as
   * after any failure, so a receiver refusing every message loses one per try, not every message
   * at its last attempt in one burst.
   */
  private deadLetter: WebhookResponse | null = null;
  private gone = false;
  /** Handed off up to here (every subscribed event up to it delivered or dead-lettered). */
  private position: number;
  private written: number;
  private progress = emptyProgress();
  private writing: Promise<void> | null = null;
  private lastWriteAt = performance.now();
  private stale = false;
  /** The run's own last write is next: no more progress writes. */
  private finished = false;
  /** How many times each event after the position as claimed was sent before this run. */
  private readonly tries: Tries;
  /** Every event after the position as claimed up to here was sent in this run (in order). */
  private sentTo: number | null = null;
  /** Since when the endpoint has been failing (null: its last message handed off was accepted). */
  private failingSince: number | null;
  /** Whether this run met a failure (a dead letter, a failed answer): only such a run may disable the endpoint. */
  private failedInRun = false;
  private lastError: string | null;
  private readonly totals = emptyStreamTotals();
  private waiter: (() => void) | null = null;
  private signalled = false;
  /**
   * Since when (`performance.now()`) this run has had events to read; null once it caught up.
   * Its reads yield to a burst of uploads counting from here, so under uploads that never pause
   * it waits WEBHOOK_MAX_LAG once, then reads on until it has caught up.
   */
  private owedSince: number | null = null;
  /** When the endpoint backs off until, if it does. */
  retryAt: number | null = null;

  constructor(
    private readonly ctx: WebhookRuntime,
    private readonly log: EventLog,
    private readonly dispatcher: Dispatcher,
    private readonly endpoint: EndpointRow,
    private readonly options: { until?: number; keepGoing: () => boolean; lease: number; batch: number; window: () => number; writer: ProgressWriter },
  ) {
    this.fetched = endpoint.position;
    this.position = endpoint.position;
    this.written = endpoint.position;
    this.tries = endpoint.tries;
    this.failingSince = endpoint.failingSince;
    this.lastError = endpoint.lastError;
  }

  /**
   * Requests in flight. A failing endpoint is sent one message at a time until the receiver
   * accepts one: the messages behind it are not sent (and counted) again on every retry.
   */
  private get window(): number {
    return this.failingSince === null ? this.options.window() : 1;
  }

  /** The attempt an event's request is: every send of a message is one, whichever run made it. */
  private attemptOf(event: LoggedEvent): number {
    return sendsOf(this.tries, event.sequence) + 1;
  }

  signal(): void {
    const waiter = this.waiter;
    this.waiter = null;
    if (waiter) waiter();
    else this.signalled = true;
  }

  private nextSignal(): Promise<void> {
    if (this.signalled) {
      this.signalled = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      this.waiter = resolve;
    });
  }

  /** Waits for a signal or `ms`; true when signalled. */
  private async signalWithin(ms: number): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | null = null;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    });
    const woke = await Promise.race([this.nextSignal().then(() => true), timeout]);
    if (timer) clearTimeout(timer);
    return woke;
  }

  private get sending(): boolean {
    return !this.halted && !this.stale && this.options.keepGoing();
  }

  async run(): Promise<StreamTotals> {
    for (;;) {
      this.pump();
      if (this.stale) break;
      const idle = this.inFlight === 0 && this.fetching === null && (this.started === this.queue.length || !this.sending);
      if (idle) {
        if (this.halted || !this.options.keepGoing()) break;
        if (this.caughtUp && this.started === this.queue.length) {
          if (this.options.until !== undefined) break;
          const woke = await this.signalWithin(LINGER_MS);
          if (!this.options.keepGoing()) break;
          if ((await this.log.lastSequence()) > this.fetched) {
            this.caughtUp = false;
            continue;
          }
          if (!woke) break;
          continue;
        }
      }
      await this.nextSignal();
    }
    while (this.inFlight > 0 || this.fetching) await this.nextSignal();
    this.popHandedOff();
    this.finished = true;
    if (this.writing) await this.writing;
    if (!this.stale) await this.write(true);
    return this.totals;
  }

  /** Hands off what was answered, starts what may start, fetches ahead, writes progress. */
  private pump(): void {
    this.popHandedOff();
    if (this.sending) {
      while (this.inFlight < this.window && this.started < this.queue.length) this.start(this.queue[this.started++]!);
      if (this.fetching === null && !this.caughtUp && this.queue.length - this.started < this.window) {
        this.fetching = this.fetch()
          .catch((error: unknown) => {
            // A failed read ends the run like a failed request: it is tried again from the position.
            this.ctx.log.warn('webhook events could not be read', { endpoint: this.endpoint.id, error: describeError(error) });
            this.halted = true;
          })
          .finally(() => {
            this.fetching = null;
            this.signal();
          });
      }
    }
  }

  private async fetch(): Promise<void> {
    const { until, batch } = this.options;
    // Terminals first: the upload being parsed now would wait behind these reads and requests.
    this.owedSince ??= performance.now();
    await this.ctx.uploads.pause(this.owedSince, () => this.sending);
    // The head first: every event up to it has committed, so a short read holds every
    // subscribed event up to the head.
    const head = await this.log.lastSequence();
    // Every endpoint reads these events in turn: the punches they show are read once (events/shown-cache.ts).
    const events = await this.log.after(this.fetched, batch, this.endpoint.events, { cached: true });
    const usable = until === undefined ? events : events.filter((e) => e.sequence <= until);
    const vetted = usable.length > 0 ? await this.dispatcher.vet(this.endpoint.url) : null;
    for (const event of usable) {
      this.queue.push({
        event,
        connectTo: vetted?.ok ? vetted.connectTo : undefined,
        refused: vetted && !vetted.ok ? vetted.error : null,
        response: null,
        verdict: null,
      });
    }
    const last = usable[usable.length - 1]?.sequence ?? this.fetched;
    if (events.length < batch || usable.length < events.length) {
      this.caughtUp = true;
      this.owedSince = null;
      this.fetched = Math.max(this.fetched, last, until === undefined ? head : Math.min(head, until));
    } else {
      this.fetched = last;
    }
  }

  private start(entry: Entry): void {
    this.inFlight++;
    this.sentTo = entry.event.sequence;
    const sent = entry.refused
      ? Promise.resolve<WebhookResponse>({ statusCode: null, error: entry.refused, durationMs: 0 })
      : this.dispatcher.send(this.endpoint, eventMessage(entry.event), entry.connectTo);
    void sent
      .catch((error: unknown): WebhookResponse => ({ statusCode: null, error: describeError(error), durationMs: 0 }))
      .then((response) => {
        entry.response = response;
        const verdict = verdictOf(response, this.attemptOf(entry.event), this.ctx.settings.WEBHOOK_MAX_ATTEMPTS);
        entry.verdict = verdict;
        if (verdict === 'retry' || verdict === 'gone' || verdict === 'refused') this.halted = true;
        if (verdict === 'gone') this.gone = true;
        if (verdict === 'refused') this.deadLetter ??= response;
        this.inFlight--;
        this.signal();
      });
  }

  /** Moves the position over the answered events at the front that are handed off. */
  private popHandedOff(): void {
    while (this.queue.length > 0) {
      const entry = this.queue[0]!;
      if (!entry.response) break;
      const verdict = entry.verdict;
      if (verdict === 'delivered') {
        this.progress.delivered++;
        this.progress.lastDelivered = { event: entry.event, response: entry.response };
        this.failingSince = null;
        this.lastError = null;
      } else if (verdict === 'refused') {
        this.progress.dead.push({ event: entry.event, response: entry.response });
        this.failingSince ??= this.ctx.clock.now();
        this.failedInRun = true;
        this.lastError = errorOf(entry.response);
      } else break;
      this.position = entry.event.sequence;
      this.queue.shift();
      this.started--;
    }
    // Nothing fetched is left: everything up to what was read is handed off.
    if (this.queue.length === 0) this.position = Math.max(this.position, this.fetched);
  }

  /**
   * Starts a write of the progress made since the last one, unless one is under way (called for
   * every endpoint worked here on one tick, so their writes share a transaction).
   */
  flush(): void {
    if (this.writing || this.stale || this.finished) return;
    const handed = this.progress.delivered + this.progress.dead.length;
    if (handed === 0 && this.position === this.written) return;
    this.writing = this.write(false)
      .catch((error: unknown) => {
        // Not written (the database refused it: its disk full, a lock held elsewhere). This
        // write is not awaited: its rejection went unheard, and Bun ended the whole server on
        // it. The progress stays with the run (write), and the next flush writes it.
        this.ctx.log.warn('webhook progress could not be written yet; it is written with the next', {
          endpoint: this.endpoint.id,
          error: describeError(error),
        });
      })
      .finally(() => {
        this.writing = null;
        this.signal();
      });
  }

  /**
   * Writes the position and what was handed off since the last write, under the claim token; the
   * last write of the run also decides the endpoint's state (healthy, backing off, disabled)
   * and gives up the claim (run-writes.ts).
   */
  private async write(final: boolean): Promise<void> {
    const progress = this.progress;
    this.progress = emptyProgress();
    const position = this.position;
    const now = this.ctx.clock.now();
    // Failed answers not handed off (they will be sent again): logged with the run's last write.
    const unhanded = final ? this.queue.filter((e) => e.response !== null && !isDelivered(e.response)) : [];
    // What ended the try: the next message's failed answer, else a dead letter while the endpoint
    // is still failing (both back off; a message accepted after the dead letter ended the failing).
    const failure = final ? (this.queue[0]?.response ?? (this.failingSince !== null ? this.deadLetter : null)) : null;
    if (failure !== null && !isDelivered(failure)) {
      this.failingSince ??= now;
      this.lastError = errorOf(failure);
      this.failedInRun = true;
    }
    const state = endpointStateAfter({
      progress,
      final,
      failedInRun: this.failedInRun,
      gone: this.gone,
      failure,
      health: this.health(position),
      now,
      lease: now + this.options.lease,
      settings: this.ctx.settings,
    });
    state.set.position = position;
    const attemptOf = (event: LoggedEvent) => this.attemptOf(event);
    const deliveries = deliveryLog({
      endpointId: this.endpoint.id,
      progress,
      unhanded,
      state,
      gone: this.gone,
      attemptOf,
      sinceLastWrite: performance.now() - this.lastWriteAt,
      now,
    });
    let written: boolean;
    try {
      written = await this.options.writer.submit(({ tx }) => writeRunProgress(tx, { endpoint: this.endpoint, state, progress, deliveries, attemptOf, now }));
    } catch (error) {
      // Nothing of it was written: it goes with the next write, before what was handed off since.
      this.progress = mergedProgress(progress, this.progress);
      throw error;
    }
    this.lastWriteAt = performance.now();
    if (!written) {
      this.stale = true;
      this.totals.stale++;
      return;
    }
    this.written = position;
    this.count(progress, unhanded.filter((e) => e.verdict !== 'refused').length, state);
  }

  /** The endpoint's health as of this run, with the position at `position`. */
  private health(position: number): RunHealth {
    const next = this.queue[0];
    // The next message's attempts so far are failed ones: its earlier sends, and this run's once answered.
    const attempts = next ? sendsOf(this.tries, next.event.sequence) + (next.response ? 1 : 0) : 0;
    const tries = triesAfter(this.tries, this.sentTo, position);
    return { attempts, tries, failingSince: this.failingSince, lastError: this.lastError };
  }

  /** The run's totals and the delivery metrics after a write. */
  private count(progress: Progress, failed: number, { disabledReason, nextRetry }: EndpointState): void {
    this.totals.delivered += progress.delivered;
    this.totals.dead += progress.dead.length;
    this.totals.retrying += disabledReason || this.gone ? 0 : failed;
    const { metrics } = this.ctx;
    if (progress.delivered > 0) metrics.webhookDeliveries.inc({ outcome: 'delivered' }, progress.delivered);
    if (progress.dead.length > 0) metrics.webhookDeliveries.inc({ outcome: 'dead' }, progress.dead.length);
    if (failed > 0) metrics.webhookDeliveries.inc({ outcome: 'failed' }, failed);
    if (disabledReason) this.ctx.log.warn(`webhook endpoint disabled: ${disabledReason}`, { endpoint: this.endpoint.id });
    else if (nextRetry !== null) this.retryAt = nextRetry;
  }
}
