/**
 * The built-in employee directory's records (`employees/`), for a standalone service without a
 * host user model; and the employee model recorded at the first migration (fpa.E010).
 */
import { and, asc, type Column, eq, gt, inArray, not, type SQL, sql } from 'drizzle-orm';
import { chunks } from '../../platform/chunks';
import type { Database, Queryable, Tx } from '../../platform/db/client';
import { FpaError } from '../../platform/errors';
import { type Page, pageOf, textCursor } from '../../platform/http/paging';
import { type AreaScope, EVERYWHERE, isLimited } from '../../platform/scope';
import type { EmployeeDirectory } from './directory';
import type { EmployeeView } from './model';
import type { EmployeeRuntime } from './runtime';
import { employees, meta } from './tables';

type EmployeeRow = typeof employees.$inferSelect;

/** A condition on an employee key column: the employee has a person in the scope's areas (the enrollees module knows). */
export type EmployeeScope = (column: Column, scope: AreaScope) => SQL | undefined;
/** A condition on an employee key column: a person (enrollee, not deleted) is enrolled for the employee (the enrollees module knows). */
export type EmployeeEnrolled = (column: Column) => SQL;

export class EmployeeService {
  /** Until set (src/app/modules.ts), a limited scope sees no employee. */
  private inScope: EmployeeScope = (_column, scope) => (isLimited(scope) ? sql`0` : undefined);
  /** Until set (src/app/reactions.ts), nobody is enrolled. */
  private enrolled: EmployeeEnrolled = () => sql`0`;

  constructor(
    private readonly ctx: EmployeeRuntime,
    private readonly directory: EmployeeDirectory,
  ) {}

  /** How a caller's areas reach employees: through the people enrolled for them. */
  scopeBy(inScope: EmployeeScope): void {
    this.inScope = inScope;
  }

  /** How an employee is known to be enrolled: a person of theirs, not deleted. */
  enrolledBy(enrolled: EmployeeEnrolled): void {
    this.enrolled = enrolled;
  }

  /**
   * A caller limited to areas sees the employees who have a person (enrollee) in them.
   * `enrolled`: false, only those with no person (the People page's "not enrolled yet", a page
   * at a time by id however many are enrolled); true, only those with one.
   */
  async list(options: { cursor?: string; limit: number; enrolled?: boolean }, scope: AreaScope = EVERYWHERE): Promise<Page<EmployeeView>> {
    this.builtinOnly();
    const after = textCursor('employees', options.cursor);
    const enrolled = options.enrolled === undefined ? undefined : options.enrolled ? this.enrolled(employees.id) : not(this.enrolled(employees.id));
    const rows = await this.ctx.db.orm
      .select()
      .from(employees)
      .where(and(after !== null ? gt(employees.id, after) : undefined, this.inScope(employees.id, scope), enrolled))
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
      .where(and(eq(employees.id, id), this.inScope(employees.id, scope)))
      .limit(1);
    if (!row) throw new FpaError('not_found', 'employee not found', { employee: id });
    return employeeView(row);
  }

  async create(input: { id: string; name: string; active?: boolean }): Promise<EmployeeView> {
    this.builtinOnly();
    const row = { id: input.id.trim(), name: input.name.trim(), active: input.active ?? true, createdAt: this.ctx.clock.now() };
    if (!row.id || !row.name) throw new FpaError('validation_error', 'id and name must not be blank', { fields: ['id', 'name'] });
    await this.ctx.db.write(async ({ tx }) => {
      const [exists] = await tx.select({ id: employees.id }).from(employees).where(eq(employees.id, row.id)).limit(1);
      if (exists) throw new FpaError('conflict', 'an employee with this id exists', { employee: row.id });
      await tx.insert(employees).values(row);
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

  private builtinOnly(): void {
    if (this.directory.model !== 'builtin') {
      throw new FpaError('not_found', 'employees come from the host application here, not from this service', {});
    }
  }
}

function employeeView(row: EmployeeRow): EmployeeView {
  return { id: row.id, name: row.name, active: row.active, created_at: new Date(row.createdAt).toISOString() };
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
