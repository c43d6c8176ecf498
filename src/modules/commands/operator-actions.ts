/**
 * What an operator does with a terminal's commands (`devices/{sn}/commands/`): queue one, cancel,
 * retry, list the queue and look at one command, as the API shows it.
 */
import { and, asc, desc, eq, gt, lt, type SQL, sql } from 'drizzle-orm';
import type { Queryable, WriteContext } from '../../platform/db/client';
import { FpaError } from '../../platform/errors';
import { integerCursor, type Page, pageOf } from '../../platform/http/paging';
import { type AreaScope, EVERYWHERE, isLimited } from '../../platform/scope';
import { audit } from '../audit';
import { refuseIfSharedTerminal } from '../devices';
import type { CommandEndings } from './endings';
import { type CommandKind, type CommandRow, DELETE_KINDS, NEVER_EXPIRES, type NewCommand, type OperatorCommand } from './kinds';
import { type CommandTarget, operatorCommand, refuseUntilApproved } from './operator';
import type { CommandPolls } from './polls';
import type { CommandRuntime } from './runtime';
import { type CommandStatus, deviceCommands } from './tables';
import { type CommandView, commandView } from './views';

/** How the operator's commands join the queue (CommandService.enqueue). */
type Enqueue = (w: WriteContext, commands: NewCommand[]) => Promise<number[]>;

/**
 * Why commands must not be cancelled, by id (those absent may be): asked by `cancel` inside its
 * transaction, and by the queue's list so that no one is offered a cancel bound to fail (a
 * delete that carries out a person's deletion, for one: src/app/reactions.ts wires them).
 */
export type CancelRefusal = (q: Queryable, commands: readonly CommandRow[]) => Promise<Map<number, string>>;

/**
 * Why a failed or expired command must not be sent again (null: it may), asked by `retry` in its
 * transaction: a template write whose template is gone would be dropped unsent at the next poll
 * (src/app/reactions.ts wires it from enrollment).
 */
export type RetryRefusal = (q: Queryable, command: CommandRow) => Promise<string | null>;

/**
 * Kinds that wipe what a terminal holds (or may: raw text is anything): a caller limited to areas
 * sends them only to a terminal wholly within its areas (another area's people are on it too).
 */
const WIPING_KINDS: ReadonlySet<CommandKind> = new Set<CommandKind>(['clear_logs', 'clear_data', 'raw']);

/**
 * A condition on whom a command is about, as its payload names them (`enrollee`, else `pin`):
 * they are in the caller's scope, or it is about no one the service knows; undefined for an
 * unlimited scope. Wired in src/app/reactions.ts from the enrollees' membership.
 */
export type PeopleInScope = (enrollee: SQL, pin: SQL, scope: AreaScope) => SQL | undefined;

/** Until wired: a caller limited to areas sees only the commands that name no person. */
const NOBODY_NAMED: PeopleInScope = (enrollee, pin, scope) => (isLimited(scope) ? sql`(${enrollee} is null and ${pin} is null)` : undefined);

export class OperatorActions {
  private readonly refusals: CancelRefusal[] = [];
  private readonly retryRefusals: RetryRefusal[] = [];
  private peopleInScope: PeopleInScope = NOBODY_NAMED;

  constructor(
    private readonly ctx: CommandRuntime,
    private readonly deps: { enqueue: Enqueue; endings: CommandEndings; polls: CommandPolls },
  ) {}

  /**
   * Wired in src/app/reactions.ts: how a caller's areas reach the people commands are about. A
   * caller limited to areas sees a terminal, but not its commands about other areas' people
   * (their names, PINs, fingers), as `devices/{sn}/users/` leaves their users out: those are not
   * listed, and are 404 to cancel or retry.
   */
  seePeopleBy(people: PeopleInScope): void {
    this.peopleInScope = people;
  }

  /** Wired in src/app/reactions.ts: a rule under which an operator's retry is refused (409, its reason as the message). */
  refuseRetryWhen(refusal: RetryRefusal): void {
    this.retryRefusals.push(refusal);
  }

  /** Wired in src/app/reactions.ts: a rule under which an operator's cancel is refused (409). */
  refuseCancelWhen(refusal: CancelRefusal): void {
    this.refusals.push(refusal);
  }

  /**
   * Cancels a command that has not finished (`pending` or `sent`); a command already finished,
   * or one a refusal rule keeps (refuseCancelWhen), is 409 `conflict`. What depends on it
   * (template sync, a remote session) follows from its end.
   */
  async cancel(deviceId: string, id: number, by: string, scope: AreaScope = EVERYWHERE): Promise<CommandView> {
    return this.ctx.db.write(async (w) => {
      const command = await this.findOf(w.tx, deviceId, id, scope);
      if (command.status !== 'pending' && command.status !== 'sent') {
        throw new FpaError('conflict', `the command is ${command.status}; only pending or sent commands can be cancelled`, {
          command: id,
          status: command.status,
        });
      }
      const why = (await this.refusedOf(w.tx, [command])).get(command.id);
      if (why) throw new FpaError('conflict', why, { command: id, kind: command.kind });
      const now = this.ctx.clock.now();
      await this.deps.endings.close(w, command, 'cancelled', now, null, { reason: `cancelled by ${by}` });
      await audit(w.tx, now, {
        actor: by,
        action: 'device_command.cancelled',
        targetType: 'device_command',
        targetId: String(id),
        details: { kind: command.kind },
      });
      return commandView({ ...command, status: 'cancelled', completedAt: now, returnCode: null, result: { reason: `cancelled by ${by}` } });
    });
  }

  /**
   * Sends a `failed` or `expired` command again, with a fresh attempt budget and expiry; otherwise,
   * or when a rule refuses it (refuseRetryWhen: its template is gone), 409. Its `sent_at` stays: a command that went out keeps its id for its content (supersede.ts).
   */
  async retry(device: CommandTarget, id: number, by: string, scope: AreaScope = EVERYWHERE): Promise<CommandView> {
    const deviceId = device.id;
    return this.ctx.db.write(async (w) => {
      const command = await this.findOf(w.tx, deviceId, id, scope);
      // A delete it owes goes to it whatever its status; anything else would wait for its approval.
      if (!DELETE_KINDS.has(command.kind)) refuseUntilApproved(device, `a retried \`${command.kind}\``);
      if (WIPING_KINDS.has(command.kind)) await refuseIfSharedTerminal(w.tx, deviceId, scope, `send ${command.kind} to`);
      if (command.status !== 'failed' && command.status !== 'expired') {
        throw new FpaError('conflict', `the command is ${command.status}; only failed or expired commands can be retried`, {
          command: id,
          status: command.status,
        });
      }
      for (const refusal of this.retryRefusals) {
        const why = await refusal(w.tx, command);
        if (why) throw new FpaError('conflict', why, { command: id, kind: command.kind });
      }
      const now = this.ctx.clock.now();
      const set = {
        status: 'pending' as const,
        attempts: 0,
        notBefore: now,
        expiresAt: DELETE_KINDS.has(command.kind) ? NEVER_EXPIRES : now + this.ctx.settings.COMMAND_EXPIRY,
        ackDeadline: null,
        completedAt: null,
        returnCode: null,
        result: null,
      };
      await w.tx.update(deviceCommands).set(set).where(eq(deviceCommands.id, id));
      await audit(w.tx, now, {
        actor: by,
        action: 'device_command.retried',
        targetType: 'device_command',
        targetId: String(id),
        details: { kind: command.kind },
      });
      w.afterCommit(() => this.deps.polls.markQueued(deviceId));
      return commandView({ ...command, ...set });
    });
  }

  /**
   * An operator's command (`POST devices/{sn}/commands/`). Destructive ones must name the
   * terminal's serial number in `confirm`; raw command text needs ADMS_RAW_COMMANDS.
   */
  async queueForOperator(device: CommandTarget, input: OperatorCommand, by: string, scope: AreaScope = EVERYWHERE): Promise<CommandView> {
    const { kind, payload } = operatorCommand(device.serialNumber, input, { rawAllowed: this.ctx.settings.ADMS_RAW_COMMANDS });
    refuseUntilApproved(device, `\`${input.kind}\``);
    return this.ctx.db.write(async (w) => {
      if (WIPING_KINDS.has(kind)) await refuseIfSharedTerminal(w.tx, device.id, scope, `send ${input.kind} to`);
      const [id] = await this.deps.enqueue(w, [{ deviceId: device.id, kind, payload }]);
      await audit(w.tx, this.ctx.clock.now(), {
        actor: by,
        action: 'device_command.queued',
        targetType: 'device',
        targetId: device.serialNumber,
        details: { command: id, kind: input.kind },
      });
      const [row] = await w.tx.select().from(deviceCommands).where(eq(deviceCommands.id, id!));
      return commandView(row!);
    });
  }

  /** One command of a device as the API shows it. */
  async viewOf(q: Queryable, deviceId: string, id: number): Promise<CommandView> {
    const command = await this.findOf(q, deviceId, id);
    return commandView(command, (await this.refusedOf(q, [command])).get(command.id) ?? null);
  }

  /** A command of this terminal; one about a person outside the scope is 404, as if it did not exist. */
  private async findOf(q: Queryable, deviceId: string, id: number, scope: AreaScope = EVERYWHERE): Promise<CommandRow> {
    const [row] = await q
      .select()
      .from(deviceCommands)
      .where(and(eq(deviceCommands.id, id), eq(deviceCommands.deviceId, deviceId), this.aboutVisiblePeople(scope)));
    if (!row) throw new FpaError('not_found', 'command not found', { command: id });
    return row;
  }

  /** A condition on commands: the person each is about (if any) is in the scope (seePeopleBy). */
  private aboutVisiblePeople(scope: AreaScope): SQL | undefined {
    const field = (name: string) => sql`json_extract(${deviceCommands.payload}, ${`$.${name}`})`;
    return this.peopleInScope(field('enrollee'), field('pin'), scope);
  }

  /** Why each of these unfinished commands may not be cancelled (by id; the others may be). */
  private async refusedOf(q: Queryable, commands: readonly CommandRow[]): Promise<Map<number, string>> {
    const open = commands.filter((c) => c.status === 'pending' || c.status === 'sent');
    const refused = new Map<number, string>();
    if (open.length === 0) return refused;
    for (const refusal of this.refusals) for (const [id, why] of await refusal(q, open)) if (!refused.has(id)) refused.set(id, why);
    return refused;
  }

  /**
   * `GET devices/{sn}/commands/`: a terminal's commands, oldest first, or newest first (`order:
   * 'newest'`: what a person looks at), cursor-paged; each says whether it may be cancelled. A
   * caller limited to areas does not see those about other areas' people (seePeopleBy).
   */
  async list(
    deviceId: string,
    filters: { status?: CommandStatus; order?: 'oldest' | 'newest'; cursor?: string; limit: number },
    scope: AreaScope = EVERYWHERE,
  ): Promise<Page<CommandView>> {
    const newest = filters.order === 'newest';
    // Each order is a list of its own: a cursor of one is not a place in the other.
    const list = newest ? 'device-commands-newest' : 'device-commands';
    const after = integerCursor(list, filters.cursor);
    const conditions = [eq(deviceCommands.deviceId, deviceId), this.aboutVisiblePeople(scope)];
    if (filters.status) conditions.push(eq(deviceCommands.status, filters.status));
    if (after !== null) conditions.push(newest ? lt(deviceCommands.id, after) : gt(deviceCommands.id, after));
    const rows = await this.ctx.db.orm
      .select()
      .from(deviceCommands)
      .where(and(...conditions))
      .orderBy(newest ? desc(deviceCommands.id) : asc(deviceCommands.id))
      .limit(filters.limit + 1);
    const refused = await this.refusedOf(this.ctx.db.orm, rows);
    return pageOf(
      list,
      rows,
      filters.limit,
      (r) => r.id,
      (page) => page.map((r) => commandView(r, refused.get(r.id) ?? null)),
    );
  }
}
