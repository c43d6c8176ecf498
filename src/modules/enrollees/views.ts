/**
 * The enrollees as the API shows them: `GET enrollees/` searched and paged (search.ts), and each
 * enrollee's view, to which modules above this one add their parts (consent, fingers) and their
 * list conditions.
 */

import type { Queryable } from '../../platform/db/client';
import type { Page } from '../../platform/http/paging';
import { type AreaScope, EVERYWHERE } from '../../platform/scope';
import { areaNamesOf } from './area-membership';
import type { EnrolleeRuntime } from './runtime';
import { type EnrolleeListFilters, type ListFilter, searchEnrollees } from './search';
import type { EnrolleeRow } from './tables';
import type { EnrolleeView, ViewPart } from './view-shapes';

export class EnrolleeViews {
  private readonly viewParts: ViewPart[] = [];
  private readonly listFilters = new Map<string, ListFilter>();

  constructor(private readonly ctx: EnrolleeRuntime) {}

  addViewPart(part: ViewPart): void {
    this.viewParts.push(part);
  }

  /** A condition of `enrollees/` answered by a module above this one (`consent`, `biometrics`). */
  addListFilter(name: 'consent' | 'biometrics', filter: ListFilter): void {
    this.listFilters.set(name, filter);
  }

  /** `GET enrollees/`: searched, filtered and sorted (./search.ts), cursor-paged. */
  async list(filters: Omit<EnrolleeListFilters, 'scope'>, scope: AreaScope = EVERYWHERE): Promise<Page<EnrolleeView>> {
    const { rows, next_cursor } = await searchEnrollees(this.ctx.db.orm, { ...filters, scope: scope.areas ?? undefined }, this.listFilters);
    return { results: await this.view(this.ctx.db.orm, rows), next_cursor };
  }

  async view(q: Queryable, rows: EnrolleeRow[]): Promise<EnrolleeView[]> {
    const ids = rows.map((r) => r.id);
    const areaNames = await areaNamesOf(q, ids);
    const parts = await Promise.all(this.viewParts.map((part) => part(q, ids)));
    return rows.map((r) => {
      let view: EnrolleeView = {
        id: r.id,
        employee: r.employeeKey,
        device_pin: r.devicePin,
        display_name: r.displayName,
        card: r.card,
        status: r.status,
        areas: areaNames.get(r.id) ?? [],
        created_at: new Date(r.createdAt).toISOString(),
        consent: null,
        consent_withdrawn: null,
        has_deletion_proof: false,
        fingers: [],
        biometrics: {},
      };
      for (const part of parts) view = { ...view, ...(part.get(r.id) ?? {}) };
      return view;
    });
  }

  async viewOne(row: EnrolleeRow): Promise<EnrolleeView> {
    const [view] = await this.view(this.ctx.db.orm, [row]);
    return view!;
  }
}
