/**
 * The Today board's roster: everyone not deleted, with their areas. Read whole at every board
 * read (10,000 people at M), it changes only when people or areas do, so it is kept between
 * reads and read again only when the database's `roster_version` has moved. That counter is
 * counted up by triggers on the enrollees, their areas and the areas (migration 0013), in the
 * transaction of the change itself, whichever instance makes it: a roster is never older than
 * the last change committed before the board's read, and no writer has to remember it.
 * At M the read took 45-69 ms of the board's 150; the version's look-up is one row, and a count
 * of the triggers, so that a later migration that rebuilds one of those tables (which drops its
 * triggers) turns the keeping off instead of keeping a roster for ever.
 */
import type { ResultSet } from '@libsql/client';
import { getTableName } from 'drizzle-orm';
import { asJsonSql, rowsOfJson } from '../../platform/db/json-results';
import { compareKeys } from '../../platform/name-key';
import type { EnrolleeRuntime } from './runtime';
import { counters, enrolleeAreas, enrollees } from './tables';

/** A person of the Today board: who, and their areas (ids and names, in name order). */
export interface RosterEntry {
  readonly id: string;
  readonly employeeKey: string;
  readonly displayName: string;
  /** The name as lists sort it (ignoring case and accents: platform/name-key.ts). */
  readonly nameKey: string;
  readonly active: boolean;
  readonly createdAt: number;
  readonly areaIds: readonly string[];
  readonly areaNames: readonly string[];
}

/** The triggers of migration 0013 that count `roster_version` up: without all of them nothing is kept. */
const ROSTER_TRIGGERS = 9;

/**
 * The version, or null when nothing may be kept: the counter missing (a database emptied by
 * hand), or a trigger missing (a table rebuilt by a later migration drops its triggers, and the
 * roster would then never be read again).
 */
const VERSION_SQL = `select (select value from ${getTableName(counters)} where name = 'roster_version') as version,
  (select count(*) from sqlite_master where type = 'trigger' and substr(name, 1, 11) = 'fpa_roster_') as triggers`;

/** A roster and its version as of one snapshot (a null version: not to be kept). */
interface Snapshot {
  version: number | null;
  entries: readonly RosterEntry[];
}

export class Roster {
  private kept: Snapshot | null = null;
  /** The read under way and the version seen when it began; board reads that miss meanwhile share it. */
  private reading: { since: number | null; snapshot: Promise<Snapshot> } | null = null;

  constructor(private readonly ctx: EnrolleeRuntime) {}

  /** Everyone not deleted, with their areas, by name (then id); shared between callers, so frozen. */
  async read(): Promise<readonly RosterEntry[]> {
    const version = versionOf(await this.ctx.db.client.execute(VERSION_SQL));
    if (version !== null && this.kept?.version === version) return this.kept.entries;
    // A read that began before this version was seen may miss its change: not shared, then.
    const shared = this.reading;
    const read = shared && version !== null && shared.since !== null && shared.since >= version ? shared.snapshot : this.startReading(version);
    const snapshot = await read;
    // Only a newer roster replaces the one kept (a read that began first may end last).
    if (snapshot.version !== null && (this.kept?.version ?? -1) < snapshot.version) this.kept = snapshot;
    return snapshot.entries;
  }

  /**
   * People deleted since, among these ids, as roster entries: the board of a past date lists
   * whoever has a day stored on it, as the reports do (not kept: a board of a past date is rare).
   */
  async deletedAmong(ids: readonly string[]): Promise<readonly RosterEntry[]> {
    if (ids.length === 0) return [];
    const among = JSON.stringify(ids);
    const rows = await this.ctx.db.client.batch(
      [
        {
          sql: asJsonSql(
            ['id', 'employee_key', 'display_name', 'name_key', 'status', 'created_at'],
            `select id, employee_key, display_name, name_key, status, created_at from ${getTableName(enrollees)} where status = 'deleted' and id in (select value from json_each(?))`,
          ),
          args: [among],
        },
        {
          sql: asJsonSql(
            ['enrollee_id', 'area_id'],
            `select enrollee_id, area_id from ${getTableName(enrolleeAreas)} where enrollee_id in (select value from json_each(?))`,
          ),
          args: [among],
        },
        { sql: ROSTER_READS[2]!, args: [] },
      ],
      'read',
    );
    return rosterOf(rows);
  }

  private startReading(since: number | null): Promise<Snapshot> {
    const reading = {
      since,
      snapshot: this.snapshot().finally(() => {
        if (this.reading === reading) this.reading = null;
      }),
    };
    this.reading = reading;
    return reading.snapshot;
  }

  /** The roster and its version, read in one read transaction. */
  private async snapshot(): Promise<Snapshot> {
    const [version, ...rows] = await this.ctx.db.client.batch([VERSION_SQL, ...ROSTER_READS], 'read');
    return { version: versionOf(version!), entries: rosterOf(rows) };
  }
}

function versionOf(rs: ResultSet): number | null {
  const row = rs.rows[0];
  return row && typeof row.version === 'number' && row.triggers === ROSTER_TRIGGERS ? row.version : null;
}

/**
 * Everyone not deleted, with their areas: each read answers as one JSON value (json-results.ts),
 * since the driver's row objects cost more than the rows (10,000 people and their areas). Two flat
 * reads joined here: a subquery per person costs more than the 10,000 pairs; the pairs without the
 * areas' names (a join per pair), the few areas named once.
 */
const ROSTER_READS = [
  asJsonSql(
    ['id', 'employee_key', 'display_name', 'name_key', 'status', 'created_at'],
    `select id, employee_key, display_name, name_key, status, created_at from ${getTableName(enrollees)} where status <> 'deleted'`,
  ),
  asJsonSql(['enrollee_id', 'area_id'], `select enrollee_id, area_id from ${getTableName(enrolleeAreas)}`),
  asJsonSql(['id', 'name'], 'select id, name from fpa_areas order by name'),
];

/** The roster from the results of ROSTER_READS, frozen: it is shared by every board read. */
function rosterOf([peopleRead, pairsRead, areasRead]: ResultSet[]): readonly RosterEntry[] {
  const people = rowsOfJson<[string, string, string, string, string, number]>(peopleRead!);
  const pairs = rowsOfJson<[string, string]>(pairsRead!);
  const areas = rowsOfJson<[string, string]>(areasRead!);
  // Each person's areas in name order.
  const rank = new Map(areas.map(([id], i) => [id, i]));
  pairs.sort((a, b) => (rank.get(a[1]) ?? 0) - (rank.get(b[1]) ?? 0));
  const nameOf = new Map(areas);
  const areasOf = new Map<string, { ids: string[]; names: string[] }>();
  for (const [enrollee, areaId] of pairs) {
    const name = nameOf.get(areaId);
    if (name === undefined) continue;
    let own = areasOf.get(enrollee);
    if (!own) {
      own = { ids: [], names: [] };
      areasOf.set(enrollee, own);
    }
    own.ids.push(areaId);
    own.names.push(name);
  }
  const none: readonly string[] = Object.freeze([]);
  // By name, then id: the order the board lists people in, sorted once per read of the roster
  // rather than at every board read; by the stored key, as `enrollees/?sort=name` pages them.
  people.sort((a, b) => compareKeys(a[3], b[3]) || (a[0] < b[0] ? -1 : 1));
  return Object.freeze(
    people.map(([id, employeeKey, displayName, nameKey, status, createdAt]) => {
      const own = areasOf.get(id);
      const areaIds = own ? Object.freeze(own.ids) : none;
      const areaNames = own ? Object.freeze(own.names) : none;
      return Object.freeze({ id, employeeKey, displayName, nameKey, active: status === 'active', createdAt, areaIds, areaNames });
    }),
  );
}
