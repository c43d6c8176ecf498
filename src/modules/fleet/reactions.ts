/**
 * How the fleet converges without an administrator (wired in src/app/reactions.ts; each runs
 * inside the transaction that recorded the event).
 */

import type { CommandEvents } from '../commands';
import type { DetailPart, DeviceEvents, UserCountListener } from '../devices';
import type { EnrollmentEvents } from '../enrollment';
import type { ReactionTo } from '../events';
import type { ResyncReason } from './resync';
import type { Fleet } from './service';

/** What the reactions use: the fleet and the command lifetime. */
export interface FleetReactionDeps {
  fleet: Fleet;
  /** COMMAND_EXPIRY: a terminal away longer than this lost what was queued for it. */
  commandExpiryMs: number;
}

/**
 * device_approved (or approved again): first who the terminal already holds (it may come from
 * another server, or its menu), then the backfill, so that no enrollee replaces one of its users
 * with the same PIN (the renderer checks again before sending, terminals/render.ts).
 */
export const queryUsersThenBackfillApproved =
  ({ fleet }: FleetReactionDeps): ReactionTo<DeviceEvents, 'device_approved'> =>
  async (w, approved) => {
    for (const { data } of approved) await fleet.reconciler.resync.afterUserQuery(w, data.device.id, 'approved');
  };

/**
 * device_online: back after longer than its commands live (what was queued for it expired), or
 * the first contact of a pre-registered terminal: asked for its users again, then resynced. A
 * terminal whose approval's query expired unanswered was never inventoried: this query is its
 * inventory (until it answers, nothing about a PIN goes to it, commands/polls.ts).
 */
export const resyncReturningTerminal =
  ({ fleet, commandExpiryMs }: FleetReactionDeps): ReactionTo<DeviceEvents, 'device_online'> =>
  async (w, online) => {
    const { resync } = fleet.reconciler;
    for (const { data } of online) {
      if (data.status !== 'approved') continue;
      if (data.away_seconds === null) await resync.afterUserQuery(w, data.device.id, 'approved');
      else if (data.away_seconds * 1000 > commandExpiryMs) {
        const neverAnswered = await fleet.deps.commands.lookups.inventoryExpired(w.tx, data.device.id);
        await resync.afterUserQuery(w, data.device.id, neverAnswered ? 'approved' : 'returned');
      }
    }
  };

/**
 * A terminal's user count: one that reports far fewer users than it is known to hold (a factory
 * reset) is asked for them at once rather than at the hourly reconciliation.
 */
export const askWhenUsersLost =
  ({ fleet }: Pick<FleetReactionDeps, 'fleet'>): UserCountListener =>
  (w, device, count) =>
    fleet.reconciler.usersReported(w, device, count);

/** device_updated (algorithm, firmware, parameters): what failed or was incompatible there is sent again. */
export const retryUnsyncedAfterCapabilityChange =
  ({ fleet }: FleetReactionDeps): ReactionTo<DeviceEvents, 'device_updated'> =>
  async (w, updated) => {
    for (const { data } of updated) {
      if (data.status !== 'approved' || !(data.changes.algorithm_version || data.changes.firmware || data.changes.parameters)) continue;
      const device = await fleet.deps.devices.findById(w.tx, data.device.id);
      if (device) await fleet.reconciler.retryUnsynced(w, device);
    }
  };

/**
 * device_command_finished: a users query answered resyncs (or repairs drift); a terminal cleared
 * with `clear_data` gets its in-scope users and templates again; a user an administrator removed
 * makes room for the enrollee with that PIN.
 */
export const convergeOnCommandResult =
  ({ fleet }: FleetReactionDeps): ReactionTo<CommandEvents, 'device_command_finished'> =>
  async (w, finished) => {
    const { devices, commands, enrollees, enrollment } = fleet.deps;
    const { resync } = fleet.reconciler;
    for (const { data } of finished) {
      const { kind, payload } = data.command;
      // What waited for the terminal's answer (its commands about a PIN, commands/polls.ts) is due.
      if (kind === 'query_users') w.afterCommit(() => commands.polls.markQueued(data.device.id));
      const resyncAfter = kind === 'query_users' && typeof payload.resync === 'string' ? (payload.resync as ResyncReason) : null;
      // A terminal that cannot answer the query (it failed) is resynced all the same; one that
      // let it expire is resynced when it is back (device_online).
      if (data.status !== 'succeeded' && !(resyncAfter && data.status === 'failed')) continue;
      const device = await devices.findById(w.tx, data.device.id);
      if (device?.status !== 'approved') continue; // removed or disabled meanwhile
      if (resyncAfter === 'drift') {
        const query = await commands.operator.viewOf(w.tx, device.id, data.command.id);
        // No send time (never sent): nothing to compare the answer with.
        if (query.sent_at !== null) await resync.missing(w, device, Date.parse(query.sent_at));
      } else if (resyncAfter) {
        await resync.backfill(w, device, resyncAfter);
      } else if (kind === 'clear_data') {
        // The terminal holds nothing now: it gets its in-scope users and templates again.
        await devices.users.clear(w.tx, device.id);
        await enrollment.sync.forgetDevice(w.tx, device.id);
        await resync.device(w, device, { full: false, reason: 'cleared' });
      } else if (kind === 'delete_user' && payload.resolves === true && typeof payload.pin === 'string') {
        const person = await enrollees.findByPin(w.tx, payload.pin);
        if (person?.status === 'active' && (await enrollees.membership.sharesArea(w.tx, person.id, await devices.areaIdsOf(w.tx, device.id)))) {
          await enrollment.fanOut.backfillDevice(w, device, [person]);
        }
      }
    }
  };

/** consent_given: the fingerprints an adopted user's terminals hold are fetched. */
export const fetchTemplatesOnConsent =
  ({ fleet }: FleetReactionDeps): ReactionTo<EnrollmentEvents, 'consent_given'> =>
  async (w, given) => {
    for (const { data } of given) await fleet.reconciler.resync.fetchTemplatesOf(w, data.enrollee);
  };

/** A terminal's detail shows what it should hold against what it reports. */
export const syncCheckOfTerminal =
  ({ fleet }: Pick<FleetReactionDeps, 'fleet'>): DetailPart =>
  async (q, device) => ({ sync_check: await fleet.reconciler.syncCheck(q, device) });
