/**
 * Migration 0042 on an event log kept before it: each event gets whom it is about in columns of
 * its own (`about_enrollee`, `about_device`), what `events/?order=desc` answers a caller limited
 * to areas on. Every type of the catalog, as its example shows it, gets the subjects
 * events/subjects.ts reads from its data (what the server records from now on); a punch's, kept in
 * the log as a reference to its row, those of the row (a manual punch no terminal; one purged
 * since nobody).
 */
import { describe, expect, test } from 'bun:test';
import { EVENT_CATALOG } from '../../../src/app/event-catalog';
import { subjectsOf } from '../../../src/modules/events/subjects';
import { migrateDatabase } from '../../../src/platform/db/client';
import { tempDir } from '../../support/harness';
import { databaseBefore, insertRows, legacyPunchRow } from '../../support/old-database';

const now = Date.parse('2026-10-01T08:00:00Z');
const ADA = '7c1e4a52-0d3b-4f7e-9a61-2b8f5c3d9e01';
const BO = 'b4d2f9a8-6e15-4c37-8d0b-91a3e7c2f605';

const punch = (sequence: number, enrollee: string | null, device: { id: string; serial: string }) =>
  legacyPunchRow(now, {
    sequence,
    id: `punch-${sequence}`,
    device_id: device.id,
    device_serial: device.serial,
    device_pin: String(10_000 + sequence),
    enrollee_id: enrollee,
    employee_key: enrollee ? 'E-1' : null,
  });

const event = (i: number, type: string, data: object) => ['fpa_events', { id: `evt_${i}`, type, at: now + i, data: JSON.stringify(data) }] as const;

describe('migration 0042: whom each event kept is about', () => {
  test('every type from its data, a punch from its row', async () => {
    const tmp = tempDir('fpa-subjects-0042-');
    const db = await databaseBefore(tmp.dir, '0042');
    try {
      const examples = Object.entries(EVENT_CATALOG).filter(([type]) => type !== 'punch_received' && type !== 'punch_voided');
      await insertRows(db, [
        punch(1, ADA, { id: 'device-1', serial: 'NORTH001' }),
        // A manual punch: no terminal.
        punch(2, BO, { id: '', serial: '' }),
        // A PIN nobody holds: the terminal only.
        punch(3, null, { id: 'device-1', serial: 'NORTH001' }),
        ...examples.map(([type, doc], i) => event(i, type, doc.example)),
        event(100, 'punch_received', { punch_sequence: 1 }),
        event(101, 'punch_received', { punch_sequence: 2, by: 'hr@example.com' }),
        event(102, 'punch_received', { punch_sequence: 3 }),
        event(103, 'punch_voided', { punch_sequence: 1, reason: 'twice', by: 'hr@example.com' }),
        // Logged whole by an earlier version: the same reference.
        event(104, 'punch_received', { punch: { sequence: 2 }, sender: null }),
        // Purged by retention since.
        event(105, 'punch_received', { punch_sequence: 99 }),
      ]);
      await migrateDatabase(db);
      const rows = await db.client.execute('select id, type, data, about_enrollee, about_device from fpa_events order by sequence');
      const about = new Map(rows.rows.map((r) => [String(r.id), { enrollee: r.about_enrollee ?? null, device: r.about_device ?? null }]));
      examples.forEach(([type, doc], i) => {
        const expected = subjectsOf(doc.example);
        expect({ type, ...about.get(`evt_${i}`) }).toEqual({ type, enrollee: expected.enrollee ?? null, device: expected.device ?? null });
      });
      expect(about.get('evt_100')).toEqual({ enrollee: ADA, device: 'NORTH001' });
      expect(about.get('evt_101')).toEqual({ enrollee: BO, device: null });
      expect(about.get('evt_102')).toEqual({ enrollee: null, device: 'NORTH001' });
      expect(about.get('evt_103')).toEqual({ enrollee: ADA, device: 'NORTH001' });
      expect(about.get('evt_104')).toEqual({ enrollee: BO, device: null });
      expect(about.get('evt_105')).toEqual({ enrollee: null, device: null });
      // The data itself is as it was.
      expect(JSON.parse(String(rows.rows.find((r) => r.id === 'evt_100')!.data))).toEqual({ punch_sequence: 1 });
    } finally {
      await db.close();
      tmp.cleanup();
    }
  });
});
