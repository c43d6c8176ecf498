import { describe, expect, test } from 'bun:test';
import { Webhook } from 'standardwebhooks';
import { generateWebhookSecret, signWebhook, verifyWebhook } from '../../src/modules/webhooks/signing';
import { digestAgentKey, generateAgentKey, parseAgentKey, verifyAgentKey } from '../../src/platform/crypto/agent-keys';
import { constantTimeEqual, randomToken } from '../../src/platform/crypto/secrets';
import {
  generateEncryptionKey,
  KeyFormatError,
  parseEncryptionKey,
  TemplateDecryptError,
  TemplateKeyRing,
  templateAadBytes,
} from '../../src/platform/crypto/template-cipher';
import { decodeCursor, encodeCursor } from '../../src/platform/http/cursor';

const aad = { enrolleeId: 'emp-42', fingerIndex: 3, version: 1 };

function captureError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected an error');
}

async function captureAsyncError(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected an error');
}

describe('encryption keys', () => {
  test('generated keys parse, with a stable id derived from the key', () => {
    const text = generateEncryptionKey();
    expect(text).toMatch(/^fpa1:[0-9a-f]{8}:[A-Za-z0-9_-]{43}$/);
    const a = parseEncryptionKey(text);
    const b = parseEncryptionKey(`  ${text}\n`);
    expect(a.id).toBe(text.split(':')[1] ?? '');
    expect(a.raw.length).toBe(32);
    expect(b.id).toBe(a.id);
    expect([...b.raw]).toEqual([...a.raw]);
    expect(generateEncryptionKey()).not.toBe(text);
  });

  test('malformed keys throw KeyFormatError without echoing key material', () => {
    const good = generateEncryptionKey();
    const [, id, material] = good.split(':') as [string, string, string];
    const otherId = parseEncryptionKey(generateEncryptionKey()).id;
    const flipped = (material[0] === 'A' ? 'B' : 'A') + material.slice(1);
    const bad = [
      '',
      'garbage',
      `fpa2:${id}:${material}`,
      `fpa1:${id.toUpperCase() === id ? 'zzzzzzzz' : id.toUpperCase()}:${material}`,
      `fpa1:${id}:${material}=`,
      `fpa1:${id}:${material.slice(1)}`,
      `fpa1:${id}:${material}:extra`,
      `fpa1:${otherId === id ? '00000000' : otherId}:${material}`,
      `fpa1:${id}:${flipped}`,
      `fpa1:${id}:${material.slice(0, 42)}+`,
    ];
    for (const text of bad) {
      const err = captureError(() => parseEncryptionKey(text));
      expect(err).toBeInstanceOf(KeyFormatError);
      const message = (err as Error).message;
      expect(message.length).toBeGreaterThan(0);
      expect(message).not.toContain(material);
      expect(message).not.toContain(material.slice(0, 16));
    }
  });

  test('non-canonical base64url (stray trailing bits) is rejected', () => {
    const [, id, material] = generateEncryptionKey().split(':') as [string, string, string];
    // The 43rd char carries 4 data bits + 2 padding bits; set a padding bit.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(material[42] ?? 'A');
    const tweaked = material.slice(0, 42) + alphabet[last | 1];
    expect(() => parseEncryptionKey(`fpa1:${id}:${tweaked}`)).toThrow(KeyFormatError);
  });

  test('fromKeys rejects empty rings and bad keys with the key position', async () => {
    expect(await captureAsyncError(() => TemplateKeyRing.fromKeys([]))).toBeInstanceOf(KeyFormatError);
    const err = await captureAsyncError(() => TemplateKeyRing.fromKeys([generateEncryptionKey(), 'nope']));
    expect(err).toBeInstanceOf(KeyFormatError);
    expect((err as Error).message).toContain('key #2');
  });
});

describe('TemplateKeyRing', () => {
  test('round trip, envelope layout and key ids', async () => {
    const key = generateEncryptionKey();
    const ring = await TemplateKeyRing.fromKeys([key, key]);
    const id = parseEncryptionKey(key).id;
    expect(ring.primaryKeyId).toBe(id);
    expect(ring.keyIds).toEqual([id]);
    const plain = new Uint8Array([1, 2, 3, 4, 5]);
    const env = await ring.encrypt(plain, aad);
    expect(env[0]).toBe(1);
    expect(env[1]).toBe(8);
    expect(new TextDecoder().decode(env.subarray(2, 10))).toBe(id);
    expect(env.length).toBe(2 + 8 + 12 + plain.length + 16);
    expect(ring.keyIdOf(env)).toBe(id);
    expect(ring.needsReencryption(env)).toBe(false);
    expect([...(await ring.decrypt(env, aad))]).toEqual([...plain]);
    // Fresh nonce each time.
    const env2 = await ring.encrypt(plain, aad);
    expect(Buffer.from(env2).equals(Buffer.from(env))).toBe(false);
  });

  test('empty plaintext round trips', async () => {
    const ring = await TemplateKeyRing.fromKeys([generateEncryptionKey()]);
    const env = await ring.encrypt(new Uint8Array(0), aad);
    expect((await ring.decrypt(env, aad)).length).toBe(0);
  });

  test('purpose defaults to template and is bound', async () => {
    const ring = await TemplateKeyRing.fromKeys([generateEncryptionKey()]);
    const env = await ring.encrypt(new Uint8Array([9]), aad);
    expect([...(await ring.decrypt(env, { ...aad, purpose: 'template' }))]).toEqual([9]);
    expect(await captureAsyncError(() => ring.decrypt(env, { ...aad, purpose: 'staged' }))).toBeInstanceOf(TemplateDecryptError);
    expect(new TextDecoder().decode(templateAadBytes({ ...aad, purpose: 'staged' }))).toBe('fpa-template-v1|staged|emp-42|3|1');
  });

  test('decrypt failures are generic TemplateDecryptErrors', async () => {
    const ring = await TemplateKeyRing.fromKeys([generateEncryptionKey()]);
    const other = await TemplateKeyRing.fromKeys([generateEncryptionKey()]);
    const env = await ring.encrypt(new Uint8Array([1, 2, 3]), aad);
    const cases: Uint8Array[] = [
      new Uint8Array(0),
      new Uint8Array([1]),
      env.subarray(0, env.length - 1),
      env.subarray(0, 2 + 8 + 12 + 15),
      Uint8Array.from([2, ...env.subarray(1)]),
      Uint8Array.from([1, 0, ...env.subarray(2)]),
      Uint8Array.from([1, 200, ...env.subarray(2)]),
    ];
    const messages = new Set<string>();
    for (const bad of cases) {
      const err = await captureAsyncError(() => ring.decrypt(bad, aad));
      expect(err).toBeInstanceOf(TemplateDecryptError);
      messages.add((err as Error).message);
    }
    const unknown = await captureAsyncError(() => other.decrypt(env, aad));
    expect(unknown).toBeInstanceOf(TemplateDecryptError);
    messages.add((unknown as Error).message);
    const wrongAad = await captureAsyncError(() => ring.decrypt(env, { ...aad, version: 2 }));
    expect(wrongAad).toBeInstanceOf(TemplateDecryptError);
    messages.add((wrongAad as Error).message);
    expect(messages.size).toBe(1);
    expect(() => ring.keyIdOf(new Uint8Array([1]))).toThrow(TemplateDecryptError);
  });

  test('invalid AAD is a TypeError', async () => {
    const ring = await TemplateKeyRing.fromKeys([generateEncryptionKey()]);
    const p = new Uint8Array([1]);
    for (const bad of [
      { ...aad, enrolleeId: '' },
      { ...aad, enrolleeId: 'a\uD800b' },
      { ...aad, fingerIndex: -1 },
      { ...aad, fingerIndex: 1.5 },
      { ...aad, version: Number.NaN },
    ]) {
      expect(await captureAsyncError(() => ring.encrypt(p, bad))).toBeInstanceOf(TypeError);
    }
  });

  test('the ring does not expose key material when inspected', async () => {
    const key = generateEncryptionKey();
    const ring = await TemplateKeyRing.fromKeys([key]);
    const material = key.split(':')[2] ?? '';
    expect(Bun.inspect(ring)).not.toContain(material);
    expect(JSON.stringify(ring)).not.toContain(material);
  });
});

describe('agent keys', () => {
  test('generate, parse, digest, verify', () => {
    const { key, prefix, digest } = generateAgentKey();
    expect(key).toMatch(/^fpa_[a-z2-7]{8}_[A-Za-z0-9_-]{43}$/);
    expect(key.startsWith(`fpa_${prefix}_`)).toBe(true);
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(digestAgentKey(key)).toBe(digest);
    expect(parseAgentKey(key)).toEqual({ prefix });
    expect(verifyAgentKey(key, digest)).toBe(true);
    expect(verifyAgentKey(key, digest.toUpperCase())).toBe(true);
    const other = generateAgentKey();
    expect(verifyAgentKey(other.key, digest)).toBe(false);
    expect(verifyAgentKey(key, other.digest)).toBe(false);
    expect(verifyAgentKey(key, '')).toBe(false);
    expect(verifyAgentKey(key, digest.slice(1))).toBe(false);
    expect(verifyAgentKey(key, `${digest.slice(0, 63)}g`)).toBe(false);
    expect(verifyAgentKey(`${key}x`, digest)).toBe(false);
  });

  test('parseAgentKey rejects malformed keys', () => {
    const { key } = generateAgentKey();
    for (const bad of ['', 'fpa_', key.slice(0, -1), `${key}A`, key.replace('fpa_', 'fpb_'), ` ${key}`, key.toUpperCase()]) {
      expect(parseAgentKey(bad)).toBeNull();
    }
  });
});

describe('secrets', () => {
  test('randomToken', () => {
    expect(randomToken()).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(randomToken(16)).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(randomToken()).not.toBe(randomToken());
    expect(() => randomToken(0)).toThrow(RangeError);
    expect(() => randomToken(1.5)).toThrow(RangeError);
  });

  test('constantTimeEqual', () => {
    expect(constantTimeEqual('abc', 'abc')).toBe(true);
    expect(constantTimeEqual('', '')).toBe(true);
    expect(constantTimeEqual('abc', 'abd')).toBe(false);
    expect(constantTimeEqual('abc', 'abcd')).toBe(false);
    expect(constantTimeEqual('é', 'e\u0301')).toBe(false);
  });
});

describe('webhook signing', () => {
  test('secret format', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(secret.slice(6), 'base64').length).toBe(24);
  });

  test('sign/verify with our helper and with the package', () => {
    const secret = generateWebhookSecret();
    const body = JSON.stringify({ type: 'attendance.punch', data: { id: 1 } });
    const timestamp = new Date();
    const headers = signWebhook(secret, { id: 'msg_1', timestamp, body });
    expect(Object.keys(headers).sort()).toEqual(['webhook-id', 'webhook-signature', 'webhook-timestamp']);
    expect(headers['webhook-timestamp']).toBe(String(Math.floor(timestamp.getTime() / 1000)));
    expect(headers['webhook-signature']).toMatch(/^v1,/);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(verifyWebhook(secret, headers, body)).toBe(true);
    expect(verifyWebhook(secret, new Headers(headers), body)).toBe(true);
    const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    expect(verifyWebhook(secret, upper, body)).toBe(true);
    expect(verifyWebhook(generateWebhookSecret(), headers, body)).toBe(false);
    expect(verifyWebhook(secret, headers, `${body} `)).toBe(false);
    expect(verifyWebhook(secret, { ...headers, 'webhook-signature': undefined }, body)).toBe(false);
    expect(verifyWebhook('whsec_', headers, body)).toBe(false);
  });

  test('non-JSON bodies verify', () => {
    const secret = generateWebhookSecret();
    const headers = signWebhook(secret, { id: 'm', timestamp: new Date(), body: 'not json' });
    expect(verifyWebhook(secret, headers, 'not json')).toBe(true);
  });

  test('stale timestamps are rejected by the package tolerance', () => {
    const secret = generateWebhookSecret();
    const headers = signWebhook(secret, { id: 'm', timestamp: new Date(Date.now() - 10 * 60_000), body: '{}' });
    expect(verifyWebhook(secret, headers, '{}')).toBe(false);
  });

  test('invalid inputs', () => {
    const secret = generateWebhookSecret();
    const ts = new Date();
    expect(() => signWebhook(secret, { id: '', timestamp: ts, body: '' })).toThrow(TypeError);
    expect(() => signWebhook(secret, { id: 'a.b', timestamp: ts, body: '' })).toThrow(TypeError);
    expect(() => signWebhook(secret, { id: 'a b', timestamp: ts, body: '' })).toThrow(TypeError);
    expect(() => signWebhook(secret, { id: 'a', timestamp: new Date(Number.NaN), body: '' })).toThrow(TypeError);
    for (const badSecret of ['whsec_', 'whsec_%%supersecretvalue%%']) {
      const err = captureError(() => signWebhook(badSecret, { id: 'a', timestamp: ts, body: '' }));
      expect((err as Error).message).not.toContain('supersecret');
    }
  });
});

describe('cursor', () => {
  test('round trip', () => {
    const values = ['2026-01-01T00:00:00Z', 42, 'a|b', -1.5, ''];
    const token = encodeCursor(values);
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(token)).toEqual(values);
    expect(decodeCursor(encodeCursor([]))).toEqual([]);
  });

  test('rejects malformed input', () => {
    const enc = (s: string) => Buffer.from(s).toString('base64url');
    for (const bad of [
      '',
      '!!!',
      'a',
      enc('{}'),
      enc('[null]'),
      enc('[true]'),
      enc('[[1]]'),
      enc('[1'),
      enc('[1 ]'),
      enc('[1.0]'),
      enc('[-0]'),
      enc('["\\u0061"]'),
      enc('"x"'),
      Buffer.from([0x5b, 0xff, 0x5d]).toString('base64url'),
      'x'.repeat(10_000),
    ]) {
      expect(decodeCursor(bad)).toBeNull();
    }
    expect(() => encodeCursor([Number.NaN])).toThrow(TypeError);
    expect(() => encodeCursor([Number.POSITIVE_INFINITY])).toThrow(TypeError);
  });
});
