/** Reading accounts: rows with their area names, and the wire view of a user. */
import { eq, inArray } from 'drizzle-orm';
import type { Queryable } from '../../platform/db/client';
import { FpaError } from '../../platform/errors';
import { namesByMember } from '../areas';
import type { UserView } from './model';
import { type UserRow, userAreas, users } from './tables';

export type SecondFactor = UserView['second_factor'];

/** Which second factor each user has (the `factors` module answers; until then, none). */
export type SecondFactorLookup = (q: Queryable, userIds: readonly string[]) => Promise<Map<string, Exclude<SecondFactor, 'none'>>>;

export const NO_SECOND_FACTORS: SecondFactorLookup = async () => new Map();

export interface UserWithAreas {
  row: UserRow;
  areas: string[];
}

/** Area names of each user. */
export async function areasOfUsers(q: Queryable, ids: readonly string[]): Promise<Map<string, string[]>> {
  if (ids.length === 0) return new Map();
  const pairs = await q
    .select({ member: userAreas.userId, areaId: userAreas.areaId })
    .from(userAreas)
    .where(inArray(userAreas.userId, [...ids]));
  return namesByMember(q, pairs);
}

export async function withAreas(q: Queryable, rows: UserRow[]): Promise<UserWithAreas[]> {
  const areas = await areasOfUsers(
    q,
    rows.map((r) => r.id),
  );
  return rows.map((row) => ({ row, areas: areas.get(row.id) ?? [] }));
}

export async function findUser(q: Queryable, id: string): Promise<UserWithAreas> {
  const [row] = await q.select().from(users).where(eq(users.id, id)).limit(1);
  if (!row) throw new FpaError('not_found', 'no such user', { id });
  const [found] = await withAreas(q, [row]);
  return found!;
}

/** An account as the sign-in modules see it (second factors, single sign-on). */
export interface Account {
  id: string;
  username: string;
  name: string;
  email: string | null;
  role: UserRow['role'];
  disabled: boolean;
  /** False for a user who signs in only by single sign-on and never set a password here. */
  hasPassword: boolean;
}

export const accountOf = (row: UserRow): Account => ({
  id: row.id,
  username: row.username,
  name: row.name,
  email: row.email,
  role: row.role,
  disabled: row.disabledAt !== null,
  hasPassword: row.passwordHash !== null,
});

export function statusOf(row: UserRow): UserView['status'] {
  if (row.disabledAt !== null) return 'disabled';
  return row.passwordHash === null ? 'invited' : 'active';
}

export function userView(user: UserWithAreas, secondFactor: SecondFactor = 'none'): UserView {
  const { row } = user;
  return {
    id: row.id,
    username: row.username,
    name: row.name,
    email: row.email,
    role: row.role,
    areas: user.areas,
    disabled: row.disabledAt !== null,
    status: statusOf(row),
    second_factor: secondFactor,
    created_at: new Date(row.createdAt).toISOString(),
    updated_at: new Date(row.updatedAt).toISOString(),
    created_by: row.createdBy,
  };
}
