/**
 * The key that signs deletion proofs: an ES256 key pair the service generates the first time it
 * signs, kept in the database so every instance signs with the same key, its private half sealed
 * under the template key ring (AES-256-GCM, AAD `fpa-secret-v1|proof_signing_key|<kid>`). The
 * public keys are published as a JWKS (`/.well-known/fpa-proof-key.json`), retired ones included,
 * so a proof signed before a rotation still verifies.
 */
import { desc, eq, isNull } from 'drizzle-orm';
import { CompactSign, calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import { type SealedSample, sealedSample } from '../../platform/crypto/sealed-sample';
import type { Database } from '../../platform/db/client';
import type { ProofRuntime } from './runtime';
import { proofKeys } from './tables';

const SEALED_PREFIX = 'sealed1:';
const ALG = 'ES256';
const SIGNER_CACHE_MS = 10 * 60_000;
/** The JWS `typ` of a deletion proof. */
export const PROOF_TYP = 'fpa-deletion-proof+json';

interface Jwks {
  keys: JWK[];
}

const aadOf = (kid: string) => ({ purpose: 'proof_signing_key', id: kid }) as const;

export class ProofKeys {
  /** The signing key in memory, re-read now and then: another instance may have rotated it. */
  private signer: { kid: string; key: CryptoKey | Uint8Array; until: number } | null = null;

  constructor(private readonly ctx: ProofRuntime) {}

  /** Every public key, newest first: what a verifier needs (`/.well-known/fpa-proof-key.json`). */
  async jwks(): Promise<Jwks> {
    await this.current();
    const rows = await this.ctx.db.orm.select().from(proofKeys).orderBy(desc(proofKeys.createdAt));
    return { keys: rows.map((r) => ({ ...r.publicJwk, kid: r.kid, alg: ALG, use: 'sig' })) };
  }

  /** A compact JWS (ES256) of `payload` with the current key. */
  async sign(payload: unknown): Promise<string> {
    const { kid, key } = await this.current();
    return new CompactSign(new TextEncoder().encode(JSON.stringify(payload))).setProtectedHeader({ alg: ALG, kid, typ: PROOF_TYP }).sign(key);
  }

  /** Retires the current key and makes a new one; the old public key stays published. Returns the new key id. */
  async rotate(): Promise<{ kid: string; retired: string[] }> {
    const made = await this.generate();
    const retired = await this.ctx.db.write(async ({ tx }) => {
      const now = this.ctx.clock.now();
      const old = await tx.update(proofKeys).set({ retiredAt: now }).where(isNull(proofKeys.retiredAt)).returning({ kid: proofKeys.kid });
      await tx.insert(proofKeys).values({ ...made, createdAt: now });
      return old.map((o) => o.kid);
    });
    this.signer = null;
    return { kid: made.kid, retired };
  }

  /** `fpa:rotate-keys`: the sealed private keys under the ring's first key. */
  async reseal(): Promise<number> {
    const ring = this.ctx.keyRing;
    const rows = await this.ctx.db.orm.select().from(proofKeys);
    let n = 0;
    for (const row of rows) {
      const envelope = envelopeOf(row.privateSealed);
      if (ring.keyIdOf(envelope) === ring.primaryKeyId || !ring.hasKey(ring.keyIdOf(envelope))) continue;
      const plain = await ring.decryptSecret(envelope, aadOf(row.kid));
      const sealed = SEALED_PREFIX + Buffer.from(await ring.encryptSecret(plain, aadOf(row.kid))).toString('base64url');
      plain.fill(0);
      await this.ctx.db.write(({ tx }) => tx.update(proofKeys).set({ privateSealed: sealed }).where(eq(proofKeys.kid, row.kid)));
      n++;
    }
    return n;
  }

  /** The signing key: the newest unretired one, made on first use (in a write, so instances agree). */
  private async current(): Promise<{ kid: string; key: CryptoKey | Uint8Array }> {
    if (this.signer && this.signer.until > Date.now()) return this.signer;
    let row = await this.newest();
    if (!row) {
      const made = await this.generate();
      row = await this.ctx.db.write(async ({ tx }) => {
        const [again] = await tx.select().from(proofKeys).where(isNull(proofKeys.retiredAt)).orderBy(desc(proofKeys.createdAt)).limit(1);
        if (again) return again;
        const values = { ...made, createdAt: this.ctx.clock.now(), retiredAt: null };
        await tx.insert(proofKeys).values(values);
        return values;
      });
    }
    const plain = await this.ctx.keyRing.decryptSecret(envelopeOf(row.privateSealed), aadOf(row.kid));
    const jwk = JSON.parse(new TextDecoder().decode(plain)) as JWK;
    plain.fill(0);
    this.signer = { kid: row.kid, key: await importJWK(jwk, ALG), until: Date.now() + SIGNER_CACHE_MS };
    return this.signer;
  }

  private async newest() {
    const [row] = await this.ctx.db.orm.select().from(proofKeys).where(isNull(proofKeys.retiredAt)).orderBy(desc(proofKeys.createdAt)).limit(1);
    return row ?? null;
  }

  private async generate(): Promise<{ kid: string; publicJwk: Record<string, string>; privateSealed: string }> {
    const { publicKey, privateKey } = await generateKeyPair(ALG, { extractable: true });
    const publicJwk = (await exportJWK(publicKey)) as Record<string, string>;
    // The key id is the RFC 7638 thumbprint of the public key: anyone can recompute it.
    const kid = await calculateJwkThumbprint(publicJwk);
    const plain = new TextEncoder().encode(JSON.stringify(await exportJWK(privateKey)));
    try {
      const privateSealed = SEALED_PREFIX + Buffer.from(await this.ctx.keyRing.encryptSecret(plain, aadOf(kid))).toString('base64url');
      return { kid, publicJwk, privateSealed };
    } finally {
      plain.fill(0);
    }
  }
}

function envelopeOf(stored: string): Uint8Array {
  return new Uint8Array(stored.startsWith(SEALED_PREFIX) ? Buffer.from(stored.slice(SEALED_PREFIX.length), 'base64url') : []);
}

/** The newest `limit` signing keys' sealed private halves, for the key ring check (platform/crypto/sealed-sample.ts). */
export async function sealedProofKeySamples(db: Database, limit: number): Promise<SealedSample[]> {
  const rows = await db.orm
    .select({ kid: proofKeys.kid, privateSealed: proofKeys.privateSealed })
    .from(proofKeys)
    .orderBy(desc(proofKeys.createdAt))
    .limit(limit);
  return rows.map((row) =>
    sealedSample('deletion proof signing key', envelopeOf(row.privateSealed), (ring, envelope) => ring.decryptSecret(envelope, aadOf(row.kid))),
  );
}
