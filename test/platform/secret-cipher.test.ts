/**
 * Secrets other than templates under the template key ring (webhook signing secrets): bound to
 * their row by the AAD, apart from templates, opened by any key of the ring, rotated by key id.
 */
import { describe, expect, test } from 'bun:test';
import { openWebhookSecret, sealWebhookSecret } from '../../src/modules/webhooks/secrets';
import { generateWebhookSecret } from '../../src/modules/webhooks/signing';
import { generateEncryptionKey, secretAadBytes, TemplateDecryptError, TemplateKeyRing } from '../../src/platform/crypto/template-cipher';

/** One character in the middle changed (the last one may only carry padding bits). */
function tampered(stored: string): string {
  const at = 20;
  return stored.slice(0, at) + (stored[at] === 'A' ? 'B' : 'A') + stored.slice(at + 1);
}

describe('sealed webhook secrets', () => {
  test('open for their own endpoint only, never in clear in the stored form', async () => {
    const ring = await TemplateKeyRing.fromKeys([generateEncryptionKey()]);
    const secret = generateWebhookSecret();
    const stored = await sealWebhookSecret(ring, 'endpoint-a', secret);
    expect(stored).toStartWith('sealed1:');
    expect(stored).not.toContain(secret.slice('whsec_'.length));
    expect(await openWebhookSecret(ring, 'endpoint-a', stored)).toBe(secret);
    // Sealed twice, two different ciphertexts (a fresh nonce each time).
    expect(await sealWebhookSecret(ring, 'endpoint-a', secret)).not.toBe(stored);
    await expect(openWebhookSecret(ring, 'endpoint-b', stored)).rejects.toBeInstanceOf(TemplateDecryptError);
    await expect(openWebhookSecret(ring, 'endpoint-a', tampered(stored))).rejects.toBeInstanceOf(TemplateDecryptError);
    await expect(openWebhookSecret(ring, 'endpoint-a', 'garbage')).rejects.toBeInstanceOf(TemplateDecryptError);
  });

  test('a clear value of an earlier release reads as it is', async () => {
    const ring = await TemplateKeyRing.fromKeys([generateEncryptionKey()]);
    const clear = generateWebhookSecret();
    expect(await openWebhookSecret(ring, 'endpoint-a', clear)).toBe(clear);
  });

  test('any key of the ring opens it; a ring without its key does not', async () => {
    const oldKey = generateEncryptionKey();
    const newKey = generateEncryptionKey();
    const secret = generateWebhookSecret();
    const stored = await sealWebhookSecret(await TemplateKeyRing.fromKeys([oldKey]), 'e', secret);
    expect(await openWebhookSecret(await TemplateKeyRing.fromKeys([newKey, oldKey]), 'e', stored)).toBe(secret);
    await expect(openWebhookSecret(await TemplateKeyRing.fromKeys([newKey]), 'e', stored)).rejects.toBeInstanceOf(TemplateDecryptError);
  });

  test('a secret and a template never open as one another', async () => {
    const ring = await TemplateKeyRing.fromKeys([generateEncryptionKey()]);
    const plain = new TextEncoder().encode('same bytes');
    const asSecret = await ring.encryptSecret(plain, { purpose: 'webhook_secret', id: 'x' });
    await expect(ring.decrypt(asSecret, { enrolleeId: 'x', fingerIndex: 0, version: 0 })).rejects.toBeInstanceOf(TemplateDecryptError);
    const asTemplate = await ring.encrypt(plain, { enrolleeId: 'x', fingerIndex: 0, version: 0 });
    await expect(ring.decryptSecret(asTemplate, { purpose: 'webhook_secret', id: 'x' })).rejects.toBeInstanceOf(TemplateDecryptError);
    expect(new TextDecoder().decode(secretAadBytes({ purpose: 'webhook_secret', id: 'x|y' }))).toBe('fpa-secret-v1|webhook_secret|x|y');
    expect(() => secretAadBytes({ purpose: 'webhook_secret', id: '' })).toThrow(TypeError);
  });
});
