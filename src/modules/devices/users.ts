/**
 * What each terminal holds: its users as it reported them or as the service sent them
 * (`fpa_device_users`). The rest of the fleet logic (adoption, conflicts, resync) reads and
 * writes this through here.
 */
import { and, eq, getTableName, inArray, type SQL, sql } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { chunks } from '../../platform/chunks';
import type { Execute, Queryable, Tx } from '../../platform/db/client';
import { selectAsJson } from '../../platform/db/json-results';
import { placeholders } from '../../platform/db/placeholders';
import { withoutControls } from '../../platform/records';
import { UserDepartures } from './departures';
import type { DeviceRuntime } from './runtime';
import { deviceUsers } from './tables';
import { KeptCredentialsOf, sealTerminalPassword } from './user-passwords';

export type DeviceUserRow = typeof deviceUsers.$inferSelect;

/** One page of a terminal's users (DeviceUsers.of). */
export interface UsersPage {
  /** The PIN of the last user of the page before; null for the first page. */
  after: string | null;
  limit: number;
  /** A condition on the users' enrollee column leaving out those the caller may not see (undefined: none). */
  visible?: (enrollee: typeof deviceUsers.enrolleeId) => SQL | undefined;
}

/**
 * Numeric PIN order, as sort keys of a PIN: the all-digit PINs first, by value (1, 2, 10, 11,
 * 10020), then those with another character, by their leading number; the text last, so that
 * every PIN has one place (`007` before `7`).
 */
const pinOrder = (pin: SQLiteColumn | SQL): [SQL, SQL, SQLiteColumn | SQL] => [sql`${pin} glob '*[^0-9]*'`, sql`cast(${pin} as integer)`, pin];

/**
 * An inventory marks a user held before unless the service made them an enrollee there, or the
 * row was there before the inventory was asked for (a terminal approved again: its users of
 * then are not what it held before the service knew it).
 */
const heldBeforeIfNew = (since: number) =>
  sql`case when ${deviceUsers.enrolleeId} is null and ${deviceUsers.updatedAt} >= ${since} then 1 else ${deviceUsers.heldBefore} end`;

/** Parts by type, without one index of a type (or every one: null). */
function without(parts: Record<string, number[]>, type: string, index: number | null): Record<string, number[]> {
  const kept = index === null ? [] : (parts[type] ?? []).filter((i) => i !== index);
  const out = { ...parts, [type]: kept };
  if (kept.length === 0) delete out[type];
  return out;
}

/** The enrollees of these users (the terminal's own users are nobody). */
function linkedIn(users: readonly { enrolleeId: string | null }[]): string[] {
  return users.flatMap((u) => (u.enrolleeId === null ? [] : [u.enrolleeId]));
}

/** A terminal's user with one PIN, as `holding` finds it: who it is, how it got there, what it holds. */
export type HeldUser = Pick<DeviceUserRow, 'deviceId' | 'pin' | 'enrolleeId' | 'source' | 'biometrics'>;

/** A user as a terminal reports it (OPERLOG `USER`, 3.x `user` table, query results). */
export interface ReportedUser {
  pin: string;
  name?: string | null;
  card?: string | null;
  privilege?: number | null;
  /** As the terminal sent it, in clear: '' it has none; undefined the record did not say (what was known is kept). Sealed before it is stored. */
  password?: string;
}

export class DeviceUsers {
  /** The privilege and password a terminal reported for its users linked to enrollees, kept in their records (user-passwords.ts). */
  readonly credentials: KeptCredentialsOf;
  /** When people's users left each terminal (departures.ts): written here as they go. */
  readonly departures: UserDepartures;

  constructor(private readonly ctx: DeviceRuntime) {
    this.credentials = new KeptCredentialsOf(ctx);
    this.departures = new UserDepartures(ctx);
  }

  /** Runs a raw read outside a transaction. */
  readonly read: Execute = (statement) => this.ctx.db.client.execute(statement);

  /**
   * Users a terminal reported; a user the service sent keeps its enrollee. `inventorySince`: the
   * report is the terminal's inventory asked for then (what it held before the service knew it),
   * kept on the users it reports that are not an enrollee here, new ones and those first seen
   * since then by a punch or a template.
   */
  async reported(tx: Tx, deviceId: string, users: readonly ReportedUser[], options: { inventorySince?: number | null } = {}): Promise<void> {
    const since = options.inventorySince ?? null;
    const now = this.ctx.clock.now();
    for (const u of users) {
      const password =
        u.password === undefined ? {} : { password: u.password === '' ? null : await sealTerminalPassword(this.ctx.keyRing, deviceId, u.pin, u.password) };
      // A terminal's name may hold control characters (the API refuses them in names): stored without.
      const name = u.name == null ? null : withoutControls(u.name);
      await tx
        .insert(deviceUsers)
        .values({
          deviceId,
          pin: u.pin,
          name,
          card: u.card ?? null,
          privilege: u.privilege ?? null,
          ...password,
          biometrics: {},
          enrolleeId: null,
          source: 'reported',
          heldBefore: since !== null,
          updatedAt: now,
        })
        .onConflictDoUpdate({
          target: [deviceUsers.deviceId, deviceUsers.pin],
          set: {
            name,
            card: u.card ?? null,
            privilege: u.privilege ?? null,
            ...password,
            updatedAt: now,
            ...(since !== null ? { heldBefore: heldBeforeIfNew(since) } : {}),
          },
        });
    }
  }

  /** PINs that punched on the terminal without being an enrollee there: its users, even if it never reported them. */
  async seen(tx: Tx, deviceId: string, pins: readonly string[]): Promise<void> {
    const now = this.ctx.clock.now();
    for (const chunk of chunks(pins, 100)) {
      await tx
        .insert(deviceUsers)
        .values(
          chunk.map((pin) => ({
            deviceId,
            pin,
            name: null,
            card: null,
            privilege: null,
            biometrics: {},
            enrolleeId: null,
            source: 'reported' as const,
            updatedAt: now,
          })),
        )
        .onConflictDoNothing();
    }
  }

  /**
   * The service put this enrollee's user record on the terminal (the terminal confirmed it). A
   * user the terminal had before and that is theirs (adopted, or linked by a walk-up) stays
   * `reported`: it may hold biometrics of theirs the service has not. One it listed as its own
   * user, linked to nobody, that the record went over (it reported the user between the send and
   * the answer) becomes `sent`: the name is theirs now, the fingers there are not known to be, so
   * consent never fetches them as theirs (fleet/resync.ts `fetchTemplatesOf`).
   */
  async sent(tx: Tx, deviceId: string, user: { pin: string; name: string; card: string | null; enrolleeId: string }): Promise<void> {
    const now = this.ctx.clock.now();
    await tx
      .insert(deviceUsers)
      .values({
        deviceId,
        pin: user.pin,
        name: user.name,
        card: user.card,
        privilege: 0,
        biometrics: {},
        enrolleeId: user.enrolleeId,
        source: 'sent',
        updatedAt: now,
      })
      .onConflictDoUpdate({
        target: [deviceUsers.deviceId, deviceUsers.pin],
        set: {
          name: user.name,
          card: user.card,
          enrolleeId: user.enrolleeId,
          source: sql`case when ${deviceUsers.enrolleeId} is null then 'sent' else ${deviceUsers.source} end`,
          updatedAt: now,
        },
      });
  }

  /**
   * A biometric the terminal holds for one of its users (a template it uploaded, or one the
   * service sent it that it confirmed): kept as the indexes it holds per type, so an upload sent
   * twice counts once. `sentFor`: the service's own template of this enrollee, which the terminal
   * took (an `update_template` answered Return=0): the user it went to is theirs, linked as the
   * answer to their user record links it (`sent`), also when that answer is late or lost: never
   * a user linked to nobody holding their finger.
   */
  async noteBiometric(
    tx: Tx,
    deviceId: string,
    pin: string,
    type: string,
    index: number,
    options: { inventorySince?: number | null; sentFor?: string } = {},
  ): Promise<void> {
    const now = this.ctx.clock.now();
    const since = options.inventorySince ?? null;
    const sentFor = options.sentFor ?? null;
    const existing = await this.one(tx, deviceId, pin);
    if (!existing) {
      await tx.insert(deviceUsers).values({
        deviceId,
        pin,
        name: null,
        card: null,
        privilege: null,
        biometrics: { [type]: [index] },
        enrolleeId: sentFor,
        source: sentFor === null ? 'reported' : 'sent',
        heldBefore: since !== null,
        updatedAt: now,
      });
      return;
    }
    const held = existing.biometrics[type] ?? [];
    const marksHeld = since !== null && !existing.heldBefore && existing.enrolleeId === null && existing.updatedAt >= since;
    const links = sentFor !== null && existing.enrolleeId === null;
    if (held.includes(index) && !marksHeld && !links) return;
    const biometrics = held.includes(index) ? existing.biometrics : { ...existing.biometrics, [type]: [...held, index].sort((a, b) => a - b) };
    await tx
      .update(deviceUsers)
      .set({ biometrics, updatedAt: now, ...(marksHeld ? { heldBefore: true } : {}), ...(links ? { enrolleeId: sentFor, source: 'sent' as const } : {}) })
      .where(and(eq(deviceUsers.deviceId, deviceId), eq(deviceUsers.pin, pin)));
  }

  /** The terminal confirmed a delete of biometrics (one index, or every one of the type): gone from what it holds and from what was refused there. */
  async dropBiometric(tx: Tx, deviceId: string, pin: string, type: string, index: number | null): Promise<void> {
    const existing = await this.one(tx, deviceId, pin);
    if (!existing?.biometrics[type] && !existing?.refused[type]) return;
    await tx
      .update(deviceUsers)
      .set({ biometrics: without(existing.biometrics, type, index), refused: without(existing.refused, type, index), updatedAt: this.ctx.clock.now() })
      .where(and(eq(deviceUsers.deviceId, deviceId), eq(deviceUsers.pin, pin)));
  }

  /**
   * The user is no longer on the terminal (a delete it confirmed). `putBack`: the service puts the
   * user back (its record is queued behind the delete and goes once this answer came: enrollment/fan-out.ts
   * `clearWhatWasNotStored`), so every biometric it held there is gone but the user stays known,
   * linked as before, with the privilege and password its terminal gave it, which the record put
   * back keeps. A user who was someone goes with the time they left (departures.ts): what the
   * terminal logged for them until then is still theirs when it is uploaded later.
   */
  async removed(tx: Tx, deviceId: string, pin: string, options: { putBack?: boolean } = {}): Promise<void> {
    const where = and(eq(deviceUsers.deviceId, deviceId), eq(deviceUsers.pin, pin));
    if (options.putBack) {
      await tx.update(deviceUsers).set({ biometrics: {}, refused: {}, refusedFor: null, updatedAt: this.ctx.clock.now() }).where(where);
      return;
    }
    const gone = await tx.delete(deviceUsers).where(where).returning({ enrolleeId: deviceUsers.enrolleeId });
    await this.departures.record(tx, deviceId, linkedIn(gone));
  }

  /** The terminal was cleared (CLEAR DATA) or removed. */
  async clear(tx: Tx, deviceId: string): Promise<void> {
    const gone = await tx.delete(deviceUsers).where(eq(deviceUsers.deviceId, deviceId)).returning({ enrolleeId: deviceUsers.enrolleeId });
    await this.departures.record(tx, deviceId, linkedIn(gone));
  }

  /**
   * The terminal's user with this PIN is this enrollee: an administrator adopted it, or the
   * enrollee enrolled there before their user record arrived (walk-up).
   */
  async link(tx: Tx, deviceId: string, pin: string, enrolleeId: string): Promise<void> {
    const now = this.ctx.clock.now();
    await tx
      .insert(deviceUsers)
      .values({ deviceId, pin, name: null, card: null, privilege: null, biometrics: {}, enrolleeId, source: 'reported', updatedAt: now })
      .onConflictDoUpdate({ target: [deviceUsers.deviceId, deviceUsers.pin], set: { enrolleeId, updatedAt: now } });
  }

  /**
   * A terminal's users in PIN order, numerically (1, 11, 10020; a PIN with letters after the
   * numbers); all of them, or one `page`: those after the user with PIN `after` (keyset: a PIN is
   * unique on a terminal and the database works out its place from it, so a PIN too long for a
   * JavaScript number keeps its place), at most `limit`. `visible` leaves out the users a caller
   * may not see, by their enrollee column, before the page is cut.
   */
  async of(q: Queryable, deviceId: string, page?: UsersPage): Promise<DeviceUserRow[]> {
    const after = page?.after ?? null;
    const rows = q
      .select()
      .from(deviceUsers)
      .where(
        and(
          eq(deviceUsers.deviceId, deviceId),
          after === null ? undefined : sql`(${sql.join(pinOrder(deviceUsers.pin), sql`, `)}) > (${sql.join(pinOrder(sql`${after}`), sql`, `)})`,
          page?.visible?.(deviceUsers.enrolleeId),
        ),
      )
      .orderBy(...pinOrder(deviceUsers.pin));
    return page ? rows.limit(page.limit) : rows;
  }

  /** The terminal users linked to this enrollee, on every terminal. */
  async linkedTo(q: Queryable, enrolleeId: string): Promise<DeviceUserRow[]> {
    return q.select().from(deviceUsers).where(eq(deviceUsers.enrolleeId, enrolleeId));
  }

  async one(q: Queryable, deviceId: string, pin: string): Promise<DeviceUserRow | null> {
    const [row] = await q
      .select()
      .from(deviceUsers)
      .where(and(eq(deviceUsers.deviceId, deviceId), eq(deviceUsers.pin, pin)));
    return row ?? null;
  }

  /** Of these PINs, those the terminal holds unlinked and did not hold before the service knew it (candidates for the enrollee with the PIN). */
  async unlinkedSince(execute: Execute, deviceId: string, pins: readonly string[]): Promise<Set<string>> {
    const out = new Set<string>();
    for (const chunk of chunks(pins, 500)) {
      const rows = await execute({
        sql: `select pin from ${getTableName(deviceUsers)} where device_id = ? and enrollee_id is null and held_before = 0 and pin in (${placeholders(chunk.length)})`,
        args: [deviceId, ...chunk],
      });
      for (const r of rows.rows) out.add(String(r.pin));
    }
    return out;
  }

  /**
   * For these PINs the terminal holds: the enrollee each is (null: the terminal's own user).
   * Raw SQL: every upload asks this for up to hundreds of PINs, where the query builder's
   * binding cost more than the lookup (and reading the rows one by one more than finding them:
   * platform/db/json-results.ts).
   */
  async enrolleesOf(execute: Execute, deviceId: string, pins: readonly string[]): Promise<Map<string, string | null>> {
    const out = new Map<string, string | null>();
    for (const chunk of chunks(pins, 500)) {
      const rows = await selectAsJson<[string, string | null]>(
        execute,
        ['pin', 'enrollee_id'],
        `select pin, enrollee_id from ${getTableName(deviceUsers)} where device_id = ? and pin in (select value from json_each(?))`,
        [deviceId, JSON.stringify(chunk)],
      );
      for (const [pin, enrollee] of rows) out.set(pin, enrollee);
    }
    return out;
  }

  /**
   * Of these terminals, their users with these PINs: who each is (`enrolleeId` null: the
   * terminal's own user). A person is neither written nor deleted under their PIN where it is
   * someone else (enrollment/fan-out.ts `withoutConflicts`, enrollment/not-theirs.ts).
   */
  async holding(q: Queryable, deviceIds: readonly string[], pins: readonly string[]): Promise<HeldUser[]> {
    const out: HeldUser[] = [];
    for (const devicesChunk of chunks(deviceIds, 400)) {
      for (const pinsChunk of chunks(pins, 400)) {
        out.push(
          ...(await q
            .select({
              deviceId: deviceUsers.deviceId,
              pin: deviceUsers.pin,
              enrolleeId: deviceUsers.enrolleeId,
              source: deviceUsers.source,
              biometrics: deviceUsers.biometrics,
            })
            .from(deviceUsers)
            .where(and(inArray(deviceUsers.deviceId, devicesChunk), inArray(deviceUsers.pin, pinsChunk)))),
        );
      }
    }
    return out;
  }

  /** Whether any terminal holds a user with this PIN (new PINs skip these). */
  async pinKnown(q: Queryable, pin: string): Promise<boolean> {
    const [row] = await q.select({ pin: deviceUsers.pin }).from(deviceUsers).where(eq(deviceUsers.pin, pin)).limit(1);
    return row !== undefined;
  }
}
