/**
 * The Today board's roster: everyone not deleted, with their areas. Read whole at every board
 * read (10,000 people at M), it changes only when people or areas do, so it is kept between
 * reads and read again only when the database's `roster_version` has moved. That counter is
 * counted up by triggers on the enrollees, their areas and the areas (migration 0013), in the
 * transaction of the change itself, whichever instance makes it: a roster is never older than
 * the last change committed before the board's read, and no writer has to remember it.
 * At M the read took 45-69 ms of the board's 150; the version's look-up is one row.
 */
import { getTableName } from 'drizzle-orm';
import type { Execute } from '../../platform/db/client';
import { selectAsJson } from '../../platform/db/json-results';
import type { EnrolleeRuntime } from './runtime';
import { counters, enrolleeAreas, enrollees } from './tables';

/** A person of the Today board: who, and their areas (ids and names, in name order). */
export interface RosterEntry {
  readonly id: string;
  readonly employeeKey: string;
  readonly displayName: string;
  readonly active: boolean;
  readonly createdAt: number;
  readonly areaIds: readonly string[];
  readonly areaNames: readonly string[];
}

export class Roster {
  private kept: { version: number; entries: readonly RosterEntry[] } | null = null;

  constructor(private readonly ctx: EnrolleeRuntime) {}

  /** Everyone not deleted, with their areas; shared between callers, so read-only. */
  async read(): Promise<readonly RosterEntry[]> {
    const execute: Execute = (statement) => this.ctx.db.client.execute(statement);
    // Read before the roster: a change committed in between makes the next read miss and read
    // again, never keeps a roster older than its version says.
    const version = await this.version(execute);
    if (this.kept && version !== null && this.kept.version === version) return this.kept.entries;
    const entries = await readRoster(execute);
    this.kept = version === null ? null : { version, entries };
    return entries;
  }

  /** Null when the counter is missing (a database emptied by hand): nothing is kept then. */
  private async version(execute: Execute): Promise<number | null> {
    const { rows } = await execute({ sql: `select value from ${getTableName(counters)} where name = 'roster_version'`, args: [] });
    const value = rows[0]?.value;
    return typeof value === 'number' ? value : null;
  }
}

/**
 * Everyone not deleted, with their areas. Both reads answer as one JSON value
 * (json-results.ts): the driver's row objects cost more than the rows (10,000 people and their
 * areas). Two flat reads joined here: a subquery per person costs more than the 10,000 pairs.
 */
async function readRoster(execute: Execute): Promise<RosterEntry[]> {
  // The pairs without the areas' names (a join per pair), the few areas named once.
  const [people, pairs, areas] = await Promise.all([
    selectAsJson<[string, string, string, string, number]>(
      execute,
      ['id', 'employee_key', 'display_name', 'status', 'created_at'],
      `select id, employee_key, display_name, status, created_at from ${getTableName(enrollees)} where status <> 'deleted'`,
    ),
    selectAsJson<[string, string]>(execute, ['enrollee_id', 'area_id'], `select enrollee_id, area_id from ${getTableName(enrolleeAreas)}`),
    selectAsJson<[string, string]>(execute, ['id', 'name'], 'select id, name from fpa_areas order by name'),
  ]);
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
  return people.map(([id, employeeKey, displayName, status, createdAt]) => {
    const own = areasOf.get(id);
    return { id, employeeKey, displayName, active: status === 'active', createdAt, areaIds: own?.ids ?? [], areaNames: own?.names ?? [] };
  });
}
