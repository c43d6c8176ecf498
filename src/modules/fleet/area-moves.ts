/**
 * Terminals follow an area move on its effective date. A person moved to other areas is sent to
 * the new areas' terminals at once (enrollment/reactions.ts), but stays on those of the areas
 * they left for the rest of the day the move is made, which attendance judges under the old
 * areas: the areas left count as theirs for the fleet until then (enrollees/area-membership.ts
 * `terminalAreaIdsOf`). Job `follow-area-moves` (every few minutes) takes them off those
 * terminals once the effective date has begun in ATTENDANCE_TIME_ZONE, except off a terminal
 * that is still in one of their areas, and notes it in each terminal's log. A run missed (the
 * server down over midnight) is caught up by the next one.
 */
import { chunks } from '../../platform/chunks';
import type { WriteContext } from '../../platform/db/client';
import { localDateOf } from '../../platform/time/dates';
import { noteOnDevice } from '../devices';
import type { FleetDeps } from './resync';
import type { FleetRuntime } from './runtime';

/** People followed per write transaction (each queues a few deletes). */
const PEOPLE_PER_WRITE = 50;

export class AreaMoves {
  constructor(
    private readonly ctx: FleetRuntime,
    private readonly deps: FleetDeps,
  ) {}

  /**
   * Job `follow-area-moves`: the people whose moves have reached their effective date are taken
   * off the terminals of the areas they left. Each move is marked in the database as it is
   * followed (compare-and-set), so a second run, here or on another instance, does nothing again.
   */
  async followDue(): Promise<{ people: number; terminals: number; queued: number }> {
    const { db, clock, settings } = this.ctx;
    const today = localDateOf(clock.now(), settings.ATTENDANCE_TIME_ZONE);
    const due = await this.deps.enrollees.membership.idsLeavingTerminals(db.orm, today);
    const total = { people: 0, terminals: 0, queued: 0 };
    for (const ids of chunks(due, PEOPLE_PER_WRITE)) {
      await db.write(async (w) => {
        for (const id of ids) {
          const done = await this.leaveOldTerminals(w, id, today);
          if (done === null) continue;
          total.people++;
          total.terminals += done.terminals;
          total.queued += done.queued;
        }
      });
    }
    return total;
  }

  /** One person's due moves followed; null when another run had followed them already. */
  private async leaveOldTerminals(w: WriteContext, enrolleeId: string, today: string): Promise<{ terminals: number; queued: number } | null> {
    const { enrollees, devices, enrollment } = this.deps;
    const left = await enrollees.membership.letGoOfLeftAreas(w.tx, enrolleeId, today, this.ctx.clock.now());
    if (left.areaIds.length === 0) return null;
    const person = await enrollees.find(w.tx, enrolleeId);
    // Deactivated or deleted meanwhile: they were taken off every terminal then.
    if (person?.status !== 'active') return { terminals: 0, queued: 0 };
    const stays = new Set(await enrollment.fanOut.devicesSharingArea(w.tx, enrolleeId));
    const leaving = (await devices.inAreas(w.tx, left.areaIds, ['approved', 'disabled'])).filter((d) => !stays.has(d.id));
    // The terminals sent a delete_user: not one where their PIN is someone else's (not-theirs.ts),
    // nor one that may hold fingerprints of theirs the service has not (asked for them first:
    // enrollment/leaving.ts, which notes it in that terminal's log).
    const { removed, staying } = await enrollment.leaving.leave(
      w,
      [person],
      leaving.map((d) => d.id),
    );
    const queued = removed.size + staying.filter((s) => s.fetching).length;
    const waits = new Set(staying.map((s) => s.deviceId));
    const now = this.ctx.clock.now();
    for (const device of leaving.filter((d) => !waits.has(d.id))) {
      await noteOnDevice(
        w.tx,
        device.id,
        'area_move',
        `PIN ${person.devicePin} taken off: moved out of the terminal's areas${left.from ? ` from ${left.from}` : ''}`,
        { pin: person.devicePin, enrollee: person.id, effective_from: left.from },
        now,
      );
    }
    return { terminals: leaving.length, queued };
  }
}
