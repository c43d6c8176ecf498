import { beforeAll, describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { generateWebhookSecret, signWebhook, verifyWebhook } from '../../src/modules/webhooks/signing';
import { generateEncryptionKey, type TemplateAad, TemplateDecryptError, TemplateKeyRing } from '../../src/platform/crypto/template-cipher';
import { decodeCursor, encodeCursor } from '../../src/platform/http/cursor';

const RUNS = 150;

const aadArb: fc.Arbitrary<TemplateAad> = fc.record({
  enrolleeId: fc.string({ minLength: 1, maxLength: 40, unit: 'binary' }),
  fingerIndex: fc.integer({ min: 0, max: 9 }),
  version: fc.integer({ min: 0, max: 1_000_000 }),
  purpose: fc.constantFrom<'template' | 'staged'>('template', 'staged'),
});

const plainArb = fc.uint8Array({ minLength: 0, maxLength: 512 });

async function decrypts(ring: TemplateKeyRing, env: Uint8Array, aad: TemplateAad): Promise<boolean> {
  try {
    await ring.decrypt(env, aad);
    return true;
  } catch (err) {
    if (err instanceof TemplateDecryptError) return false;
    throw err;
  }
}

let ring: TemplateKeyRing;
let oldKey: string;
let newKey: string;

beforeAll(async () => {
  oldKey = generateEncryptionKey();
  newKey = generateEncryptionKey();
  ring = await TemplateKeyRing.fromKeys([oldKey]);
});

describe('template envelope properties', () => {
  test('round trip for any bytes and AAD', async () => {
    await fc.assert(
      fc.asyncProperty(plainArb, aadArb, async (plain, aad) => {
        const env = await ring.encrypt(plain, aad);
        const out = await ring.decrypt(env, aad);
        expect(Buffer.from(out).equals(Buffer.from(plain))).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  test('flipping any single bit makes decryption fail', async () => {
    await fc.assert(
      fc.asyncProperty(plainArb, aadArb, fc.nat(), fc.integer({ min: 0, max: 7 }), async (plain, aad, pos, bit) => {
        const env = await ring.encrypt(plain, aad);
        const tampered = new Uint8Array(env);
        const i = pos % tampered.length;
        tampered[i] = (tampered[i] ?? 0) ^ (1 << bit);
        expect(await decrypts(ring, tampered, aad)).toBe(false);
      }),
      { numRuns: RUNS },
    );
  });

  test('truncating the envelope makes decryption fail', async () => {
    await fc.assert(
      fc.asyncProperty(plainArb, aadArb, fc.nat(), async (plain, aad, cut) => {
        const env = await ring.encrypt(plain, aad);
        expect(await decrypts(ring, env.subarray(0, cut % env.length), aad)).toBe(false);
      }),
      { numRuns: RUNS },
    );
  });

  test('any different AAD makes decryption fail', async () => {
    await fc.assert(
      fc.asyncProperty(plainArb, aadArb, aadArb, async (plain, a, b) => {
        fc.pre(a.enrolleeId !== b.enrolleeId || a.fingerIndex !== b.fingerIndex || a.version !== b.version || a.purpose !== b.purpose);
        const env = await ring.encrypt(plain, a);
        expect(await decrypts(ring, env, b)).toBe(false);
      }),
      { numRuns: RUNS },
    );
  });

  test('changing a single AAD field makes decryption fail', async () => {
    const field = fc.constantFrom('enrolleeId', 'fingerIndex', 'version', 'purpose');
    await fc.assert(
      fc.asyncProperty(plainArb, aadArb, field, async (plain, a, which) => {
        const env = await ring.encrypt(plain, a);
        const b: TemplateAad = { ...a };
        if (which === 'enrolleeId') b.enrolleeId = `${a.enrolleeId}x`;
        if (which === 'fingerIndex') b.fingerIndex = a.fingerIndex + 1;
        if (which === 'version') b.version = a.version + 1;
        if (which === 'purpose') b.purpose = a.purpose === 'staged' ? 'template' : 'staged';
        expect(await decrypts(ring, env, b)).toBe(false);
      }),
      { numRuns: RUNS },
    );
  });

  test('key rotation: old envelopes decrypt with [new, old] and need re-encryption', async () => {
    const rotated = await TemplateKeyRing.fromKeys([newKey, oldKey]);
    const newOnly = await TemplateKeyRing.fromKeys([newKey]);
    await fc.assert(
      fc.asyncProperty(plainArb, aadArb, async (plain, aad) => {
        const oldEnv = await ring.encrypt(plain, aad);
        expect(rotated.keyIdOf(oldEnv)).toBe(ring.primaryKeyId);
        expect(rotated.needsReencryption(oldEnv)).toBe(true);
        const out = await rotated.decrypt(oldEnv, aad);
        expect(Buffer.from(out).equals(Buffer.from(plain))).toBe(true);
        expect(await decrypts(newOnly, oldEnv, aad)).toBe(false);

        const newEnv = await rotated.encrypt(out, aad);
        expect(rotated.needsReencryption(newEnv)).toBe(false);
        expect(newOnly.needsReencryption(newEnv)).toBe(false);
        expect(ring.needsReencryption(newEnv)).toBe(true);
        expect(await decrypts(ring, newEnv, aad)).toBe(false);
        expect(Buffer.from(await newOnly.decrypt(newEnv, aad)).equals(Buffer.from(plain))).toBe(true);
      }),
      { numRuns: 100 },
    );
  });
});

describe('standard webhooks properties', () => {
  const secret = generateWebhookSecret();
  const idArb = fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/);
  const bodyArb = fc.string({ maxLength: 300, unit: 'binary' });
  // Within the package's 5-minute tolerance, leaving room to shift by 1s.
  const tsArb = fc.integer({ min: -240, max: 240 }).map((s) => new Date(Date.now() + s * 1000));

  test('signatures verify with Webhook.verify and verifyWebhook', () => {
    fc.assert(
      fc.property(idArb, tsArb, bodyArb, (id, timestamp, body) => {
        const headers = signWebhook(secret, { id, timestamp, body });
        new Webhook(secret).verify(body, headers, { jsonParse: false });
        expect(verifyWebhook(secret, headers, body)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  test('changing the body, id or timestamp breaks the signature', () => {
    fc.assert(
      fc.property(idArb, tsArb, bodyArb, bodyArb, idArb, fc.integer({ min: 1, max: 30 }), (id, timestamp, body, body2, id2, shift) => {
        const headers = signWebhook(secret, { id, timestamp, body });
        const wh = new Webhook(secret);
        if (body2 !== body) {
          expect(() => wh.verify(body2, headers, { jsonParse: false })).toThrow();
          expect(verifyWebhook(secret, headers, body2)).toBe(false);
        }
        if (id2 !== id) {
          expect(verifyWebhook(secret, { ...headers, 'webhook-id': id2 }, body)).toBe(false);
        }
        const ts = Number(headers['webhook-timestamp']);
        for (const changed of [ts + shift, ts - shift]) {
          const h = { ...headers, 'webhook-timestamp': String(changed) };
          expect(() => wh.verify(body, h, { jsonParse: false })).toThrow();
          expect(verifyWebhook(secret, h, body)).toBe(false);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('cursor properties', () => {
  const valueArb = fc.oneof(
    fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) }),
    fc.string({ unit: 'binary' }),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0)),
  );

  test('round trip', () => {
    fc.assert(
      fc.property(fc.array(valueArb, { maxLength: 6 }), (values) => {
        expect(decodeCursor(encodeCursor(values))).toEqual(values);
      }),
      { numRuns: 500 },
    );
  });

  test('decodeCursor never throws and returns null or a valid array', () => {
    const tokenArb = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.string({ unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=+/') }),
      fc.json().map((j) => Buffer.from(j).toString('base64url')),
      fc.uint8Array().map((b) => Buffer.from(b).toString('base64url')),
    );
    fc.assert(
      fc.property(tokenArb, (token) => {
        const out = decodeCursor(token);
        if (out !== null) {
          expect(Array.isArray(out)).toBe(true);
          for (const v of out) expect(typeof v === 'string' || Number.isFinite(v)).toBe(true);
          // Anything accepted is the canonical encoding of what it decodes to.
          expect(encodeCursor(out)).toBe(token);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
