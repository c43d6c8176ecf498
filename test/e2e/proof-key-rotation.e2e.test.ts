/**
 * Rotating the key that signs deletion proofs revokes the old one: its private key is destroyed,
 * the published key set dates its retirement (`fpa_retired_at`), every instance signs with the
 * new key at once, and the README's verification recipe — run as written — accepts a proof the
 * old key signed before its retirement and refuses one it "signed" after (a leaked key's forgery).
 * Through the real server, a second instance on the same database, and the recipe in a process
 * of its own.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { CompactSign, compactVerify, createLocalJWKSet, importJWK, type JWK } from 'jose';
import { auditLog, proofKeys } from '../../src/app/schema';
import { TemplateKeyRing } from '../../src/platform/crypto/template-cipher';
import { startTestServer, TEST_KEY, type TestServer } from '../support/harness';

let server: TestServer;
let second: TestServer;
let work: string;

beforeAll(async () => {
  server = await startTestServer({});
  second = await startTestServer({}, { dir: server.dir, db: server.fpa.db, startJobs: false });
  work = mkdtempSync(join(tmpdir(), 'fpa-recipe-'));
  // The recipe imports `jose` as a reader's project would: from its node_modules.
  symlinkSync(join(import.meta.dir, '../../node_modules'), join(work, 'node_modules'));
});
afterAll(async () => {
  await second.close();
  await server.close();
  rmSync(work, { recursive: true, force: true });
});

type Proof = Record<string, unknown> & { signature: string; issued_at: string; enrollee: string };

async function proofOf(s: TestServer, id: string): Promise<Proof> {
  const res = await s.admin.get(`/enrollees/${id}/deletion-proof/`);
  expect(res.status).toBe(200);
  return res.body as Proof;
}

type PublishedKey = JWK & { fpa_retired_at?: string };

async function keySet(): Promise<{ keys: PublishedKey[] }> {
  return (await (await fetch(`${server.url}/.well-known/fpa-proof-key.json`)).json()) as never;
}

/** The README's "Verifying a proof offline" code, run as written on these files: its output, or its error. */
async function recipe(proof: unknown, keys: unknown): Promise<{ ok: boolean; out: string }> {
  const readme = readFileSync(join(import.meta.dir, '../../README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('#### Verifying a proof offline'));
  const code = /```ts\n([\s\S]*?)```/.exec(section)![1]!;
  writeFileSync(join(work, 'verify.ts'), code);
  writeFileSync(join(work, 'deletion-proof-E-1001.json'), JSON.stringify(proof));
  writeFileSync(join(work, 'fpa-proof-key.json'), JSON.stringify(keys));
  const run = Bun.spawn(['bun', 'verify.ts'], { cwd: work, stdout: 'pipe', stderr: 'pipe' });
  const [out, err] = [await new Response(run.stdout).text(), await new Response(run.stderr).text()];
  return { ok: (await run.exited) === 0, out: out + err };
}

describe('rotating the proof signing key', () => {
  test('destroys the old private key, dates its retirement, and the recipe refuses what it signs after', async () => {
    expect((await server.admin.post('/employees/', { id: 'ROT-1', name: 'Rot One' })).status).toBe(201);
    const person = (await server.admin.post('/enrollees/', { employee: 'ROT-1' })).body as { id: string };
    // A withdrawal of a consent given (one never given withdraws nothing, and opens no proof).
    expect((await server.admin.post(`/enrollees/${person.id}/consent/`, { version: 'v1', method: 'paper' })).status).toBe(201);
    expect((await server.admin.delete(`/enrollees/${person.id}/consent/`)).status).toBe(200);
    const before = await proofOf(server, person.id);
    // The second instance signed too, and holds the old key in memory.
    expect((await compactVerify((await proofOf(second, person.id)).signature, createLocalJWKSet(await keySet()))).protectedHeader.kid).toBe(
      (await compactVerify(before.signature, createLocalJWKSet(await keySet()))).protectedHeader.kid,
    );
    const oldKid = (await compactVerify(before.signature, createLocalJWKSet(await keySet()))).protectedHeader.kid!;
    expect((await recipe(before, await keySet())).ok).toBe(true);

    // What a thief of the old key would hold: its private half.
    const [row] = await server.fpa.db.orm.select().from(proofKeys).where(eq(proofKeys.kid, oldKid));
    const ring = await TemplateKeyRing.fromKeys([TEST_KEY]);
    const sealed = new Uint8Array(Buffer.from(row!.privateSealed!.slice('sealed1:'.length), 'base64url'));
    const stolen = await importJWK(
      JSON.parse(new TextDecoder().decode(await ring.decryptSecret(sealed, { purpose: 'proof_signing_key', id: oldKid }))) as JWK,
      'ES256',
    );

    const rotated = await server.admin.post('/jobs/rotate-proof-key/run/');
    expect(rotated.status).toBe(200);
    const newKid = rotated.body.result.kid as string;

    // Its private key is gone from the database; its public key is published with its retirement.
    const [after] = await server.fpa.db.orm.select().from(proofKeys).where(eq(proofKeys.kid, oldKid));
    expect(after!.privateSealed).toBeNull();
    expect(after!.retiredAt).not.toBeNull();
    const keys = await keySet();
    const old: PublishedKey = keys.keys.find((k) => k.kid === oldKid)!;
    expect(old.fpa_retired_at).toBe(new Date(after!.retiredAt!).toISOString());
    expect(keys.keys.find((k) => k.kid === newKid)!.fpa_retired_at).toBeUndefined();
    expect(JSON.stringify(keys)).not.toContain('"d"');
    // The key that signed proofs was destroyed: in the audit log, as a template key rotation is.
    const [entry] = await server.fpa.db.orm.select().from(auditLog).where(eq(auditLog.action, 'proof_key.rotated'));
    expect(entry).toMatchObject({ targetType: 'proof_key', targetId: newKid, details: { retired: [oldKid] } });

    // Proofs it signed before its retirement still pass the recipe.
    expect(Date.parse(before.issued_at)).toBeLessThan(Date.parse(old.fpa_retired_at!));
    const genuine = await recipe(before, keys);
    expect(genuine).toMatchObject({ ok: true });
    expect(genuine.out).toContain(`signed by ${oldKid}`);

    // Both instances sign with the new key at once (none keeps the retired one for minutes).
    for (const s of [server, second]) {
      const fresh = await proofOf(s, person.id);
      expect((await compactVerify(fresh.signature, createLocalJWKSet(keys))).protectedHeader.kid).toBe(newKid);
      expect((await recipe(fresh, keys)).ok).toBe(true);
    }

    // A proof made with the old key after its retirement: the signature checks, the recipe refuses it.
    const { signature: _, ...body } = before;
    const forgedBody = { ...body, issued_at: new Date(Date.parse(old.fpa_retired_at!) + 60_000).toISOString() };
    const forged = {
      ...forgedBody,
      signature: await new CompactSign(new TextEncoder().encode(JSON.stringify(forgedBody)))
        .setProtectedHeader({ alg: 'ES256', kid: oldKid, typ: 'fpa-deletion-proof+json' })
        .sign(stolen),
    };
    await compactVerify(forged.signature, createLocalJWKSet(keys));
    const refused = await recipe(forged, keys);
    expect(refused.ok).toBe(false);
    expect(refused.out).toContain(`signed by a key retired on ${old.fpa_retired_at}`);
  });

  test('a re-seal under the key ring and the start-up key ring check pass over retired keys, which have no private key left', async () => {
    const keys = await server.fpa.db.orm.select().from(proofKeys);
    expect(keys.filter((k) => k.retiredAt !== null).map((k) => k.privateSealed)).toEqual([null]);
    const resealed = await server.admin.post('/jobs/rotate-keys/run/');
    expect(resealed.status).toBe(200);
    expect(resealed.body.result).toMatchObject({ proof_keys_resealed: 0 });
    const third = await startTestServer({}, { dir: server.dir, db: server.fpa.db, startJobs: false });
    await third.close();
  });
});
