/**
 * Standard Webhooks (https://www.standardwebhooks.com) signing, delegated to
 * the `standardwebhooks` package: HMAC-SHA256 over `<id>.<unix seconds>.<body>`
 * with the base64 secret after `whsec_`.
 */
import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

export interface WebhookMessage {
  /** Unique message id; reused across retries so receivers can de-duplicate. */
  id: string;
  timestamp: Date;
  /** The exact body bytes that will be sent, as a string. */
  body: string;
}

export type WebhookHeaders = {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
};

/**
 * Message ids: printable ASCII without spaces (they travel in a header) and
 * without ".", the field separator of the signed content, so that no two
 * (id, timestamp, body) triples sign the same string.
 */
const MESSAGE_ID_RE = /^[\x21-\x2d\x2f-\x7e]{1,256}$/;

/** A new secret: `whsec_` + base64 of 24 random bytes. */
export function generateWebhookSecret(): string {
  return `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString('base64')}`;
}

function webhookFor(secret: string): Webhook {
  try {
    return new Webhook(secret);
  } catch {
    // The package's messages do not echo the secret, but stay generic anyway.
    throw new Error('invalid webhook secret (expected whsec_<base64>)');
  }
}

/**
 * Signs messages with one secret, decoding it once: the worker keeps one per endpoint rather
 * than decoding the secret for every message. The HMAC is the runtime's own (node:crypto):
 * the package's JavaScript SHA-256 costs five times as much per message, and the hot path
 * signs every delivery. The result is the package's byte for byte (test/modules/webhooks).
 */
export class WebhookSigner {
  private readonly key: Buffer;

  constructor(secret: string) {
    // The package checks the secret (and throws a generic error for a bad one).
    webhookFor(secret);
    this.key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  }

  /** Returns the three Standard Webhooks headers for a message. */
  sign(message: WebhookMessage): WebhookHeaders {
    checkMessage(message);
    const seconds = Math.floor(message.timestamp.getTime() / 1000);
    const signature = createHmac('sha256', this.key).update(`${message.id}.${seconds}.${message.body}`).digest('base64');
    return { 'webhook-id': message.id, 'webhook-timestamp': String(seconds), 'webhook-signature': `v1,${signature}` };
  }
}

const SECRET_PREFIX = 'whsec_';

/** Returns the three Standard Webhooks headers for a message. */
export function signWebhook(secret: string, message: WebhookMessage): WebhookHeaders {
  return signWith(webhookFor(secret), message);
}

function checkMessage(message: WebhookMessage): void {
  if (typeof message.id !== 'string' || !MESSAGE_ID_RE.test(message.id)) {
    throw new TypeError("webhook message id must be 1-256 printable ASCII characters without spaces or '.'");
  }
  if (!(message.timestamp instanceof Date) || Number.isNaN(message.timestamp.getTime())) {
    throw new TypeError('webhook timestamp must be a valid Date');
  }
  if (typeof message.body !== 'string') throw new TypeError('webhook body must be a string');
}

function signWith(webhook: Webhook, message: WebhookMessage): WebhookHeaders {
  checkMessage(message);
  const signature = webhook.sign(message.id, message.timestamp, message.body);
  return {
    'webhook-id': message.id,
    'webhook-timestamp': String(Math.floor(message.timestamp.getTime() / 1000)),
    'webhook-signature': signature,
  };
}

/**
 * Verifies a received webhook with the package's `Webhook.verify` (which also
 * rejects timestamps more than 5 minutes from now). Header names are
 * case-insensitive. Returns false on any failure, including a bad secret.
 */
export function verifyWebhook(secret: string, headers: Headers | Record<string, string | undefined>, body: string): boolean {
  const plain: Record<string, string> = {};
  if (headers instanceof Headers) {
    headers.forEach((value, name) => {
      plain[name.toLowerCase()] = value;
    });
  } else {
    for (const [name, value] of Object.entries(headers)) {
      if (typeof value === 'string') plain[name.toLowerCase()] = value;
    }
  }
  try {
    webhookFor(secret).verify(body, plain, { jsonParse: false });
    return true;
  } catch {
    return false;
  }
}
