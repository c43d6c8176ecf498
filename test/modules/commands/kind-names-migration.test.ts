/**
 * Migration 0036 on commands and events kept before it: the kinds earlier releases stored in
 * upper case (`QUERY_USERS`, `INFO`, `QUERY_ATTLOG`…) become the API's names (`query_users`,
 * `info`, `reupload_logs`…), in the commands table and in the `device_command_finished` events
 * the log holds; kinds already named so (`add_user`, `ENROLL_FP`) and other events stay as they
 * were, and the rest of an event's data is kept.
 */
import { describe, expect, test } from 'bun:test';
import { migrateDatabase } from '../../../src/platform/db/client';
import { tempDir } from '../../support/harness';
import { databaseBefore, insertRows } from '../../support/old-database';

const now = Date.parse('2026-10-01T08:00:00Z');
const RENAMED = {
  CHECK: 'check',
  INFO: 'info',
  REBOOT: 'reboot',
  SET_TIME: 'set_time',
  QUERY_USERS: 'query_users',
  QUERY_TEMPLATES: 'query_templates',
  QUERY_ATTLOG: 'reupload_logs',
  CLEAR_LOG: 'clear_logs',
  CLEAR_DATA: 'clear_data',
  RAW: 'raw',
};
const KEPT = ['add_user', 'delete_user', 'update_template', 'delete_template', 'ENROLL_FP', 'ENROLL_BIO'];

const command = (kind: string, i: number) =>
  [
    'fpa_device_commands',
    {
      device_id: 'device-1',
      kind,
      payload: JSON.stringify({ pin: '10000' }),
      status: 'succeeded',
      created_at: now + i,
      not_before: now + i,
      expires_at: now + 86_400_000,
      completed_at: now + i + 1,
    },
  ] as const;

const finished = (kind: string, i: number) => ({
  device: { id: 'device-1', serial_number: 'SN1' },
  command: { id: i, kind, payload: { pin: '10000' }, session: null },
  status: 'succeeded',
  return_code: 0,
});
const event = (type: string, data: object, i: number) => ['fpa_events', { id: `evt_${i}`, type, at: now + i, data: JSON.stringify(data) }] as const;

describe('migration 0036 on commands and events kept before it', () => {
  test("renames the upper-case kinds to the API's names, in the commands and in device_command_finished", async () => {
    const tmp = tempDir('fpa-kinds-0036-');
    const db = await databaseBefore(tmp.dir, '0036');
    try {
      const kinds = [...Object.keys(RENAMED), ...KEPT];
      await insertRows(db, [
        ...kinds.map((kind, i) => command(kind, i)),
        ...kinds.map((kind, i) => event('device_command_finished', finished(kind, i), i)),
        // Another event whose data has a `command.kind` of its own is not a command's.
        event('enrollment_session_closed', { command: { kind: 'INFO' }, reason: 'INFO' }, 100),
      ]);
      await migrateDatabase(db);
      const expected = kinds.map((kind) => RENAMED[kind as keyof typeof RENAMED] ?? kind);
      const commands = await db.client.execute('select kind from fpa_device_commands order by id');
      expect(commands.rows.map((r) => r.kind)).toEqual(expected);
      const events = await db.client.execute("select data from fpa_events where type = 'device_command_finished' order by sequence");
      expect(events.rows.map((r) => JSON.parse(String(r.data)))).toEqual(expected.map((kind, i) => finished(kind, i)));
      const other = await db.client.execute("select data from fpa_events where type = 'enrollment_session_closed'");
      expect(JSON.parse(String(other.rows[0]!.data))).toEqual({ command: { kind: 'INFO' }, reason: 'INFO' });
    } finally {
      await db.close();
      tmp.cleanup();
    }
  });
});
