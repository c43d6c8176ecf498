/**
 * A destroyed template is gone from the database's bytes (a data protection officer's find): after
 * consent was withdrawn (`templates_destroyed: 1`), its encrypted bytes were still in the
 * database file's free space and in the WAL's older frames, 30 seconds and minutes later, and
 * carved out, they decrypted with the installation's key. Every write zeroes what it frees
 * (secure delete) and the WAL is emptied once templates are destroyed.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { templates } from '../../src/app/schema';
import { syntheticTemplate } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';
import { enrolledPerson } from '../support/terminals';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

/** Whether these bytes are anywhere in the database file or its WAL. */
function atRest(bytes: Uint8Array): boolean {
  const needle = Buffer.from(bytes);
  return ['fpa.db', 'fpa.db-wal'].some((name) => {
    const path = join(server.dir, name);
    return existsSync(path) && readFileSync(path).includes(needle);
  });
}

async function storedCiphertext(enrolleeId: string): Promise<Uint8Array> {
  const [row] = await server.fpa.db.orm.select({ ciphertext: templates.ciphertext }).from(templates).where(eq(templates.enrolleeId, enrolleeId));
  expect(row).toBeDefined();
  return new Uint8Array(row!.ciphertext);
}

async function goneWithin(bytes: Uint8Array, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (!atRest(bytes)) return true;
    await Bun.sleep(50);
  }
  return !atRest(bytes);
}

async function withTemplate(employee: string): Promise<{ id: string; ciphertext: Uint8Array }> {
  const person = await enrolledPerson(server, employee, `Person ${employee}`, ['default']);
  expect((await server.admin.post(`/enrollees/${person.id}/consent/`, { version: 'v1', method: 'paper' })).status).toBe(201);
  await server.fpa.service.storeTemplate(person.id, 1, new Uint8Array(Buffer.from(syntheticTemplate(400), 'base64')), { algorithmVersion: '10', by: 'test' });
  const ciphertext = await storedCiphertext(person.id);
  // Written through: the bytes are at rest before the destruction.
  expect(atRest(ciphertext)).toBe(true);
  return { id: person.id, ciphertext };
}

describe('a destroyed template is gone from the file and the WAL', () => {
  test('consent withdrawn: its encrypted bytes are in neither within a few seconds', async () => {
    const { id, ciphertext } = await withTemplate('ERASE-1');
    const withdrawn = await server.admin.delete(`/enrollees/${id}/consent/`);
    expect(withdrawn.status).toBe(200);
    expect(withdrawn.body.templates_destroyed).toBe(1);
    expect(await goneWithin(ciphertext, 5_000)).toBe(true);
  });

  test('a person deleted: the same', async () => {
    const { id, ciphertext } = await withTemplate('ERASE-2');
    expect((await server.admin.delete(`/enrollees/${id}/`)).status).toBeLessThan(300);
    expect(await goneWithin(ciphertext, 5_000)).toBe(true);
  });

  // A new version of a finger, a re-sealed key, any deleted row: what a write frees is zeroed in
  // the page, not left in the file's free space (SQLite may also move a row in place, which
  // leaves nothing to find: this asks the writer itself).
  test('every write zeroes what it frees (secure delete on the writer)', async () => {
    const on = await server.fpa.db.write(async ({ execute }) => Number((await execute('PRAGMA secure_delete')).rows[0]?.[0]));
    expect(on).toBe(1);
  });
});
