/**
 * Migration 0038 on terminals kept before it: the address each reports for itself gets a column of
 * its own (`reported_address`), filled from the options or INFO reply it last reported as the
 * service reads it (`IPAddress`, else `~IPAddress`, trimmed, not empty); `ip_address` is left as
 * it was (the terminal's next request puts its peer address there).
 */
import { describe, expect, test } from 'bun:test';
import type { InValue } from '@libsql/client';
import { migrateDatabase } from '../../../src/platform/db/client';
import { tempDir } from '../../support/harness';
import { databaseBefore, insertRows } from '../../support/old-database';

const now = Date.parse('2026-10-01T08:00:00Z');

const terminal = (serial: string, ip: string | null, parameters: string | null) =>
  [
    'fpa_devices',
    { id: `device-${serial}`, serial_number: serial, status: 'approved', ip_address: ip, parameters, created_at: now, updated_at: now } satisfies Record<
      string,
      InValue
    >,
  ] as const;

describe('migration 0038 on terminals kept before it', () => {
  test('reported_address comes from the parameters the terminal last reported; ip_address is kept', async () => {
    const tmp = tempDir('fpa-reported-0038-');
    const db = await databaseBefore(tmp.dir, '0038');
    try {
      await insertRows(db, [
        terminal('NAT1', '10.9.9.9', JSON.stringify({ IPAddress: '10.9.9.9', FWVersion: 'Ver 8' })),
        terminal('TILDE1', '203.0.113.7', JSON.stringify({ '~IPAddress': ' 192.168.1.20 ' })),
        terminal('BLANK1', '203.0.113.8', JSON.stringify({ IPAddress: '  ', '~IPAddress': '192.168.1.21' })),
        terminal('NUMBER1', '203.0.113.9', JSON.stringify({ IPAddress: 17 })),
        terminal('NONE1', '203.0.113.10', JSON.stringify({ FWVersion: 'Ver 8' })),
        terminal('NULL1', null, null),
        terminal('BROKEN1', '203.0.113.11', '{not json'),
      ]);
      await migrateDatabase(db);
      const rows = await db.client.execute('select serial_number, ip_address, reported_address from fpa_devices order by serial_number');
      expect(Object.fromEntries(rows.rows.map((r) => [String(r.serial_number), [r.ip_address, r.reported_address]]))).toEqual({
        BLANK1: ['203.0.113.8', '192.168.1.21'],
        BROKEN1: ['203.0.113.11', null],
        NAT1: ['10.9.9.9', '10.9.9.9'],
        NONE1: ['203.0.113.10', null],
        NULL1: [null, null],
        NUMBER1: ['203.0.113.9', null],
        TILDE1: ['203.0.113.7', '192.168.1.20'],
      });
    } finally {
      await db.close();
      tmp.cleanup();
    }
  });
});
