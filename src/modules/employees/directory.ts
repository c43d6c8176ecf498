/**
 * Where employees come from. The standalone default is the built-in `fpa_employees` table
 * (administered through /employees/); a host passes its own directory over its user model.
 * Enrollees keep only the employee's lookup value, so the schema never depends on the model.
 */
import { eq } from 'drizzle-orm';
import { BUILTIN_MODEL } from '../../platform/config/check';
import type { Database } from '../../platform/db/client';
import { employees } from './tables';

export interface Employee {
  /** The value of EMPLOYEE_LOOKUP_FIELD: how the API and enrollees refer to this employee. */
  key: string;
  displayName: string;
  active: boolean;
}

export interface EmployeeDirectory {
  /** Name recorded at first migration; a change later is configuration error fpa.E010. */
  readonly model: string;
  /** The fields `find` can look up by; EMPLOYEE_LOOKUP_FIELD outside them is error fpa.E014. */
  readonly lookupFields?: readonly string[];
  /** Finds the employee whose EMPLOYEE_LOOKUP_FIELD has this value. */
  find(key: string): Promise<Employee | null>;
}

/** The built-in table is keyed by the HR system's own id, its only lookup field. */
export const BUILTIN_LOOKUP_FIELDS: readonly string[] = ['id'];

export class BuiltinEmployeeDirectory implements EmployeeDirectory {
  readonly model = BUILTIN_MODEL;
  readonly lookupFields = BUILTIN_LOOKUP_FIELDS;
  constructor(private readonly db: Database) {}

  async find(key: string): Promise<Employee | null> {
    const [row] = await this.db.orm.select().from(employees).where(eq(employees.id, key)).limit(1);
    return row ? { key: row.id, displayName: row.name, active: row.active } : null;
  }
}
