/**
 * Passkeys (WebAuthn) through @simplewebauthn/server: registration by a signed-in user, and the
 * check at sign-in. The relying party is the console's host (RequestOrigin: CONSOLE_URL, or the
 * request's host and scheme as CONSOLE_TRUST_PROXY lets the console decide HTTPS). No
 * attestation is asked (`none`): any authenticator the person owns is fine, and nothing about it
 * is kept but its credential id, public key, counter and transports.
 */
import {
  type AuthenticationResponseJSON,
  type AuthenticatorTransport,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { and, eq } from 'drizzle-orm';
import type { Tx } from '../../platform/db/client';
import { FpaError } from '../../platform/errors';
import { audit } from '../audit';
import type { FactorUser, RequestOrigin } from './ports';
import type { FactorRuntime } from './runtime';
import type { SignInStates } from './states';
import { passkeys } from './tables';

/** How long the browser and the person have to answer a WebAuthn prompt. */
const CEREMONY_MS = 5 * 60_000;

export interface PasskeySummary {
  id: string;
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
  backedUp: boolean;
}

const transportsOf = (list: string[]) => list as AuthenticatorTransport[];

export class PasskeyFactor {
  constructor(
    private readonly ctx: FactorRuntime,
    private readonly states: SignInStates,
  ) {}

  async list(userId: string): Promise<PasskeySummary[]> {
    const rows = await this.ctx.db.orm.select().from(passkeys).where(eq(passkeys.userId, userId)).orderBy(passkeys.createdAt);
    return rows.map((r) => ({ id: r.id, name: r.name, createdAt: r.createdAt, lastUsedAt: r.lastUsedAt, backedUp: r.backedUp }));
  }

  /** The options `navigator.credentials.create()` needs; the challenge is kept for `register`. */
  async registrationOptions(user: FactorUser, origin: RequestOrigin): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const existing = await this.ctx.db.orm.select().from(passkeys).where(eq(passkeys.userId, user.id));
    const options = await generateRegistrationOptions({
      rpName: 'Attendance console',
      rpID: origin.rpId,
      userName: user.username,
      userDisplayName: user.name,
      userID: new TextEncoder().encode(user.id),
      attestationType: 'none',
      timeout: CEREMONY_MS,
      excludeCredentials: existing.map((c) => ({ id: c.id, transports: c.transports })),
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
    });
    await this.states.putPasskeySetup(user.id, options.challenge, CEREMONY_MS);
    return options;
  }

  /** Verifies the browser's answer to `registrationOptions` and keeps the passkey. */
  async register(user: FactorUser, response: RegistrationResponseJSON, name: string, origin: RequestOrigin): Promise<PasskeySummary> {
    const challenge = await this.states.takePasskeySetup(user.id);
    if (!challenge) throw new FpaError('conflict', 'the passkey prompt has expired: start again', {});
    let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
    try {
      verified = await verifyRegistrationResponse({
        response,
        expectedChallenge: challenge,
        expectedOrigin: origin.origin,
        expectedRPID: origin.rpId,
        requireUserVerification: false,
      });
    } catch (error) {
      throw new FpaError('validation_error', `the passkey could not be verified: ${error instanceof Error ? error.message : 'unknown error'}`, {});
    }
    if (!verified.verified) throw new FpaError('validation_error', 'the passkey could not be verified', {});
    const info = verified.registrationInfo;
    const now = this.ctx.clock.now();
    const row = {
      id: info.credential.id,
      userId: user.id,
      name: name.trim().slice(0, 80) || 'Passkey',
      publicKey: Buffer.from(info.credential.publicKey),
      counter: info.credential.counter,
      transports: info.credential.transports ?? [],
      backedUp: info.credentialBackedUp,
      createdAt: now,
    };
    await this.ctx.db.write(async ({ tx }) => {
      const added = await tx.insert(passkeys).values(row).onConflictDoNothing().returning({ id: passkeys.id });
      if (added.length === 0) throw new FpaError('conflict', 'this passkey is already registered', {});
      await audit(tx, now, {
        actor: user.username,
        actorKind: 'user',
        actorId: user.id,
        action: 'user.passkey_added',
        targetType: 'user',
        targetId: user.id,
        details: { passkey: row.name },
      });
    });
    return { id: row.id, name: row.name, createdAt: now, lastUsedAt: null, backedUp: row.backedUp };
  }

  /** Deletes one of the user's passkeys, in the caller's transaction: its name, or null when the user has no such passkey. */
  async deleteIn(tx: Tx, userId: string, id: string): Promise<string | null> {
    const gone = await tx
      .delete(passkeys)
      .where(and(eq(passkeys.id, id), eq(passkeys.userId, userId)))
      .returning({ name: passkeys.name });
    return gone[0]?.name ?? null;
  }

  /** Options for `navigator.credentials.get()` at sign-in, limited to the user's passkeys. */
  async authenticationOptions(userId: string, origin: RequestOrigin): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const own = await this.ctx.db.orm.select().from(passkeys).where(eq(passkeys.userId, userId));
    if (own.length === 0) throw new FpaError('conflict', 'you have no passkey: use your authenticator app or a recovery code', {});
    return generateAuthenticationOptions({
      rpID: origin.rpId,
      timeout: CEREMONY_MS,
      userVerification: 'preferred',
      allowCredentials: own.map((c) => ({ id: c.id, transports: transportsOf(c.transports) })),
    });
  }

  /** Whether the browser's answer is a signature by one of the user's passkeys over `challenge`. */
  async verify(userId: string, response: AuthenticationResponseJSON, challenge: string, origin: RequestOrigin): Promise<boolean> {
    const [stored] = await this.ctx.db.orm
      .select()
      .from(passkeys)
      .where(and(eq(passkeys.id, String(response?.id ?? '')), eq(passkeys.userId, userId)))
      .limit(1);
    if (!stored) return false;
    let result: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
    try {
      result = await verifyAuthenticationResponse({
        response,
        expectedChallenge: challenge,
        expectedOrigin: origin.origin,
        expectedRPID: origin.rpId,
        credential: { id: stored.id, publicKey: new Uint8Array(stored.publicKey), counter: stored.counter, transports: transportsOf(stored.transports) },
        requireUserVerification: false,
      });
    } catch {
      // A bad signature, another origin, a counter gone backwards (a cloned authenticator).
      return false;
    }
    if (!result.verified) return false;
    const now = this.ctx.clock.now();
    await this.ctx.db.write(async ({ tx }) => {
      await tx.update(passkeys).set({ counter: result.authenticationInfo.newCounter, lastUsedAt: now }).where(eq(passkeys.id, stored.id));
    });
    return true;
  }
}
