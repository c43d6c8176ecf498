/**
 * Signing in with a username and password, and changing one's password. Refused attempts are
 * limited per username and per address (throttle.ts); an unknown or disabled username costs the
 * same Argon2id work as a wrong password, and both answer the same 401.
 *
 * Second factors (the `factors` module) plug in as gates: after the password is right, each gate
 * may answer what the person must still prove (a challenge for the client) instead of a session;
 * the factors module then opens the session with `open` once the second step is done.
 */
import { eq } from 'drizzle-orm';
import { FpaError } from '../../platform/errors';
import type { Caller } from '../../platform/http/caller';
import { audit } from '../audit';
import type { ConsoleService, StartedSession } from '../console';
import { hashPassword, requireStrongPassword, verifyPassword } from './passwords';
import type { UserRuntime } from './runtime';
import type { UsersService } from './service';
import { type UserRow, users } from './tables';
import { SignInThrottle } from './throttle';

/**
 * What a person must still prove after their password (null: nothing): `answer` is sent to the
 * client as is; `cookie` (given the request) is set with it (the second factor's pending state).
 */
export type SignInGate = (user: UserRow) => Promise<PendingSignIn | null>;

export interface PendingSignIn {
  answer: Record<string, unknown>;
  cookie?: (request: Request) => string;
}

export type SignInOutcome = { session: StartedSession } | { pending: PendingSignIn };

export class PasswordSignIn {
  readonly throttle: SignInThrottle;
  private readonly gates: SignInGate[] = [];

  constructor(
    private readonly ctx: UserRuntime,
    private readonly sessions: ConsoleService,
    private readonly users: UsersService,
  ) {
    this.throttle = new SignInThrottle(ctx);
  }

  /** Wired in src/app/modules.ts by the second-factor module. */
  addGate(gate: SignInGate): void {
    this.gates.push(gate);
  }

  /** Checks a username and password (429 when over the limits, 401 when wrong) and opens a session, or says what is still needed. */
  async signIn(username: string, password: string, address: string | null): Promise<SignInOutcome> {
    await this.throttle.check(username, address);
    const [row] = await this.ctx.db.orm.select().from(users).where(eq(users.usernameKey, username.trim().toLowerCase())).limit(1);
    const usable = row && row.disabledAt === null ? row : null;
    if (!(await verifyPassword(password, usable?.passwordHash ?? null)) || !usable) {
      await this.throttle.failed(username, address);
      this.ctx.log.info('console sign-in refused', { username: username.slice(0, 64), address });
      throw new FpaError('unauthorized', 'wrong username or password', {});
    }
    for (const gate of this.gates) {
      // The username's failures are forgotten only once the whole sign-in succeeds: a right
      // password must not reset the count of wrong second-factor codes.
      const pending = await gate(usable);
      if (pending) return { pending };
    }
    await this.throttle.succeeded(username);
    return { session: await this.open(usable, 'password') };
  }

  /** A session for the user `userId` once a gate's second step is done (a second factor, single sign-on); null when the account is gone or disabled. */
  async openById(userId: string, origin: 'password' | 'sso'): Promise<StartedSession | null> {
    const [row] = await this.ctx.db.orm.select().from(users).where(eq(users.id, userId)).limit(1);
    if (!row || row.disabledAt !== null) return null;
    // The person proved who they are (a password and its second step, or the provider and
    // any second step): the username's count of wrong passwords and codes starts again.
    await this.throttle.succeeded(row.username);
    return this.open(row, origin);
  }

  /** A session for a user who has proved who they are. */
  async open(user: UserRow, origin: 'password' | 'invite' | 'sso'): Promise<StartedSession> {
    return this.ctx.db.write(async ({ tx }) => this.sessions.startUserSession(tx, { caller: await this.users.callerOfRow(tx, user), userId: user.id }, origin));
  }

  /**
   * A signed-in user's proof that they are at the keyboard: their current password, asked again
   * before a change that a session left open must not make alone (a new password, a second
   * factor removed, new recovery codes). 403 when wrong; wrong ones count toward a limit of their
   * own (`change`), so an attack on the account's sign-in never blocks its owner here.
   */
  async confirmPassword(userId: string, current: string): Promise<UserRow> {
    const [row] = await this.ctx.db.orm.select().from(users).where(eq(users.id, userId)).limit(1);
    if (!row) throw new FpaError('not_found', 'no such user', {});
    if (row.passwordHash === null) {
      throw new FpaError('forbidden', 'you have no password here (you sign in by single sign-on): ask an administrator for a reset, whose link sets one', {
        field: 'current_password',
        reason: 'no_password',
      });
    }
    await this.throttle.check(row.id, null, 'change');
    if (!(await verifyPassword(current, row.passwordHash))) {
      await this.throttle.failed(row.id, null, 'change');
      throw new FpaError('forbidden', 'the current password is wrong', { field: 'current_password' });
    }
    return row;
  }

  /** Changes the caller's own password; their other sessions end. */
  async changePassword(caller: Caller, current: string, next: string, keepSession: string | null): Promise<void> {
    if (caller.actor.kind !== 'user') throw new FpaError('forbidden', 'only a signed-in user has a password to change', {});
    requireStrongPassword(next, 'new_password');
    const row = await this.confirmPassword(caller.actor.id, current);
    const hash = await hashPassword(next);
    await this.ctx.db.write(async ({ tx }) => {
      const now = this.ctx.clock.now();
      await tx.update(users).set({ passwordHash: hash, passwordChangedAt: now, updatedAt: now }).where(eq(users.id, row.id));
      const ended = await this.sessions.endSessionsOf(tx, row.id, keepSession);
      await audit(tx, now, { actor: caller.by, action: 'user.password_changed', targetType: 'user', targetId: row.id, details: { sessions_ended: ended } });
    });
  }
}
