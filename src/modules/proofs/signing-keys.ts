/**
 * The key that signs deletion proofs: an ES256 key pair the service generates the first time it
 * signs, kept in the database so every instance signs with the same key, its private half sealed
 * under the template key ring (AES-256-GCM, AAD `fpa-secret-v1|proof_signing_key|<kid>`). The
 * public keys are published as a JWKS (`/.well-known/fpa-proof-key.json`), retired ones included,
 * so a proof signed before a rotation still verifies; a retired key is published with when it was
 * retired (`fpa_retired_at`), its private half destroyed at the rotation (nothing signs with it
 * again: every proof is signed anew when read, with the current key), and the signing key is
 * read at each signature, so no instance signs with a key another has retired: a proof signed by
 * a retired key and issued after its retirement is not the service's.
 */
import { desc, eq, isNotNull, isNull } from 'drizzle-orm';
import { CompactSign, calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import { type SealedSample, sealedSample } from '../../platform/crypto/sealed-sample';
import type { Database } from '../../platform/db/client';
import { FpaError } from '../../platform/errors';
import { audit } from '../audit';
import type { ProofRuntime } from './runtime';
import { proofKeys } from './tables';

const SEALED_PREFIX = 'sealed1:';
const ALG = 'ES256';
/** The JWS `typ` of a deletion proof. */
export const PROOF_TYP = 'fpa-deletion-proof+json';
/** The JWK member that dates a retired key's retirement (ISO 8601): a proof it signed is issued before then. */
const RETIRED_AT_MEMBER = 'fpa_retired_at';

interface Jwks {
  keys: JWK[];
}

const aadOf = (kid: string) => ({ purpose: 'proof_signing_key', id: kid }) as const;

export class ProofKeys {
  /** The signing key in memory (unsealed once), used while it is still the newest unretired key. */
  private signer: { kid: string; key: CryptoKey | Uint8Array } | null = null;

  constructor(private readonly ctx: ProofRuntime) {}

  /** Every public key, newest first: what a verifier needs (`/.well-known/fpa-proof-key.json`). */
  async jwks(): Promise<Jwks> {
    await this.current();
    const rows = await this.ctx.db.orm.select().from(proofKeys).orderBy(desc(proofKeys.createdAt));
    return {
      keys: rows.map((r) => ({
        ...r.publicJwk,
        kid: r.kid,
        alg: ALG,
        use: 'sig',
        ...(r.retiredAt === null ? {} : { [RETIRED_AT_MEMBER]: new Date(r.retiredAt).toISOString() }),
      })),
    };
  }

  /** A compact JWS (ES256) of `payload` with the current key. */
  /**
   * A compact JWS (ES256) of `payload`, issued at `issuedAt`, with the current key. A rotation
   * committed while it was signed, dated at or before `issuedAt`, would make it a proof dated
   * after its key's retirement: it is signed again with the new key.
   */
  async sign(payload: unknown, issuedAt: number): Promise<string> {
    const bytes = new TextEncoder().encode(JSON.stringify(payload));
    for (let attempt = 0; attempt < 3; attempt++) {
      const { kid, key } = await this.current();
      const jws = await new CompactSign(bytes).setProtectedHeader({ alg: ALG, kid, typ: PROOF_TYP }).sign(key);
      const [row] = await this.ctx.db.orm.select({ retiredAt: proofKeys.retiredAt }).from(proofKeys).where(eq(proofKeys.kid, kid));
      if (row && (row.retiredAt === null || row.retiredAt > issuedAt)) return jws;
      this.signer = null;
    }
    throw new FpaError('conflict', 'the key that signs deletion proofs was rotated while this one was signed: ask for it again');
  }

  /**
   * Retires the current key and makes a new one: the old public key stays published, dated by its
   * retirement; its private key is destroyed (a leaked key signs nothing the service stands by
   * after its retirement). Returns the new key id.
   */
  async rotate(by = 'operator'): Promise<{ kid: string; retired: string[] }> {
    const made = await this.generate();
    const retired = await this.ctx.db.write(async ({ tx }) => {
      const now = this.ctx.clock.now();
      const old = await tx.update(proofKeys).set({ retiredAt: now, privateSealed: null }).where(isNull(proofKeys.retiredAt)).returning({ kid: proofKeys.kid });
      await tx.insert(proofKeys).values({ ...made, createdAt: now });
      const kids = old.map((o) => o.kid);
      // The key that signs deletion proofs destroyed: what an auditor asks about, so it is in the audit log.
      await audit(tx, now, { actor: by, action: 'proof_key.rotated', targetType: 'proof_key', targetId: made.kid, details: { retired: kids } });
      return kids;
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
      if (row.privateSealed === null) continue;
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

  /**
   * The signing key: the newest unretired one, read at each signature (another instance may have
   * rotated it), made on first use (in a write, so instances agree).
   */
  private async current(): Promise<{ kid: string; key: CryptoKey | Uint8Array }> {
    let row = await this.newest();
    if (row && this.signer?.kid === row.kid) return this.signer;
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
    const plain = await this.ctx.keyRing.decryptSecret(envelopeOf(row.privateSealed ?? ''), aadOf(row.kid));
    const jwk = JSON.parse(new TextDecoder().decode(plain)) as JWK;
    plain.fill(0);
    this.signer = { kid: row.kid, key: await importJWK(jwk, ALG) };
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

/** The newest `limit` signing keys' sealed private halves (retired keys have none left), for the key ring check (platform/crypto/sealed-sample.ts). */
export async function sealedProofKeySamples(db: Database, limit: number): Promise<SealedSample[]> {
  const rows = await db.orm
    .select({ kid: proofKeys.kid, privateSealed: proofKeys.privateSealed })
    .from(proofKeys)
    .where(isNotNull(proofKeys.privateSealed))
    .orderBy(desc(proofKeys.createdAt))
    .limit(limit);
  return rows.flatMap(({ kid, privateSealed }) =>
    privateSealed === null
      ? []
      : [sealedSample('deletion proof signing key', envelopeOf(privateSealed), (ring, envelope) => ring.decryptSecret(envelope, aadOf(kid)))],
  );
}
