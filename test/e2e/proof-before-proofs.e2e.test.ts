/**
 * Deletion proofs of people whose deletion was asked under the second release, which kept no
 * proofs (README "Proof of deletion", "Upgrade"). A second-release database holds a person whose
 * consent was withdrawn, one withdrawn years ago, one deleted (a tombstone), one whose consent was
 * only replaced and one who never withdrew. Started on this release, the withdrawn and the deleted
 * get a 404 saying no proof is kept of their request (`details.reason: no_proof_kept`, what was
 * asked), not the advice to withdraw or delete first; the others keep that advice; a caller
 * outside the person's areas learns nothing. Withdrawing again issues a proof from then on.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { clientAs, startTestServer, type TestServer, tempDir } from '../support/harness';
import { databaseBefore, insertRows, SECOND_RELEASE } from '../support/old-database';

const DAY = 86_400_000;
const now = Date.now();
const tmp = tempDir('fpa-proof-before-');
let server: TestServer;

const withdrawn = { id: '0b5e5c1a-0005-4000-8000-000000000005', at: now - 2 * DAY };
const longAgo = { id: '0b5e5c1a-0006-4000-8000-000000000006', at: Date.parse('2019-03-04T10:00:00Z') };
const deleted = '0b5e5c1a-0099-4000-8000-000000000099';
const replaced = '0b5e5c1a-0100-4000-8000-000000000100';
const consenting = '0b5e5c1a-0101-4000-8000-000000000101';

/** A person as the second release stored them, in area `north`. */
function person(id: string, employee: string, status: 'active' | 'deleted', updatedAt = now - 10 * DAY) {
  return [
    ['fpa_employees', { id: employee, name: `Person ${employee}`, active: 1, created_at: now - 30 * DAY }],
    [
      'fpa_enrollees',
      {
        id,
        employee_key: employee,
        device_pin: String(10_000 + Number(employee.slice(1))),
        display_name: `Person ${employee}`,
        status,
        created_at: now - 30 * DAY,
        updated_at: updatedAt,
      },
    ],
    ['fpa_enrollee_areas', { enrollee_id: id, area_id: 'area-north' }],
  ] as const;
}

function consent(enrolleeId: string, givenAt: number, withdrawnAt: number | null) {
  return [
    'fpa_consents',
    {
      id: crypto.randomUUID(),
      enrollee_id: enrolleeId,
      version: 'v1',
      method: 'paper',
      given_by: 'hr',
      given_at: givenAt,
      withdrawn_at: withdrawnAt,
      withdrawn_by: withdrawnAt === null ? null : 'hr',
    },
  ] as const;
}

beforeAll(async () => {
  const db = await databaseBefore(tmp.dir, SECOND_RELEASE);
  await insertRows(db, [
    ['fpa_areas', { id: 'area-north', name: 'north', created_at: now - 30 * DAY }],
    ...person(withdrawn.id, 'E005', 'active'),
    consent(withdrawn.id, now - 20 * DAY, withdrawn.at),
    ...person(longAgo.id, 'E006', 'active'),
    consent(longAgo.id, Date.parse('2019-01-02T10:00:00Z'), longAgo.at),
    ...person(deleted, 'E099', 'deleted', now - DAY),
    consent(deleted, now - 20 * DAY, now - DAY),
    ...person(replaced, 'E100', 'active'),
    consent(replaced, now - 20 * DAY, now - 5 * DAY),
    consent(replaced, now - 5 * DAY, null),
    ...person(consenting, 'E101', 'active'),
    consent(consenting, now - 20 * DAY, null),
  ]);
  await db.close();
  server = await startTestServer({}, { dir: tmp.dir });
});

afterAll(async () => {
  await server?.close();
  tmp.cleanup();
});

const proofOf = (id: string) => server.admin.get(`/enrollees/${id}/deletion-proof/`);
/** The error of an answer, without its request id. */
const errorOf = (res: { body: { error?: { request_id?: string } } }) => {
  const { request_id: _, ...error } = res.body.error ?? {};
  return error;
};
const NOT_ASKED = 'no deletion proof of this person for you: none was asked (withdraw their consent or delete them first), or they are outside your areas';

describe('a deletion asked before this release kept proofs', () => {
  test('consent withdrawn: 404 no_proof_kept, saying when and that withdrawing again issues a proof from then on', async () => {
    const res = await proofOf(withdrawn.id);
    expect(res.status).toBe(404);
    expect(errorOf(res)).toEqual({
      code: 'not_found',
      message:
        `this person's consent was withdrawn on ${new Date(withdrawn.at).toISOString()} before this release kept deletion proofs: ` +
        'no proof can be issued for that withdrawal. Withdrawing their consent again (DELETE enrollees/{id}/consent/) issues a proof from then on: no template on the server, and the deletes the terminals still owe',
      details: { enrollee: withdrawn.id, reason: 'no_proof_kept', asked: 'consent_withdrawn' },
    });
    const pdf = await server.admin.get(`/enrollees/${withdrawn.id}/deletion-proof.pdf`);
    expect({ status: pdf.status, reason: pdf.body.error?.details?.reason }).toEqual({ status: 404, reason: 'no_proof_kept' });
  });

  test('withdrawn longer ago than RETENTION_DELETION_PROOFS_DAYS: the answer allows that retention removed its proof', async () => {
    const res = await proofOf(longAgo.id);
    expect(res.status).toBe(404);
    expect(res.body.error.details).toEqual({ enrollee: longAgo.id, reason: 'no_proof_kept', asked: 'consent_withdrawn' });
    expect(res.body.error.message).toContain(
      'withdrawn on 2019-03-04T10:00:00.000Z before this release kept deletion proofs (or its proof was removed by retention, RETENTION_DELETION_PROOFS_DAYS after it was complete)',
    );
  });

  test('deleted: 404 no_proof_kept, saying nothing can be issued (a deleted person cannot be deleted again)', async () => {
    const res = await proofOf(deleted);
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({
      message:
        'this person was deleted before this release kept deletion proofs: no proof can be issued for that deletion, and a deleted person cannot be deleted again',
      details: { enrollee: deleted, reason: 'no_proof_kept', asked: 'deleted' },
    });
    expect((await server.admin.delete(`/enrollees/${deleted}/`)).status).toBe(404);
  });

  test('no deletion asked (a consent replaced, one current, an unknown id): the advice to ask one first', async () => {
    for (const id of [replaced, consenting, '00000000-0000-4000-8000-000000000000']) {
      const res = await proofOf(id);
      expect({ id, status: res.status, error: errorOf(res) }).toEqual({
        id,
        status: 404,
        error: { code: 'not_found', message: NOT_ASKED, details: { enrollee: id } },
      });
    }
  });

  test('a caller outside the person’s areas learns nothing of it; one of them does', async () => {
    const south = await clientAs(server, 'hr', ['south']);
    for (const id of [withdrawn.id, deleted]) {
      const res = await south.get(`/enrollees/${id}/deletion-proof/`);
      expect({ status: res.status, error: errorOf(res) }).toEqual({ status: 404, error: { code: 'not_found', message: NOT_ASKED, details: { enrollee: id } } });
    }
    const north = await clientAs(server, 'hr', ['north']);
    expect((await north.get(`/enrollees/${deleted}/deletion-proof/`)).body.error.details.reason).toBe('no_proof_kept');
  });

  test('withdrawing again issues a proof dated then: nothing destroyed on the server, no terminal owing a delete', async () => {
    const again = await server.admin.delete(`/enrollees/${withdrawn.id}/consent/`);
    expect(again.body).toEqual({ withdrawn: false, templates_destroyed: 0 });
    const proof = await proofOf(withdrawn.id);
    expect(proof.status).toBe(200);
    expect(proof.body).toMatchObject({ reason: 'consent_withdrawn', server: { templates_destroyed: 0 }, terminals: [], complete: true });
    expect(Date.parse(proof.body.requested_at)).toBeGreaterThan(withdrawn.at);
  });
});
