/**
 * The passwords terminals report for their users, at rest: sealed under the key ring, bound to
 * their terminal and PIN, never in clear; re-sealed under a new first key by `fpa:rotate-keys`,
 * and part of the key ring check's samples.
 */
import { describe, expect, test } from 'bun:test';
import { sealedTerminalPasswordSamples } from '../../../src/modules/devices';
import { openTerminalPassword, rotateTerminalPasswords, sealTerminalPassword } from '../../../src/modules/devices/user-passwords';
import { generateEncryptionKey, parseEncryptionKey, TemplateDecryptError, TemplateKeyRing } from '../../../src/platform/crypto/template-cipher';
import { SimulatedTerminal } from '../../../src/simulator/terminal';
import { startTestServer, TEST_KEY, tempDir } from '../../support/harness';
import { drain } from '../../support/terminals';

describe('sealed terminal user passwords', () => {
  test('open for their own terminal and PIN only, never in clear in the stored form', async () => {
    const ring = await TemplateKeyRing.fromKeys([generateEncryptionKey()]);
    const stored = await sealTerminalPassword(ring, 'dev-a', '2', '73052918');
    expect(stored).toStartWith('sealed1:');
    expect(stored).not.toContain('73052918');
    expect(await openTerminalPassword(ring, 'dev-a', '2', stored)).toBe('73052918');
    // Copied to another user of the terminal, or to the same PIN on another terminal: it does not open.
    await expect(openTerminalPassword(ring, 'dev-a', '3', stored)).rejects.toBeInstanceOf(TemplateDecryptError);
    await expect(openTerminalPassword(ring, 'dev-b', '2', stored)).rejects.toBeInstanceOf(TemplateDecryptError);
    await expect(openTerminalPassword(ring, 'dev-a', '2', '73052918')).rejects.toBeInstanceOf(TemplateDecryptError);
  });

  test('fpa:rotate-keys seals them again under the new first key; the key ring check samples them', async () => {
    const dir = tempDir();
    try {
      const first = await startTestServer({}, { dir: dir.dir });
      const t = new SimulatedTerminal({ url: first.url, sn: 'ROT1', existingUsers: [{ pin: '2', name: 'Admin', privilege: 14, password: '73052918' }] });
      await t.handshake();
      await t.postOptions();
      expect((await first.admin.post('/devices/ROT1/approve/')).status).toBe(200);
      await drain(t);
      await first.close();
      const newKey = generateEncryptionKey();
      const second = await startTestServer({ TEMPLATE_ENCRYPTION_KEYS: [newKey, TEST_KEY] }, { dir: dir.dir });
      try {
        const rt = second.fpa.service.runtime;
        const samples = await sealedTerminalPasswordSamples(rt.db, 3);
        expect(samples.map((s) => [s.what, s.keyId])).toEqual([['terminal user password', parseEncryptionKey(TEST_KEY).id]]);
        expect(await samples[0]!.opens(rt.keyRing)).toBe(true);
        expect(await samples[0]!.opens(await TemplateKeyRing.fromKeys([newKey]))).toBe(false);
        expect(await rotateTerminalPasswords(rt)).toEqual({ terminal_passwords: 1 });
        expect(await rotateTerminalPasswords(rt)).toEqual({ terminal_passwords: 0 });
        const row = (await rt.db.client.execute("SELECT device_id, password FROM fpa_device_users WHERE pin = '2'")).rows[0]!;
        const stored = String(row.password);
        expect(rt.keyRing.keyIdOf(new Uint8Array(Buffer.from(stored.slice('sealed1:'.length), 'base64url')))).toBe(parseEncryptionKey(newKey).id);
        expect(await openTerminalPassword(await TemplateKeyRing.fromKeys([newKey]), String(row.device_id), '2', stored)).toBe('73052918');
      } finally {
        await second.close();
      }
    } finally {
      dir.cleanup();
    }
  });
});
