/**
 * What enrollment does when other modules' events are recorded (wired in src/app/reactions.ts;
 * each runs inside the transaction that recorded the event).
 *
 * Sessions: a person's open sessions end when their consent is withdrawn or they are deactivated
 * or deleted, and a terminal's answer to a remote enrollment command moves that session on.
 *
 * What terminals hold follows people, consent and scope:
 * - a person created, or coming into a terminal's scope, is sent there with their templates;
 *   one leaving a terminal's scope, deactivated or deleted is removed from it (a person moved to
 *   other areas leaves the old areas' terminals on the move's effective date: fleet/area-moves.ts);
 * - a renamed person's user record is sent again, and so is one whose card a terminal filled
 *   (to the other terminals);
 * - a removed terminal's sync rows stay: what it held is still there if it comes back, and
 *   destroying a template queues its delete there too;
 * - a template command's result sets the template's sync status on that terminal, and a user's
 *   delete it confirmed drops that person's sync rows there (but for templates written after it).
 */
import { eq, sql } from 'drizzle-orm';
import type { Queryable } from '../../platform/db/client';
import type { Clock } from '../../platform/runtime';
import { type CommandEvents, type CommandService, describeReturnCode, type RetryRefusal, supersedeConsentRefusalDeletes } from '../commands';
import type { DetailPart, DeviceEvents, DeviceService } from '../devices';
import type { EnrolleeEvents, EnrolleeService, ListFilter, ViewPart } from '../enrollees';
import type { ReactionTo } from '../events';
import type { ConsentService } from './consent';
import type { EnrollmentEvents } from './events';
import { type FanOut, userCommand } from './fan-out';
import { type ScopeLeaving, templateQuery } from './leaving';
import type { Enrollment } from './module';
import { consents, templates as templateRows } from './tables';
import type { TemplateStore } from './template-store';
import type { RefusalChange, TemplateSync } from './template-sync';
import { ALGORITHM_MISMATCH, TERMINAL_FULL } from './unreachable';

/** What the reactions use. */
export interface SyncDeps {
  clock: Clock;
  enrollees: EnrolleeService;
  devices: DeviceService;
  commands: CommandService;
  templates: TemplateStore;
  fanOut: FanOut;
  leaving: ScopeLeaving;
  templateSync: TemplateSync;
  consent: ConsentService;
}

/** enrollee_created: the person is sent to every terminal of their areas. */
export const sendNewEnrolleeToTerminals =
  ({ devices, commands, fanOut }: SyncDeps): ReactionTo<EnrolleeEvents, 'enrollee_created'> =>
  async (w, created) => {
    for (const { data } of created) {
      const person = { id: data.enrollee.id, devicePin: data.enrollee.device_pin, displayName: data.enrollee.display_name, card: data.enrollee.card };
      const targets = await devices.inAreas(w.tx, data.areas);
      await commands.enqueue(
        w,
        (await fanOut.withoutConflicts(w, targets, person)).map((d) => userCommand(d.id, person)),
      );
    }
  };

/**
 * enrollee_updated: sent to the terminals that came into scope (all when reactivated), taken off
 * all of them when deactivated; a new name or card sent again where they are. A move keeps them
 * on the terminals of the areas left until its effective date (fleet/area-moves.ts).
 */
export const followEnrolleeChanges =
  ({ enrollees, devices, commands, fanOut, leaving }: SyncDeps): ReactionTo<EnrolleeEvents, 'enrollee_updated'> =>
  async (w, updates) => {
    for (const { data } of updates) {
      const { enrollee, changes } = data;
      const person = { id: enrollee.id, devicePin: enrollee.device_pin, displayName: enrollee.display_name, card: enrollee.card };
      let added: Set<string> | null = null;
      if (changes.areas) {
        // The areas left still count as theirs until the move's effective date (the day it is made
        // is judged under them): their terminals keep the person, and job `follow-area-moves`
        // takes them off then (fleet/area-moves.ts). A move whose row was not recorded (a second
        // one in the same millisecond: recordAreaChange) still takes them off at once.
        const left = await enrollees.membership.leftAreaIdsOf(w.tx, enrollee.id);
        const inScope = async (areaIds: readonly string[]) =>
          new Set((await devices.inAreas(w.tx, [...new Set([...areaIds, ...left])], ['approved', 'disabled'])).map((d) => d.id));
        const before = await inScope(changes.areas.from);
        const after = await inScope(changes.areas.to);
        await leaving.leave(
          w,
          [person],
          [...before].filter((d) => !after.has(d)),
        );
        added = new Set([...after].filter((d) => !before.has(d)));
      }
      const wasActive = changes.status ? changes.status.from === 'active' : (await enrollees.get(enrollee.id, w.tx)).status === 'active';
      const isActive = changes.status ? changes.status.to === 'active' : wasActive;
      if (wasActive && !isActive) {
        await fanOut.takeOffEveryTerminal(w, person);
      } else if (isActive) {
        // Reactivated: every in-scope terminal; otherwise the ones that just came into scope.
        const inScope = await fanOut.devicesInScope(w.tx, enrollee.id);
        for (const device of inScope.filter((d) => !wasActive || added?.has(d.id))) await fanOut.backfillDevice(w, device, [person]);
        // A new name or card: the user record again, on the terminals that already had it.
        if (wasActive && (changes.display_name || changes.card)) {
          await commands.enqueue(
            w,
            (
              await fanOut.withoutConflicts(
                w,
                inScope.filter((d) => !added?.has(d.id)),
                person,
              )
            ).map((d) => userCommand(d.id, person)),
          );
        }
      }
    }
  };

/** enrollee_card_changed: a terminal filled the card of an enrollee who had none; their other terminals get it too. */
export const sendFilledCardToOtherTerminals =
  ({ enrollees, commands, fanOut }: SyncDeps): ReactionTo<EnrolleeEvents, 'enrollee_card_changed'> =>
  async (w, changed) => {
    for (const { data } of changed) {
      const row = await enrollees.find(w.tx, data.enrollee);
      if (row?.status !== 'active') continue;
      const person = { id: row.id, devicePin: row.devicePin, displayName: row.displayName, card: row.card };
      const others = (await fanOut.devicesInScope(w.tx, row.id)).filter((d) => d.id !== data.device.id);
      await commands.enqueue(
        w,
        (await fanOut.withoutConflicts(w, others, person)).map((d) => userCommand(d.id, person)),
      );
    }
  };

/**
 * enrollee_deleted: consent ends, templates are destroyed and the person is deleted from every
 * terminal, all at the deletion's instant (the event's), as its audit entry says it.
 */
export const destroyBiometricsOfDeleted =
  ({ consent, templates }: SyncDeps): ReactionTo<EnrolleeEvents, 'enrollee_deleted'> =>
  async (w, deleted) => {
    for (const { data, at } of deleted) {
      const ended = await consent.endCurrent(w, data.enrollee.id, data.by, at);
      const destroyed = await templates.destroyTemplatesIn(w, { id: data.enrollee.id, devicePin: data.enrollee.device_pin }, 'enrollee deleted', data.by, {
        deleteUserFromDevices: true,
        at,
      });
      if (ended) await consent.noteDestroyed(w, data.enrollee.id, at, destroyed);
    }
  };

/**
 * consent_given: a finger the walk-up refused for want of consent, whose delete has not gone out
 * yet, stays on its terminal: that delete is dropped and the terminal asked for the person's
 * fingerprints, which arrive as walk-up uploads, now accepted (stored, and sent to their other
 * terminals). Before, the delete went first and the query found nothing. Wired before fleet's
 * fetch on consent, whose query (of the same key) then takes this one's place where it asks too.
 */
export const keepFingersRefusedForConsent =
  ({ clock, enrollees, commands }: SyncDeps): ReactionTo<EnrollmentEvents, 'consent_given'> =>
  async (w, given) => {
    for (const { data } of given) {
      const person = await enrollees.find(w.tx, data.enrollee);
      if (!person) continue;
      const kept = await supersedeConsentRefusalDeletes(w.tx, person.devicePin, clock.now());
      await commands.enqueue(
        w,
        kept.map((deviceId) => templateQuery(deviceId, person.devicePin)),
      );
    }
  };

/**
 * An operator's retry of a template write (`POST devices/{sn}/commands/{id}/retry/`) is refused
 * (409) when that template, at that version, no longer exists: the poll would drop it unsent.
 * Before, the retry answered 200 `pending` and the command was silently superseded.
 */
export const retryNeedsItsTemplate: RetryRefusal = async (q, command) => {
  if (command.kind !== 'update_template') return null;
  const [row] = await q
    .select({ version: templateRows.version })
    .from(templateRows)
    .where(eq(templateRows.id, String(command.payload.templateId)))
    .limit(1);
  if (!row) return 'the template no longer exists (destroyed since this command was queued): there is nothing to send';
  if (row.version !== Number(command.payload.templateVersion)) return `the template was replaced by version ${row.version}, which is sent by itself`;
  return null;
};

/** device_updated (areas): people who left the terminal's scope are taken off it; an approved terminal gets the ones who came in. */
export const followTerminalAreaChanges =
  ({ enrollees, devices, fanOut, leaving }: SyncDeps): ReactionTo<DeviceEvents, 'device_updated'> =>
  async (w, updates) => {
    for (const { data } of updates) {
      const areas = data.changes.areas;
      // A pending terminal never received anyone.
      if (!areas || data.status === 'pending_approval') continue;
      const device = await devices.findById(w.tx, data.device.id);
      if (!device) continue;
      const before = await enrollees.membership.activeInAreas(w.tx, areas.from);
      const after = await enrollees.membership.activeInAreas(w.tx, areas.to);
      const wasIn = new Set(before.map((e) => e.id));
      const isIn = new Set(after.map((e) => e.id));
      // Enrollees that left this terminal's scope are taken off it (a disabled one gets the
      // deletes on re-approval), but for those whose fingerprints it may hold alone (leaving.ts).
      await leaving.leave(
        w,
        before.filter((e) => !isIn.has(e.id)),
        [device.id],
      );
      if (data.status === 'approved') {
        await fanOut.backfillDevice(
          w,
          device,
          after.filter((e) => !wasIn.has(e.id)),
        );
      }
    }
  };

/** device_command_finished: what the terminal confirmed it holds (users sent or removed, biometrics kept or dropped). */
export const recordWhatTerminalHolds =
  ({ devices, enrollees, commands, templateSync, leaving }: SyncDeps): ReactionTo<CommandEvents, 'device_command_finished'> =>
  async (w, finished) => {
    for (const { data } of finished) {
      const { kind, payload } = data.command;
      if (data.status !== 'succeeded') continue;
      const pin = typeof payload.pin === 'string' ? payload.pin : null;
      if (kind === 'add_user' && pin && typeof payload.enrollee === 'string') {
        await devices.users.sent(w.tx, data.device.id, {
          pin,
          name: String(payload.name ?? ''),
          card: typeof payload.card === 'string' ? payload.card : null,
          enrolleeId: payload.enrollee,
        });
      } else if (kind === 'delete_user' && pin) {
        // A user deleted to be put back (fan-out.ts `clearWhatWasNotStored`; the record goes next) stays known, without biometrics.
        await devices.users.removed(w.tx, data.device.id, pin, { putBack: payload.putBack === true });
        // Their templates went with the user (a full resync's delete, an administrator's): none
        // reads as present there, nor waits for a delete there, but those written after it.
        const person = await enrollees.findByPin(w.tx, pin);
        if (person) {
          const kept = await commands.lookups.templatesWrittenAfter(w.tx, data.device.id, pin, data.command.id);
          await templateSync.forgetUserOn(w.tx, data.device.id, person.id, kept);
        }
      } else if (kind === 'update_template' && pin && typeof payload.fingerIndex === 'number') {
        // The service's template of that enrollee, taken: the user there is theirs even before (or
        // without) the answer to their user record, not a stranger holding their finger.
        const sentFor = typeof payload.enrollee === 'string' ? payload.enrollee : undefined;
        await devices.users.noteBiometric(w.tx, data.device.id, pin, kindOf(payload), payload.fingerIndex, { sentFor });
      } else if (kind === 'delete_template' && pin) {
        await devices.users.dropBiometric(w.tx, data.device.id, pin, kindOf(payload), typeof payload.fingerIndex === 'number' ? payload.fingerIndex : null);
      } else if (kind === 'query_templates' && pin && payload.leave === true) {
        // A leave's query answered: the user goes once the service holds what the terminal holds of them (leaving.ts).
        await leaving.complete(w, data.device.id, pin);
      }
    }
  };

/**
 * device_command_finished (update_template): the template's sync status on that terminal
 * (`present`, `failed`, or `incompatible` when it refused the algorithm, Return=-30); a version
 * it took is held there, and a refusal of a later one leaves that held (template-sync.ts).
 */
export const recordTemplateSync =
  ({ templateSync }: SyncDeps): ReactionTo<CommandEvents, 'device_command_finished'> =>
  async (w, finished) => {
    for (const { data } of finished) {
      if (data.command.kind !== 'update_template') continue;
      const { templateId, templateVersion } = data.command.payload as { templateId?: unknown; templateVersion?: unknown };
      if (typeof templateId !== 'string') continue;
      const code = data.return_code;
      const status = data.status === 'succeeded' ? 'present' : code === ALGORITHM_MISMATCH ? 'incompatible' : 'failed';
      const detail =
        data.status === 'succeeded'
          ? null
          : data.status === 'expired'
            ? 'the command expired before the terminal answered'
            : data.status === 'cancelled'
              ? 'the command was cancelled'
              : describeReturnCode(code);
      await templateSync.recordSync(w.tx, templateId, data.device.id, Number(templateVersion), { status, detail, refusal: refusalChange(data.status, code) });
    }
  };

/**
 * A refusal (the algorithm, Return=-30; no room, Return=-1001) made or made again; lifted when the
 * terminal took the template or answered something else; left standing when nothing reached it.
 */
function refusalChange(status: CommandEvents['device_command_finished']['status'], code: number | null): RefusalChange {
  if (status === 'succeeded') return 'lifted';
  if (code === ALGORITHM_MISMATCH) return { refusal: 'incompatible', code };
  if (code === TERMINAL_FULL) return { refusal: 'full', code };
  return status === 'failed' && code !== null ? 'lifted' : 'unchanged';
}

/** A person's view shows their consent (or its last withdrawal), enrolled fingers and every kind's body parts. */
export const consentAndFingersOfPeople =
  ({ consent, templates }: Pick<SyncDeps, 'consent' | 'templates'>): ViewPart =>
  async (q: Queryable, ids) => {
    const consents = await consent.currentOf(q, ids);
    const withdrawals = await consent.lastWithdrawalOf(
      q,
      ids.filter((id) => !consents.has(id)),
    );
    const parts = await templates.partsOf(q, ids);
    return new Map(
      ids.map((id) => {
        const biometrics = parts.get(id) ?? {};
        return [id, { consent: consents.get(id) ?? null, consent_withdrawn: withdrawals.get(id) ?? null, fingers: biometrics.fingerprint ?? [], biometrics }];
      }),
    );
  };

/** `enrollees/?consent=given|missing`: answered from the consents' index by enrollee. */
export const consentListFilter: ListFilter = (value, enrollee) => {
  const given = sql`exists (select 1 from ${consents} c where c.enrollee_id = ${enrollee} and c.withdrawn_at is null)`;
  return value === 'given' ? given : sql`not ${given}`;
};

/** `enrollees/?biometrics=none|some`: answered from the templates' index by enrollee. */
export const biometricsListFilter: ListFilter = (value, enrollee) => {
  const some = sql`exists (select 1 from ${templateRows} t where t.enrollee_id = ${enrollee})`;
  return value === 'some' ? some : sql`not ${some}`;
};

/** A terminal's detail shows how many templates it holds. */
export const templatesPresentOnTerminal =
  ({ templateSync }: Pick<SyncDeps, 'templateSync'>): DetailPart =>
  async (q, device) => ({ templates_present: await templateSync.countPresent(q, device.id) });

/** The kind of a template command (ones queued before there were kinds are fingerprints). */
function kindOf(payload: Record<string, unknown>): string {
  return typeof payload.type === 'string' ? payload.type : 'fingerprint';
}

/** consent_withdrawn: the person's open sessions are cancelled. */
export const closeSessionsOnWithdrawal =
  ({ sessions }: Enrollment): ReactionTo<EnrollmentEvents, 'consent_withdrawn'> =>
  async (w, withdrawn) => {
    for (const { data } of withdrawn) await sessions.closeOpenOf(w, data.enrollee, 'consent withdrawn');
  };

/** enrollee_deleted: the person's open sessions are cancelled. */
export const closeSessionsOfDeleted =
  ({ sessions }: Enrollment): ReactionTo<EnrolleeEvents, 'enrollee_deleted'> =>
  async (w, deleted) => {
    for (const { data } of deleted) await sessions.closeOpenOf(w, data.enrollee.id, 'enrollee deleted');
  };

/** enrollee_updated (deactivated): the person's open sessions are cancelled. */
export const closeSessionsOfDeactivated =
  ({ sessions }: Enrollment): ReactionTo<EnrolleeEvents, 'enrollee_updated'> =>
  async (w, updated) => {
    for (const { data } of updated) {
      if (data.changes.status?.to === 'deactivated') await sessions.closeOpenOf(w, data.enrollee.id, 'enrollee deactivated');
    }
  };

/** device_command_finished: a remote enrollment's command answered moves its session on. */
export const advanceRemoteSessions =
  ({ remote }: Enrollment): ReactionTo<CommandEvents, 'device_command_finished'> =>
  async (w, finished) => {
    for (const event of finished) await remote.onCommandFinished(w, event);
  };
