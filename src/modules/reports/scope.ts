/**
 * Whom a report may show: the caller's areas (API.md "Roles": outside them a person does not
 * exist) and the `?area=` asked for, and the names and areas of the people in the rows.
 */

import { FpaError } from '../../platform/errors';
import { yieldToOthers } from '../../platform/event-loop';
import type { Caller } from '../../platform/http/caller';
import { type AreaScope, EVERYWHERE } from '../../platform/scope';
import type { AreaCatalog } from '../areas';
import type { EnrolleeService } from '../enrollees';
import type { Person } from './rows';
import type { ReportRuntime } from './runtime';

export interface Scope {
  /** The area asked for, if any. */
  area: string | null;
  /** The same as an area scope, for the reads: the rows of the people it admits, and some more (admits decides). */
  members: AreaScope;
  /** As printed under the title. */
  label: string;
  /** Whether a person with these areas is in the report. */
  admits(areas: readonly string[]): boolean;
}

/** An area the caller may not see does not exist for them: 404 like an unknown one. */
export async function scopeOf(areas: AreaCatalog, caller: Pick<Caller, 'areas'>, area: string | undefined): Promise<Scope> {
  const limit = caller.areas;
  if (area !== undefined && area !== '') {
    if (limit.length > 0 && !limit.includes(area)) throw new FpaError('not_found', 'area not found', { name: area });
    await areas.get(area);
    return { area, members: { areas: [area] }, label: `Area: ${area}`, admits: (own) => own.includes(area) };
  }
  if (limit.length === 0) return { area: null, members: EVERYWHERE, label: 'All areas', admits: () => true };
  return { area: null, members: { areas: [...limit] }, label: `Areas: ${limit.join(', ')}`, admits: (own) => own.some((a) => limit.includes(a)) };
}

/** People read at once: a report's page of days names up to a thousand. */
const PEOPLE_PER_READ = 1000;

/** The people of report rows by enrollee id, looked up once each (tombstones too: reports name people who left). */
export class People {
  private readonly known = new Map<string, Person>();

  constructor(
    private readonly ctx: ReportRuntime,
    private readonly enrollees: EnrolleeService,
  ) {}

  /** The people of `ids`, read PEOPLE_PER_READ at a time with a turn of the event loop between reads (a daily report of everyone asks for 10,000). */
  async of(ids: readonly string[]): Promise<Map<string, Person>> {
    const missing = [...new Set(ids)].filter((id) => !this.known.has(id));
    for (let i = 0; i < missing.length; i += PEOPLE_PER_READ) {
      if (i > 0) await yieldToOthers();
      const part = missing.slice(i, i + PEOPLE_PER_READ);
      const q = this.ctx.db.orm;
      const rows = await this.enrollees.byIds(q, part);
      const areas = await this.enrollees.membership.areaNamesOf(q, part);
      for (const id of part) {
        const row = rows.get(id);
        this.known.set(id, { employee: row?.employeeKey ?? '', name: row?.displayName ?? '', areas: areas.get(id) ?? [] });
      }
    }
    return new Map(ids.map((id) => [id, this.known.get(id)!]));
  }
}
