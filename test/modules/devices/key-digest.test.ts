/** Communication key digests (devices/key-digest.ts): HMAC under a secret from the key ring, salted by terminal. */
import { describe, expect, test } from 'bun:test';
import { COMMUNICATION_KEY_PURPOSE, KeyDigests as Digests, isLegacy } from '../../../src/modules/devices/key-digest';
import { DigestSecrets } from '../../../src/platform/crypto/digest-secrets';
import { generateEncryptionKey } from '../../../src/platform/crypto/template-cipher';

const OLD = generateEncryptionKey();
const NEW = generateEncryptionKey();
const KEY = '123456789012';

/** The digests of a ring holding these template keys. */
class KeyDigests extends Digests {
  constructor(keys: string[]) {
    super(new DigestSecrets(keys, COMMUNICATION_KEY_PURPOSE));
  }
}

describe('communication key digests', () => {
  test('verify the key they were made from, for that terminal only; no trace of the digits', () => {
    const digests = new KeyDigests([OLD]);
    const stored = digests.digest('device-a', KEY);
    expect(stored).toMatch(new RegExp(`^hmac1:${OLD.split(':')[1]}:[0-9a-f]{64}$`));
    expect(digests.verify(stored, 'device-a', KEY)).toBe(true);
    expect(digests.verify(stored, 'device-a', '123456789013')).toBe(false);
    expect(digests.verify(stored, 'device-b', KEY)).toBe(false);
    // Salted: the same key on two terminals gives two digests; neither is the plain SHA-256.
    expect(digests.digest('device-b', KEY)).not.toBe(stored);
    expect(stored).not.toContain(new Bun.CryptoHasher('sha256').update(KEY).digest('hex'));
    expect(isLegacy(stored)).toBe(false);
  });

  test('without the server secret a digest is worthless: another ring cannot verify it', () => {
    const stored = new KeyDigests([OLD]).digest('device-a', KEY);
    expect(new KeyDigests([NEW]).verify(stored, 'device-a', KEY)).toBe(false);
    expect(new KeyDigests([NEW]).verifiable(stored)).toBe(false);
  });

  test('after the ring rotates, digests made under the old key still verify while it stays in the ring; new ones use the first key', () => {
    const stored = new KeyDigests([OLD]).digest('device-a', KEY);
    const rotated = new KeyDigests([NEW, OLD]);
    expect(rotated.verify(stored, 'device-a', KEY)).toBe(true);
    expect(rotated.digest('device-a', KEY)).toStartWith(`hmac1:${NEW.split(':')[1]}:`);
  });

  test('a legacy SHA-256 digest of an earlier release is still verified, and reported legacy', () => {
    const legacy = new Bun.CryptoHasher('sha256').update(KEY).digest('hex');
    const digests = new KeyDigests([NEW]);
    expect(isLegacy(legacy)).toBe(true);
    expect(digests.verify(legacy, 'any', KEY)).toBe(true);
    expect(digests.verify(legacy, 'any', '000000000000')).toBe(false);
    expect(digests.verify('hmac1:zzzzzzzz:00', 'any', KEY)).toBe(false);
    expect(digests.verify('garbage', 'any', KEY)).toBe(false);
  });
});
