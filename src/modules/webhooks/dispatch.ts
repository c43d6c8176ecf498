/**
 * One webhook request, from an event to an answer taken: the body of an event, the URL vetted
 * (SSRF) and the connection pinned to the vetted address, the Standard Webhooks headers signed
 * with the endpoint's secret (decrypted once per endpoint and stored value: secrets.ts), and
 * what the answer means for delivery.
 */
import { TemplateDecryptError } from '../../platform/crypto/template-cipher';
import { describeError } from '../../platform/errors';
import type { LoggedEvent } from '../events';
import type { WebhookRuntime } from './runtime';
import { dropPreviousSecret, openWebhookSecret } from './secrets';
import { fetchSender, type WebhookResponse, type WebhookSender } from './sender';
import { WebhookSigner } from './signing';
import { AllowedNetworks, type CheckWebhookUrlOptions, cachingResolver, checkWebhookUrl, DNS_LOOKUP_TIMEOUT_MS, type Resolver } from './ssrf';

/** What the receiver is sent: `webhook-id` and the body. */
export interface OutgoingMessage {
  id: string;
  body: string;
}

/** The body of every delivery of an event (what a receiver verifies the signature of). */
interface MessageBody {
  type: string;
  /** When the event was recorded (the events of one upload share it). */
  timestamp: string;
  /**
   * The event's place in the log (`events/`): requests in flight together may arrive swapped,
   * and a receiver restores the order by this. Null for `webhook_test`, which is not in the log.
   */
  sequence: number | null;
  data: Record<string, unknown>;
}

export function eventMessage(event: LoggedEvent): OutgoingMessage {
  const body: MessageBody = { type: event.type, timestamp: new Date(event.at).toISOString(), sequence: event.sequence, data: event.data };
  return { id: event.id, body: JSON.stringify(body) };
}

/** `webhook_test`: sent by hand, never stored; its id is its own. */
export function testMessage(endpointId: string, now: number): OutgoingMessage {
  const body: MessageBody = { type: 'webhook_test', timestamp: new Date(now).toISOString(), sequence: null, data: { endpoint: endpointId } };
  return { id: `msg_${crypto.randomUUID().replaceAll('-', '')}`, body: JSON.stringify(body) };
}

/**
 * What an answer means (Standard Webhooks, and what Stripe and Svix do: every failure is retried
 * on the backoff, 410 Gone stops delivery to the endpoint):
 * - `delivered`: 2xx;
 * - `gone`: 410, the receiver is gone for good: the endpoint is disabled;
 * - `retry`: anything else, the same message is tried again on the backoff: no answer, timeout,
 *   3xx (redirects are not followed), 5xx, and 4xx too: a receiver answering 404 or 401 during
 *   a deploy, a proxy change or a secret rotation is having an outage, not refusing the message;
 * - `refused`: a 4xx other than 408, 425 and 429 answered at attempt WEBHOOK_MAX_ATTEMPTS or
 *   later (≈5 hours of retries at the defaults): the receiver is up and keeps refusing this
 *   message, so it is dead-lettered (`recover` sends it again) and the endpoint's ordered
 *   delivery goes on past it instead of holding every later event behind it.
 */
export type Verdict = 'delivered' | 'retry' | 'refused' | 'gone';

/** 4xx that say "later" by definition: never dead-lettered, however many attempts. */
const RETRYABLE_4XX = new Set([408, 425, 429]);

/** `attempt` is this answer's attempt of the message (1 = its first). */
export function verdictOf(response: WebhookResponse, attempt: number, maxAttempts: number): Verdict {
  const code = response.statusCode;
  if (code === null) return 'retry';
  if (code >= 200 && code < 300) return 'delivered';
  if (code === 410) return 'gone';
  if (code >= 400 && code < 500 && !RETRYABLE_4XX.has(code) && attempt >= maxAttempts) return 'refused';
  return 'retry';
}

/** Whether an answer delivered the message (2xx). */
export function isDelivered(response: WebhookResponse): boolean {
  return response.statusCode !== null && response.statusCode >= 200 && response.statusCode < 300;
}

/** The error text of an answer that was not a success (null for a success). */
export function errorOf(response: WebhookResponse): string | null {
  if (isDelivered(response)) return null;
  if (response.error) return response.error;
  const code = response.statusCode;
  if (code === null) return 'no response';
  if (code >= 300 && code < 400) return `HTTP ${code}: redirects are not followed`;
  return `HTTP ${code}`;
}

/** How long a host's DNS answer is reused by the SSRF check (its addresses are still checked each time). */
const LOOKUP_REUSE_MS = 1_000;
/** Signers kept per instance; beyond this the cache starts over (secrets are only ever a handful). */
const MAX_SIGNERS = 1_000;
const USER_AGENT = 'fingerprint-attendance-webhooks/1';
const UNREADABLE_SECRET = 'the signing secret cannot be decrypted: its key is not in TEMPLATE_ENCRYPTION_KEYS';

/** The DNS lookup of one check is bounded too, by the request timeout or 5 s, whichever is less. */
export function lookupTimeoutOf(requestTimeoutMs: number): number {
  return Math.max(1, Math.min(requestTimeoutMs, DNS_LOOKUP_TIMEOUT_MS));
}

/** An endpoint as a request needs it. */
export interface Target {
  id: string;
  url: string;
  /** The secret as stored (sealed: secrets.ts). */
  secret: string;
  /** The secret before the last rotation, as stored, and until when deliveries are also signed with it. */
  previousSecret?: string | null;
  previousSecretUntil?: number | null;
}

/** An endpoint's signers: its secret's, and during a rotation's overlap the previous secret's. */
interface Signers {
  stored: string;
  signer: WebhookSigner;
  previousStored: string | null;
  previous: WebhookSigner | null;
}

/** The URL checked: the address to connect to, or why nothing may be sent. */
export type Vetted = { ok: true; connectTo: string | undefined } | { ok: false; error: string };

/**
 * Requests in flight per instance, whatever the number of endpoints. Measured with Bun 1.4: up
 * to about 64 concurrent requests fetch keeps its connections alive; beyond that it opens and
 * closes one per request (a TIME_WAIT socket each) and throughput falls by more than half.
 */
export const MAX_REQUESTS_IN_FLIGHT = 64;

/** Counts free request slots; waiters are served in the order they asked. */
export class Slots {
  private readonly waiting: Array<() => void> = [];
  constructor(private free: number) {}

  async take(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  give(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}

export class Dispatcher {
  private readonly resolve: Resolver = cachingResolver(undefined, LOOKUP_REUSE_MS);
  private readonly slots = new Slots(MAX_REQUESTS_IN_FLIGHT);
  /** Per endpoint: the stored (sealed) secrets the signers were made from, and the signers. */
  private readonly signers = new Map<string, Signers>();
  /** Per endpoint, the expiry of the previous secret dropped (or being dropped): one write per rotation, not one per send. */
  private readonly dropped = new Map<string, number>();

  /** Which non-public addresses a URL may resolve to (WEBHOOK_ALLOW_PRIVATE_NETWORKS, WEBHOOK_ALLOWED_NETWORKS). */
  readonly urlPolicy: Pick<CheckWebhookUrlOptions, 'allowPrivateNetworks' | 'allowedNetworks'>;

  constructor(
    private readonly ctx: WebhookRuntime,
    private readonly sender: WebhookSender = fetchSender,
  ) {
    this.urlPolicy = {
      allowPrivateNetworks: ctx.settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
      allowedNetworks: new AllowedNetworks(ctx.settings.WEBHOOK_ALLOWED_NETWORKS),
    };
  }

  /** Checks the URL now (DNS may have changed since the endpoint was created). */
  async vet(url: string): Promise<Vetted> {
    const { settings } = this.ctx;
    const check = await checkWebhookUrl(url, {
      ...this.urlPolicy,
      lookupTimeoutMs: lookupTimeoutOf(settings.WEBHOOK_TIMEOUT),
      resolve: this.resolve,
    });
    if (!check.ok) return { ok: false, error: `URL refused: ${check.reason}` };
    return { ok: true, connectTo: preferredAddress(check.addresses) };
  }

  /**
   * Signs and sends one message to a vetted address, when one of the instance's request slots
   * is free (slots are given in the order asked, so an endpoint's messages start in order).
   */
  async send(target: Target, message: OutgoingMessage, connectTo: string | undefined): Promise<WebhookResponse> {
    const signers = await this.signersOf(target);
    if (!signers) return { statusCode: null, error: UNREADABLE_SECRET, durationMs: 0 };
    await this.slots.take();
    try {
      // Signed when it goes out: the signature's timestamp is the time of sending.
      const now = this.ctx.clock.now();
      const unsigned = { id: message.id, timestamp: new Date(now), body: message.body };
      const signed = signers.signer.sign(unsigned);
      // During a rotation's overlap the old secret signs too: Standard Webhooks receivers accept
      // any one of several space-separated signatures, so one still verifying with the old
      // secret and one already on the new accept the same request.
      if (signers.previous && now < (target.previousSecretUntil ?? 0)) {
        signed['webhook-signature'] = `${signed['webhook-signature']} ${signers.previous.sign(unsigned)['webhook-signature']}`;
      } else if (target.previousSecret) this.dropPrevious(target.id, target.previousSecretUntil ?? 0, now);
      return await this.sender({
        url: target.url,
        headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...signed },
        body: message.body,
        timeoutMs: this.ctx.settings.WEBHOOK_TIMEOUT,
        // The vetted address, so fetch does not resolve the name a second time (rebinding).
        connectTo,
      });
    } finally {
      this.slots.give();
    }
  }

  /** Vets and sends one message; a refused URL is an answer like a network error. */
  async vetAndSend(target: Target, message: OutgoingMessage): Promise<WebhookResponse> {
    const vetted = await this.vet(target.url);
    if (!vetted.ok) return { statusCode: null, error: vetted.error, durationMs: 0 };
    return this.send(target, message, vetted.connectTo);
  }

  /**
   * The endpoint's signers, made once per stored secret; null when no key of the ring opens its
   * secret (then nothing can be signed, and the attempt fails like an unreachable receiver,
   * retried). A previous secret that cannot be opened is left out (logged): the new one signs.
   */
  private async signersOf(target: Target): Promise<Signers | null> {
    const previousStored = target.previousSecret ?? null;
    const known = this.signers.get(target.id);
    if (known && known.stored === target.secret && known.previousStored === previousStored) return known;
    const secret = await this.open(target.id, target.secret);
    if (secret === null) return null;
    const previousSecret = previousStored === null ? null : await this.open(target.id, previousStored);
    if (previousStored !== null && previousSecret === null) {
      this.ctx.log.warn('the previous signing secret of a webhook endpoint cannot be decrypted: deliveries are signed with the new one only', {
        endpoint: target.id,
      });
    }
    if (this.signers.size >= MAX_SIGNERS) this.signers.clear();
    const signers: Signers = {
      stored: target.secret,
      signer: new WebhookSigner(secret),
      previousStored,
      previous: previousSecret === null ? null : new WebhookSigner(previousSecret),
    };
    this.signers.set(target.id, signers);
    return signers;
  }

  private async open(endpointId: string, stored: string): Promise<string | null> {
    try {
      return await openWebhookSecret(this.ctx.keyRing, endpointId, stored);
    } catch (error) {
      if (error instanceof TemplateDecryptError) return null;
      throw error;
    }
  }

  /** The rotation's overlap is over: the old secret is dropped from the endpoint (once; a newer rotation is left alone). */
  private dropPrevious(endpointId: string, until: number, now: number): void {
    if (now < until || this.dropped.get(endpointId) === until) return;
    if (this.dropped.size >= MAX_SIGNERS) this.dropped.clear();
    this.dropped.set(endpointId, until);
    void dropPreviousSecret(this.ctx, endpointId, until).catch((error: unknown) => {
      // Tried again at the next send.
      this.dropped.delete(endpointId);
      this.ctx.log.warn('an expired webhook signing secret could not be dropped yet', { endpoint: endpointId, error: describeError(error) });
    });
  }
}

/** IPv4 first, like the system resolver's usual order: many hosts have no IPv6 route out. */
function preferredAddress(addresses: string[]): string | undefined {
  return addresses.find((a) => !a.includes(':')) ?? addresses[0];
}
