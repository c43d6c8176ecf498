/**
 * `POST employees/import/`: people from a spreadsheet (`id,name,areas,card`) into the built-in
 * employee directory and enrolled, in one go. Each line is checked against the file and the
 * database first (areas must exist, a card must be free); then each good line is stored in its
 * own transaction (the employee and the enrollee together), so nothing of a bad line is stored
 * and a bad line never holds back the good ones. With `dry_run` nothing is stored and the answer
 * says what would change, line by line.
 *
 * A caller limited to some areas (a branch's HR) imports as it enrolls and edits one by one: the
 * areas a line names must be its own, a new person without areas goes into its areas, and a line
 * about someone enrolled only outside them, or in the directory and not enrolled, is refused.
 */
import type { Static } from '@sinclair/typebox';
import type { Queryable } from '../../platform/db/client';
import { FpaError } from '../../platform/errors';
import type { RecordsBody } from '../../platform/http/body';
import { type AreaScope, coversAny, EVERYWHERE, isLimited } from '../../platform/scope';
import { areaIdOf, areasAfterSetting, areasOutside, closeAreaName } from '../areas';
import type { EmployeeService } from '../employees';
import { areaNamesOf, type EnrolleeRow, type EnrolleeService } from '../enrollees';
import { type PersonRow, personRows, type RowError } from './import-records';
import type { ImportResult } from './model';
import type { ImportRuntime } from './runtime';

export type ImportResultView = Static<typeof ImportResult>;
type Change = ImportResultView['changes'][number];

/** What one good line does. */
interface Plan {
  row: PersonRow;
  action: 'create' | 'update' | 'unchanged';
  employeeExists: boolean;
  enrollee: EnrolleeRow | null;
  fields: Change['fields'];
}

export class EmployeeImport {
  constructor(
    private readonly ctx: ImportRuntime,
    private readonly employees: EmployeeService,
    private readonly enrollees: EnrolleeService,
  ) {}

  async run(body: RecordsBody, options: { dryRun: boolean; by: string; scope?: AreaScope }): Promise<ImportResultView> {
    const scope = options.scope ?? EVERYWHERE;
    const read = personRows(body);
    const errors: RowError[] = [...read.errors];
    const q = this.ctx.db.orm;
    const known = await this.employees.byIds(
      q,
      read.rows.map((r) => r.id),
    );
    const enrolled = await this.enrollees.byEmployeeKeys(
      q,
      read.rows.map((r) => r.id),
    );
    const areasOf = await areaNamesOf(
      q,
      [...enrolled.values()].map((e) => e.id),
    );
    const plans: Plan[] = [];
    for (const given of read.rows) {
      const enrollee = enrolled.get(given.id) ?? null;
      const areas = enrollee ? (areasOf.get(enrollee.id) ?? []) : [];
      const scoped = scopeProblem(scope, given, { enrolledIn: enrollee ? areas : null, inDirectory: known.has(given.id) });
      if (typeof scoped === 'string') {
        errors.push({ line: given.line, message: scoped });
        continue;
      }
      const row = scoped;
      const problem = await this.problemOf(q, row, known.get(row.id), enrollee);
      if (problem) errors.push({ line: row.line, message: problem });
      else plans.push(planOf(row, known.get(row.id), enrollee, areas));
    }
    if (!options.dryRun) {
      for (const plan of plans) {
        if (plan.action === 'unchanged') continue;
        try {
          await this.apply(plan, options.by, scope);
        } catch (error) {
          if (!(error instanceof FpaError)) throw error;
          errors.push({ line: plan.row.line, message: error.message });
          plan.action = 'unchanged';
          plan.fields = {};
        }
      }
    }
    const stored = plans.filter((p) => !errors.some((e) => e.line === p.row.line));
    errors.sort((a, b) => a.line - b.line);
    return {
      dry_run: options.dryRun,
      created: stored.filter((p) => p.action === 'create').length,
      updated: stored.filter((p) => p.action === 'update').length,
      unchanged: stored.filter((p) => p.action === 'unchanged').length,
      errors,
      changes: stored.map((p) => ({ line: p.row.line, employee: p.row.id, name: p.row.name, action: p.action, fields: p.fields })),
    };
  }

  /** Why a line cannot be used, in plain words; null when it can. */
  private async problemOf(q: Queryable, row: PersonRow, employee: { active: boolean } | undefined, enrollee: EnrolleeRow | null): Promise<string | null> {
    if (employee && !employee.active) return `the employee ${row.id} is inactive in the directory`;
    for (const area of row.areas ?? []) {
      if (area !== 'default' && !this.ctx.settings.AREAS_CREATED_ON_USE && !(await areaIdOf(q, area))) {
        const close = await closeAreaName(q, area);
        return `there is no area named "${area}"${close ? ` (did you mean "${close}"?)` : ''}; create it first on the Areas page`;
      }
    }
    if (row.card !== undefined && row.card !== enrollee?.card) {
      try {
        await this.enrollees.changes.checkCardFree(q, row.card, enrollee?.id ?? null);
      } catch (error) {
        if (error instanceof FpaError && error.code === 'conflict') return `the card ${row.card} belongs to someone else`;
        throw error;
      }
    }
    return null;
  }

  /** Stores one line: the employee and the enrollee in one transaction (the person still in the caller's scope there). */
  private async apply(plan: Plan, by: string, scope: AreaScope): Promise<void> {
    const { row } = plan;
    await this.ctx.db.write(async (w) => {
      if (!plan.employeeExists || plan.fields.name) await this.employees.putIn(w.tx, { id: row.id, name: row.name });
      if (!plan.enrollee) {
        // The scope names no one outside it in a conflict met here (a card taken since the plan).
        await this.enrollees.changes.createIn(w, { key: row.id, displayName: row.name, active: true }, { areas: row.areas, card: row.card ?? null, by, scope });
        return;
      }
      const patch = {
        ...(plan.fields.name ? { display_name: row.name } : {}),
        ...(plan.fields.areas ? { areas: row.areas } : {}),
        ...(plan.fields.card ? { card: row.card } : {}),
      };
      if (Object.keys(patch).length > 0) await this.enrollees.changes.updateIn(w, plan.enrollee.id, patch, by, scope);
    });
  }
}

/**
 * A line as a caller limited to some areas may import it (the row, with the caller's areas for a
 * new person who names none), or why it may not; an unlimited caller's lines pass as they are.
 * `enrolledIn`: the areas of the person already enrolled under the line's id (null: nobody is);
 * `inDirectory`: the id is in the employee directory already.
 *
 * An employee of the directory not enrolled yet is no area's (README, "Areas, precisely"): a
 * limited caller neither renames them there nor learns their name from a dry run; it enrolls
 * them one by one (People), as the directory has them.
 */
function scopeProblem(scope: AreaScope, row: PersonRow, person: { enrolledIn: readonly string[] | null; inDirectory: boolean }): PersonRow | string {
  if (!isLimited(scope)) return row;
  const yours = scope.areas.join(', ');
  // The same check as areasWithin's, said for one line of a file (areasWithin refuses the whole request).
  const outside = areasOutside(scope, row.areas ?? []);
  if (outside.length > 0) return `the areas ${outside.join(', ')} are not yours: you may import into ${yours}`;
  const { enrolledIn } = person;
  if (enrolledIn !== null && !coversAny(scope, enrolledIn)) return `${row.id} is enrolled outside your areas (${yours}): ask an administrator of their area`;
  if (enrolledIn === null && person.inDirectory)
    return `${row.id} is in the employee directory but not enrolled: enroll them on the People page, or ask an administrator`;
  if (enrolledIn === null && row.areas === undefined) return { ...row, areas: [...scope.areas] };
  // Someone also in other areas keeps those, as on their page (areasAfterSetting).
  if (enrolledIn !== null && row.areas !== undefined) return { ...row, areas: areasAfterSetting(scope, row.areas, enrolledIn) };
  return row;
}

/** What a good line changes, field by field (before and after). */
function planOf(row: PersonRow, employee: { name: string } | undefined, enrollee: EnrolleeRow | null, areas: readonly string[]): Plan {
  const fields: Change['fields'] = {};
  if (!enrollee) {
    fields.name = { from: employee?.name ?? null, to: row.name };
    fields.areas = { from: null, to: (row.areas ?? ['default']).join('; ') };
    if (row.card !== undefined) fields.card = { from: null, to: row.card };
    return { row, action: 'create', employeeExists: employee !== undefined, enrollee, fields };
  }
  const currentName = employee?.name ?? enrollee.displayName;
  if (row.name !== currentName || row.name !== enrollee.displayName) fields.name = { from: enrollee.displayName, to: row.name };
  if (row.card !== undefined && row.card !== enrollee.card) fields.card = { from: enrollee.card, to: row.card };
  const same = row.areas === undefined || (row.areas.length === areas.length && row.areas.every((a) => areas.includes(a)));
  if (!same) fields.areas = { from: areas.join('; '), to: (row.areas ?? []).join('; ') };
  return { row, action: Object.keys(fields).length > 0 ? 'update' : 'unchanged', employeeExists: employee !== undefined, enrollee, fields };
}
