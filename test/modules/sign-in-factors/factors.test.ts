/**
 * Second factors against the real database: a TOTP secret sealed at rest and counted only once
 * confirmed, codes never accepted twice, recovery codes single-use and replaced when regenerated,
 * the roles that require a factor, the pending sign-in that a code completes once (and whose
 * wrong codes reach the sign-in limit), and the reset that clears everything.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { FactorUser, FactorUserDirectory, PasswordCheck, SignInThrottle } from '../../../src/modules/sign-in-factors';
import { FactorSignIn, rotateTotpSecrets, SecondFactors } from '../../../src/modules/sign-in-factors';
import { totpCodeAt } from '../../../src/modules/sign-in-factors/totp';
import { generateEncryptionKey, parseEncryptionKey } from '../../../src/platform/crypto/template-cipher';
import { FpaError } from '../../../src/platform/errors';
import type { Runtime } from '../../../src/platform/runtime';
import { startTestServer, TEST_KEY, type TestServer, tempDir } from '../../support/harness';

let server: TestServer;
let runtime: Runtime;
let offset = 0;
const clock = { now: () => 1_800_000_000_000 + offset };
const ada: FactorUser = { id: 'usr_ada', username: 'ada', name: 'Ada', email: 'ada@example.com', role: 'admin', disabled: false, hasPassword: true };
const users: FactorUserDirectory = {
  byId: async (id) => (id === ada.id ? ada : null),
  byEmail: async (email) => (email.toLowerCase() === ada.email ? ada : null),
};
const RIGHT = 'the right password';
/** The users module checks passwords (users/sign-in.ts); here only Ada's one is right. */
const passwords: PasswordCheck = {
  confirm: async (_userId, password) => {
    if (password !== RIGHT) throw new FpaError('forbidden', 'the current password is wrong', { field: 'current_password' });
  },
};
const failures: string[] = [];
const throttle: SignInThrottle = {
  check: () => undefined,
  failed: (username, address) => {
    failures.push(`${username}@${address}`);
  },
};

beforeAll(async () => {
  server = await startTestServer({}, { clock });
  runtime = server.fpa.service.runtime;
});
afterAll(async () => {
  await server.close();
});

async function setUpTotp(factors: SecondFactors): Promise<{ secret: string; codes: string[] }> {
  const setup = await factors.totp.start(ada, 'attendance.test');
  offset += 30_000;
  const codes = await factors.totp.confirm(ada, totpCodeAt(setup.secret, clock.now()));
  return { secret: setup.secret, codes: codes ?? [] };
}

describe('TOTP and recovery codes', () => {
  const factors = () => new SecondFactors(runtime, passwords);
  let secret = '';
  let codes: string[] = [];

  test('a setup counts only once a first code confirms it; the secret is sealed at rest', async () => {
    const f = factors();
    const setup = await f.totp.start(ada, 'attendance.test');
    expect(setup.uri).toStartWith('otpauth://totp/');
    expect(setup.qrSvg).toStartWith('<svg');
    expect(await f.kind(ada.id)).toBe('none');
    const stored = await runtime.db.client.execute("SELECT secret FROM fpa_user_totp WHERE user_id = 'usr_ada'");
    const column = String(stored.rows[0]?.[0]);
    expect(column).toStartWith('sealed1:');
    expect(column).not.toContain(setup.secret);

    await expect(f.totp.confirm(ada, '000000')).rejects.toThrow(/not right/);
    const confirmed = await setUpTotp(f);
    secret = confirmed.secret;
    codes = confirmed.codes;
    expect(codes).toHaveLength(10);
    expect(await f.kind(ada.id)).toBe('totp');
    // A second setup while one is confirmed: refused until the first is removed.
    await expect(f.totp.start(ada, 'attendance.test')).rejects.toThrow(/already set up/);
    const hashes = await runtime.db.client.execute("SELECT code_hash FROM fpa_recovery_codes WHERE user_id = 'usr_ada'");
    expect(hashes.rows).toHaveLength(10);
    for (const code of codes) expect(hashes.rows.map((r) => String(r[0]))).not.toContain(code);
  });

  test('a code is accepted once: the confirming code and a later reuse are refused', async () => {
    const f = factors();
    // The code that confirmed the setup cannot sign in.
    expect(await f.totp.verify(ada.id, totpCodeAt(secret, clock.now()))).toBe(false);
    offset += 30_000;
    const code = totpCodeAt(secret, clock.now());
    expect(await f.totp.verify(ada.id, code)).toBe(true);
    expect(await f.totp.verify(ada.id, code)).toBe(false);
    offset += 10_000;
    expect(await f.totp.verify(ada.id, code)).toBe(false);
  });

  test('a recovery code works once; regenerating replaces them all', async () => {
    const f = factors();
    const [first, second] = codes as [string, string];
    expect(await f.totp.spendRecoveryCode(ada, first.toLowerCase())).toBe(true);
    expect(await f.totp.spendRecoveryCode(ada, first)).toBe(false);
    expect(await f.totp.recoveryCodesLeft(ada.id)).toBe(9);
    const fresh = await f.totp.regenerateRecoveryCodes(ada);
    expect(fresh).toHaveLength(10);
    expect(await f.totp.spendRecoveryCode(ada, second)).toBe(false);
    expect(await f.totp.spendRecoveryCode(ada, fresh[0] as string)).toBe(true);
    codes = fresh.slice(1);
  });
});

describe('the sign-in step', () => {
  test('a pending sign-in grants nothing until a right code; a wrong one counts toward the limit', async () => {
    const factors = new SecondFactors(runtime, passwords);
    const signIn = new FactorSignIn(factors, users, throttle);
    const pending = await signIn.afterFirstFactor(ada, 'password');
    expect(pending?.kind).toBe('totp');
    const token = pending?.token as string;
    expect(await signIn.pending(token)).toMatchObject({ first: 'password', methods: ['totp', 'recovery_code'] });
    await expect(signIn.withCode(token, { code: '123456' }, '10.0.0.9')).rejects.toThrow(/not right/);
    expect(failures).toEqual(['ada@10.0.0.9']);
    // A recovery code completes it, once.
    const setup = await new SecondFactors(runtime, passwords).totp.regenerateRecoveryCodes(ada);
    const completed = await signIn.withCode(token, { recoveryCode: setup[0] as string }, '10.0.0.9');
    expect({ id: completed.user.id, first: completed.first }).toEqual({ id: ada.id, first: 'password' });
    await expect(signIn.withCode(token, { recoveryCode: setup[1] as string }, '10.0.0.9')).rejects.toThrow(/expired/);
    expect(await signIn.pending(token)).toBeNull();
  });

  test('the pending state expires after five minutes', async () => {
    const signIn = new FactorSignIn(new SecondFactors(runtime, passwords), users, throttle);
    const pending = await signIn.afterFirstFactor(ada, 'sso');
    expect((await signIn.pending(pending?.token as string))?.first).toBe('sso');
    offset += 5 * 60_000 + 1;
    expect(await signIn.pending(pending?.token as string)).toBeNull();
  });
});

describe('roles that require a factor, and the reset', () => {
  test('an owner chooses the roles; the last factor of such a user cannot be removed; a reset clears all', async () => {
    const factors = new SecondFactors(runtime, passwords);
    expect(await factors.setRequiredRoles(['admin', 'owner'], 'root')).toEqual(['owner', 'admin']);
    await expect(factors.setRequiredRoles(['chief'], 'root')).rejects.toThrow(/not a role/);
    expect(await factors.mustEnroll(ada)).toBe(false);
    await expect(factors.removeTotp(ada, RIGHT)).rejects.toThrow(/requires a second factor/);
    await factors.clear(ada.id, 'root');
    expect(await factors.kind(ada.id)).toBe('none');
    expect(await factors.totp.recoveryCodesLeft(ada.id)).toBe(0);
    expect(await factors.mustEnroll(ada)).toBe(true);
    await factors.setRequiredRoles([], 'root');
    expect(await factors.mustEnroll(ada)).toBe(false);
  });
});

describe('key rotation', () => {
  test('fpa:rotate-keys seals TOTP secrets again under the new first key; the codes still work', async () => {
    const dir = tempDir();
    try {
      const first = await startTestServer({}, { dir: dir.dir, clock });
      const setup = await new SecondFactors(first.fpa.service.runtime, passwords).totp.start(ada, 'attendance.test');
      await first.close();
      const newKey = generateEncryptionKey();
      const second = await startTestServer({ TEMPLATE_ENCRYPTION_KEYS: [newKey, TEST_KEY] }, { dir: dir.dir, clock });
      try {
        const rt = second.fpa.service.runtime;
        expect(await rotateTotpSecrets(rt)).toEqual({ totp_secrets: 1 });
        expect(await rotateTotpSecrets(rt)).toEqual({ totp_secrets: 0 });
        const stored = String((await rt.db.client.execute("SELECT secret FROM fpa_user_totp WHERE user_id = 'usr_ada'")).rows[0]?.[0]);
        expect(rt.keyRing.keyIdOf(new Uint8Array(Buffer.from(stored.slice('sealed1:'.length), 'base64url')))).toBe(parseEncryptionKey(newKey).id);
        offset += 30_000;
        expect(await new SecondFactors(rt, passwords).totp.confirm(ada, totpCodeAt(setup.secret, clock.now()))).toHaveLength(10);
      } finally {
        await second.close();
      }
    } finally {
      dir.cleanup();
    }
  });
});
