/**
 * The built-in employee directory's records (`employees/`), for a standalone service without a
 * host user model; and the employee model recorded at the first migration (fpa.E010).
 *
 * A leaver is deactivated (`PATCH employees/{id}/ {"active": false}`): no longer offered for
 * enrollment nor enrolled again until reactivated. Their entry keeps the name until it is erased
 * (`DELETE employees/{id}/`, or retention once inactive past its horizon): the reports name
 * people from their own records (the person's tombstone), never from here.
 */
import { and, asc, type Column, eq, gt, inArray, isNotNull, lt, not, or, type SQL, sql } from 'drizzle-orm';
import { chunks } from '../../platform/chunks';
import type { Database, Queryable, Tx } from '../../platform/db/client';
import { FpaError } from '../../platform/errors';
import { type Page, pageOf, textCursor } from '../../platform/http/paging';
import { type AreaScope, EVERYWHERE, isLimited } from '../../platform/scope';
import { audit } from '../audit';
import type { EmployeeDirectory } from './directory';
import type { EmployeeView } from './model';
import type { EmployeeRuntime } from './runtime';
import { employees, meta } from './tables';

type EmployeeRow = typeof employees.$inferSelect;

/** A condition on an employee key column: the employee has a person in the scope's areas (the enrollees module knows). */
export type EmployeeScope = (column: Column, scope: AreaScope) => SQL | undefined;
/** A condition on an employee key column about the people enrolled for the employee (the enrollees module knows). */
export type EmployeeEnrolled = (column: Column) => SQL;

/** What the enrollees module tells of the people enrolled for employees (src/app/reactions.ts). */
export interface EmployeePeople {
  /** A person of theirs, not deleted, is in the scope's areas (undefined: an unlimited scope). */
  inScope: EmployeeScope;
  /** A person of theirs, deleted ones too, is or was in the scope's areas: who may deactivate the entry of someone they deleted. */
  everInScope: EmployeeScope;
  /** A person (not deleted) is enrolled for them. */
  enrolled: EmployeeEnrolled;
  /** An active person is enrolled for them. */
  active: EmployeeEnrolled;
}

/** Rows erased per write by retention. */
const ERASE_BATCH = 500;

export class EmployeeService {
  /** Until set (src/app/reactions.ts), a limited scope sees no employee, and nobody is enrolled. */
  private people: EmployeePeople = {
    inScope: (_column, scope) => (isLimited(scope) ? sql`0` : undefined),
    everInScope: (_column, scope) => (isLimited(scope) ? sql`0` : undefined),
    enrolled: () => sql`0`,
    active: () => sql`0`,
  };

  constructor(
    private readonly ctx: EmployeeRuntime,
    private readonly directory: EmployeeDirectory,
  ) {}

  /** How a caller's areas reach employees, and how an employee is known to be enrolled: through the people enrolled for them. */
  peopleBy(people: EmployeePeople): void {
    this.people = people;
  }

  /**
   * A caller limited to areas sees the employees who have a person (enrollee) in them.
   * `enrolled`: false, only those with no person (the People page's "not enrolled yet", a page
   * at a time by id however many are enrolled, with `active`: true); true, only those with one.
   * `active`: true, only the active (who may be enrolled); false, only the leavers.
   */
  async list(options: { cursor?: string; limit: number; enrolled?: boolean; active?: boolean }, scope: AreaScope = EVERYWHERE): Promise<Page<EmployeeView>> {
    this.builtinOnly();
    const after = textCursor('employees', options.cursor);
    const enrolled = this.people.enrolled(employees.id);
    const rows = await this.ctx.db.orm
      .select()
      .from(employees)
      .where(
        and(
          after !== null ? gt(employees.id, after) : undefined,
          this.seenBy(scope),
          options.enrolled === undefined ? undefined : options.enrolled ? enrolled : not(enrolled),
          options.active === undefined ? undefined : eq(employees.active, options.active),
        ),
      )
      .orderBy(asc(employees.id))
      .limit(options.limit + 1);
    return pageOf(
      'employees',
      rows,
      options.limit,
      (r) => r.id,
      (page) => page.map(employeeView),
    );
  }

  async get(id: string, scope: AreaScope = EVERYWHERE): Promise<EmployeeView> {
    this.builtinOnly();
    const [row] = await this.ctx.db.orm
      .select()
      .from(employees)
      .where(and(eq(employees.id, id), this.seenBy(scope)))
      .limit(1);
    if (!row) throw new FpaError('not_found', 'employee not found', { employee: id });
    return employeeView(row);
  }

  /**
   * The employees a caller sees: those of a person in its areas, and, once inactive, those of a
   * person who was (a branch that deleted someone finds the entry it deactivated, to reactivate or
   * erase it, as it may change it: `changeable`).
   */
  private seenBy(scope: AreaScope): SQL | undefined {
    const now = this.people.inScope(employees.id, scope);
    if (now === undefined) return undefined;
    return or(now, and(eq(employees.active, false), this.people.everInScope(employees.id, scope)));
  }

  /**
   * A leaver deactivated (`active: false`), or back (`true`), audited. Refused while a person of
   * theirs is active (deactivate or delete the person first: the terminals follow the person). A
   * caller limited to areas changes the employees whose person is, or was, in them.
   */
  async setActive(id: string, active: boolean, by: string, scope: AreaScope = EVERYWHERE): Promise<EmployeeView> {
    this.builtinOnlyToChange();
    return this.ctx.db.write(async ({ tx }) => {
      const row = await this.changeable(tx, id, scope);
      if (row.active === active) return employeeView(row);
      if (!active) {
        const [person] = await tx
          .select({ id: employees.id })
          .from(employees)
          .where(and(eq(employees.id, id), this.people.active(employees.id)));
        if (person) {
          throw new FpaError('conflict', `${id} is enrolled and active: deactivate or delete the person first (People), then the employee`, {
            employee: id,
            reason: 'person_active',
          });
        }
      }
      const now = this.ctx.clock.now();
      const changed = { ...row, active, deactivatedAt: active ? null : now };
      await tx.update(employees).set({ active, deactivatedAt: changed.deactivatedAt }).where(eq(employees.id, id));
      await audit(tx, now, {
        actor: by,
        action: active ? 'employee.reactivated' : 'employee.deactivated',
        targetType: 'employee',
        targetId: id,
        details: { employee: id },
      });
      return employeeView(changed);
    });
  }

  /**
   * Erases an employee from the directory (`DELETE employees/{id}/`): their name goes, audited by
   * id only. Refused while a person is enrolled for them (delete the person first). What the
   * reports show of the dates they worked comes from the person's own record, not from here.
   */
  async erase(id: string, by: string, scope: AreaScope = EVERYWHERE): Promise<void> {
    this.builtinOnlyToChange();
    await this.ctx.db.write(async ({ tx }) => {
      await this.changeable(tx, id, scope);
      const [person] = await tx
        .select({ id: employees.id })
        .from(employees)
        .where(and(eq(employees.id, id), this.people.enrolled(employees.id)));
      if (person) {
        throw new FpaError('conflict', `a person is enrolled for ${id}: delete the person first (People), then erase the employee`, {
          employee: id,
          reason: 'person_enrolled',
        });
      }
      await tx.delete(employees).where(eq(employees.id, id));
      await audit(tx, this.ctx.clock.now(), { actor: by, action: 'employee.erased', targetType: 'employee', targetId: id, details: { employee: id } });
    });
  }

  /**
   * Retention: the employees inactive since before `cutoff` for whom nobody is enrolled any more
   * are erased, a batch a write; how many. A host's directory lives outside this database: none.
   */
  async eraseInactiveBefore(cutoff: number): Promise<number> {
    if (this.directory.model !== 'builtin') return 0;
    let erased = 0;
    for (;;) {
      const n = await this.ctx.db.write(async ({ tx }) => {
        const due = tx
          .select({ id: employees.id })
          .from(employees)
          .where(
            and(eq(employees.active, false), isNotNull(employees.deactivatedAt), lt(employees.deactivatedAt, cutoff), not(this.people.enrolled(employees.id))),
          )
          .limit(ERASE_BATCH);
        const rows = await tx.delete(employees).where(inArray(employees.id, due)).returning({ id: employees.id });
        return rows.length;
      });
      erased += n;
      if (n < ERASE_BATCH) return erased;
    }
  }

  /** A new entry, audited (`employee.created`); an id already there is 409, saying if it is inactive. */
  async create(input: { id: string; name: string; active?: boolean }, by: string): Promise<EmployeeView> {
    this.builtinOnly();
    const now = this.ctx.clock.now();
    const active = input.active ?? true;
    const row = { id: input.id.trim(), name: input.name.trim(), active, createdAt: now, deactivatedAt: active ? null : now };
    if (!row.id || !row.name) throw new FpaError('validation_error', 'id and name must not be blank', { fields: ['id', 'name'] });
    await this.ctx.db.write(async ({ tx }) => {
      const [exists] = await tx.select({ id: employees.id, active: employees.active }).from(employees).where(eq(employees.id, row.id)).limit(1);
      if (exists) {
        const inactive = exists.active ? '' : ' (inactive: reactivate them with PATCH employees/{id}/ {"active": true})';
        throw new FpaError('conflict', `an employee with this id exists${inactive}`, { employee: row.id, active: exists.active });
      }
      await tx.insert(employees).values(row);
      await audit(tx, now, { actor: by, action: 'employee.created', targetType: 'employee', targetId: row.id, details: { employee: row.id } });
    });
    return employeeView(row);
  }

  /** Built-in employees by id (the import compares its file with them). */
  async byIds(q: Queryable, ids: readonly string[]): Promise<Map<string, { id: string; name: string; active: boolean }>> {
    this.builtinOnly();
    const out = new Map<string, { id: string; name: string; active: boolean }>();
    for (const chunk of chunks([...new Set(ids)], 500)) {
      for (const row of await q.select().from(employees).where(inArray(employees.id, chunk))) out.set(row.id, row);
    }
    return out;
  }

  /** Adds an employee or renames one, inside the caller's write (the import). */
  async putIn(tx: Tx, employee: { id: string; name: string }): Promise<void> {
    this.builtinOnly();
    await tx
      .insert(employees)
      .values({ id: employee.id, name: employee.name, active: true, createdAt: this.ctx.clock.now() })
      .onConflictDoUpdate({ target: employees.id, set: { name: employee.name } });
  }

  /** The employee, if the caller may change it (their person is, or was, in its areas), else `not_found`. */
  private async changeable(tx: Tx, id: string, scope: AreaScope): Promise<EmployeeRow> {
    const [row] = await tx
      .select()
      .from(employees)
      .where(and(eq(employees.id, id), this.people.everInScope(employees.id, scope)))
      .limit(1);
    if (!row) throw new FpaError('not_found', 'employee not found', { employee: id });
    return row;
  }

  private builtinOnly(): void {
    if (this.directory.model !== 'builtin') {
      throw new FpaError('not_found', 'employees come from the host application here, not from this service', {});
    }
  }

  /** A change to a host's directory is the host's to make: 409, saying so (a read of it is 404: there is none here). */
  private builtinOnlyToChange(): void {
    if (this.directory.model !== 'builtin') {
      throw new FpaError(
        'conflict',
        'employees come from the host application here: deactivate, reactivate or remove them there (the service reads them from it)',
        { reason: 'host_directory' },
      );
    }
  }
}

function employeeView(row: EmployeeRow): EmployeeView {
  return {
    id: row.id,
    name: row.name,
    active: row.active,
    created_at: new Date(row.createdAt).toISOString(),
    deactivated_at: row.deactivatedAt === null ? null : new Date(row.deactivatedAt).toISOString(),
  };
}

/** Records the employee model at the first migration; returns what was recorded. */
export async function recordEmployeeModel(db: Database, model: string): Promise<string> {
  return db.write(async ({ tx }) => {
    await tx.insert(meta).values({ key: 'employee_model', value: model }).onConflictDoNothing();
    const [row] = await tx.select().from(meta).where(eq(meta.key, 'employee_model')).limit(1);
    return row!.value;
  });
}

/** The employee model recorded at the first migration, read without migrating anything (fpa:check). */
export async function recordedEmployeeModel(db: Database): Promise<string | null> {
  try {
    const [row] = await db.orm.select().from(meta).where(eq(meta.key, 'employee_model')).limit(1);
    return row?.value ?? null;
  } catch {
    // Not migrated yet: nothing recorded.
    return null;
  }
}
