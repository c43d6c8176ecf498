/**
 * Every reaction of the service, in one place: what happens, inside the same transaction, when a
 * module records an event (or stores a punch), and what modules add to each other's views. The
 * reactions themselves are named functions in each module's `reactions.ts`; this file only says
 * which runs on what, in the order they run.
 *
 * Outside the transaction, after the commit: the log's followers catch up (attendance days,
 * webhooks, the punch and event streams; see the end of this file and src/app/modules.ts), and a
 * host's in-process listeners (`fpa.events.on`) run.
 */
import { type Anomalies, anomalyReactions } from '../modules/anomalies';
import type { AreaCatalog } from '../modules/areas';
import { type AttendanceService, attendanceReactions } from '../modules/attendance';
import type { CalendarService } from '../modules/calendar';
import { type CommandService, commandReactions } from '../modules/commands';
import { type Completeness, completenessReactions } from '../modules/completeness';
import type { DeviceService } from '../modules/devices';
import { devicesInArea } from '../modules/devices';
import type { EmployeeService } from '../modules/employees';
import type { EnrolleeService } from '../modules/enrollees';
import { membersOfArea } from '../modules/enrollees';
import { type Enrollment, enrollmentReactions } from '../modules/enrollment';
import type { EventLog } from '../modules/events';
import { type Fleet, fleetReactions } from '../modules/fleet';
import { type DeletionProofs, proofReactions } from '../modules/proofs';
import type { PunchCorrections, PunchService } from '../modules/punches';
import { type FactorSignIn, type SecondFactors, secondFactorGate } from '../modules/sign-in-factors';
import { terminalReactions } from '../modules/terminals';
import type { ApiKeys, PasswordSignIn, UsersService } from '../modules/users';
import type { Webhooks } from '../modules/webhooks';
import type { StreamHub } from '../platform/http/stream';
import type { Runtime } from '../platform/runtime';
import { addDays } from '../platform/time/dates';
import { logFleetNews } from './operator-log';

/** The first date an area's new zone recomputes when no pay period is locked: every day there is (attendance keeps to the dates with data). */
const FIRST_DATE = '1970-01-01';

/** The modules that react or are reacted to. */
interface Reacting {
  events: EventLog;
  areas: AreaCatalog;
  users: UsersService;
  signIn: PasswordSignIn;
  factors: SecondFactors;
  factorSignIn: FactorSignIn;
  apiKeys: ApiKeys;
  calendar: CalendarService;
  employees: EmployeeService;
  enrollees: EnrolleeService;
  devices: DeviceService;
  commands: CommandService;
  enrollment: Enrollment;
  fleet: Fleet;
  punches: PunchService;
  corrections: PunchCorrections;
  attendance: AttendanceService;
  proofs: DeletionProofs;
  completeness: Completeness;
  anomalies: Anomalies;
  webhooks: Webhooks;
  punchStream: StreamHub;
  eventStream: StreamHub;
}

/**
 * Long: one list of every reaction, grouped by the event it answers and in the order they run;
 * split, a reader could no longer see every consequence of an event in one place.
 */
export function wireReactions(runtime: Runtime, m: Reacting): void {
  const { enrollees, devices, commands, enrollment, punches, attendance } = m;
  const { consent } = enrollment;
  const { sync, converge, recover } = reactingWith(runtime, m);

  wireSignIn(runtime, m);

  // A person: created, changed, given a card by a terminal, deleted.
  enrollees.events.react('enrollee_created', enrollmentReactions.sendNewEnrolleeToTerminals(sync));
  enrollees.events.react('enrollee_updated', enrollmentReactions.followEnrolleeChanges(sync));
  enrollees.events.react('enrollee_updated', enrollmentReactions.closeSessionsOfDeactivated(enrollment));
  enrollees.events.react('enrollee_card_changed', enrollmentReactions.sendFilledCardToOtherTerminals(sync));
  enrollees.events.react('enrollee_deleted', enrollmentReactions.destroyBiometricsOfDeleted(sync));
  enrollees.events.react('enrollee_deleted', enrollmentReactions.closeSessionsOfDeleted(enrollment));

  // Consent.
  enrollment.events.react('consent_withdrawn', enrollmentReactions.closeSessionsOnWithdrawal(enrollment));
  enrollment.events.react('consent_given', enrollmentReactions.keepFingersRefusedForConsent(sync));
  enrollment.events.react('consent_given', fleetReactions.fetchTemplatesOnConsent(converge));
  // Templates destroyed (withdrawal, deletion), or none found to destroy: the deletion proof opens.
  enrollment.templates.onDestroyed(proofReactions.openProofOnDestruction(m.proofs));
  // A withdrawal with nothing left to withdraw still issues the proof an earlier release never kept.
  consent.askingProofsWith((q, id) => m.proofs.kept(q, id));
  // A walk-up upload refused: a withdrawn or deleted person's data back on a terminal reopens their proof.
  enrollment.events.react('template_rejected', proofReactions.reopenProofOnReturnedData(m.proofs));

  // A terminal: approved, back online, changed, disabled, removed, drifting.
  devices.events.react('device_approved', fleetReactions.queryUsersThenBackfillApproved(converge));
  devices.events.react('device_online', fleetReactions.resyncReturningTerminal(converge));
  devices.events.react('device_online', completenessReactions.recoverAfterTerminalOutage(recover));
  devices.events.react('device_updated', enrollmentReactions.followTerminalAreaChanges(sync));
  devices.events.react('device_updated', fleetReactions.retryUnsyncedAfterCapabilityChange(converge));
  devices.events.react('device_updated', terminalReactions.recheckOptionsOnNewTimeZone(commands));
  devices.events.react('device_disabled', commandReactions.expireQueuedOfDisabledTerminal(commands));
  devices.events.react('device_removed', commandReactions.cancelQueuedOfRemovedTerminal(commands));
  devices.events.react('device_clock_drifting', terminalReactions.setDriftingClock(commands, runtime.settings.DEVICE_CLOCK_CORRECTION));

  // A terminal answered a command (or it expired, failed, was cancelled).
  commands.events.react('device_command_finished', enrollmentReactions.recordWhatTerminalHolds(sync));
  commands.events.react('device_command_finished', enrollmentReactions.recordTemplateSync(sync));
  commands.events.react('device_command_finished', enrollmentReactions.advanceRemoteSessions(enrollment));
  commands.events.react('device_command_finished', fleetReactions.convergeOnCommandResult(converge));
  commands.events.react('device_command_finished', proofReactions.confirmProofOnDelete(m.proofs));
  commands.operator.refuseCancelWhen(proofReactions.keepDeletesProofsAwait(m.proofs));
  commands.operator.refuseRetryWhen(enrollmentReactions.retryNeedsItsTemplate);
  // A delete the queue closed for another that took its place (a person taken off a terminal).
  commands.onDeletesReplaced(proofReactions.followReplacedDeletes(m.proofs));
  commands.events.react('device_command_finished', completenessReactions.followRecoveryCommands(recover));

  // A punch stored: flags it needs from modules above, the anomalies it shows (attendance days
  // follow punch_received after the commit, below).
  punches.addFlagger(attendanceReactions.flagPunchesInLockedPeriods(attendance));
  punches.events.react('punch_received', anomalyReactions.lookAtStoredPunches(m.anomalies));

  // What a terminal says it holds, and what it uploads: punch completeness.
  devices.reports.onAttendanceCount(completenessReactions.keepReportedCount(recover));
  // What a terminal says it holds: one that lost its users (reset to factory settings) is asked for them at once.
  devices.reports.onUserCount(fleetReactions.askWhenUsersLost(converge));
  punches.onUpload(completenessReactions.countReuploadedLines(recover));

  wireViews(m, sync, converge);

  wireFollowers(runtime, m);
}

/** What the reactions of several modules are given: the person's sync, the fleet's convergence, completeness's recovery. */
function reactingWith(runtime: Runtime, m: Reacting) {
  const { enrollees, devices, commands, enrollment, fleet } = m;
  const { templates, fanOut, consent, leaving } = enrollment;
  return {
    sync: { clock: runtime.clock, enrollees, devices, commands, templates, fanOut, leaving, templateSync: enrollment.sync, consent },
    converge: { fleet, commandExpiryMs: runtime.settings.COMMAND_EXPIRY },
    recover: { completeness: m.completeness, devices, offlineAfterMs: () => runtime.settings.DEVICE_OFFLINE_AFTER },
  };
}

type Reactions = ReturnType<typeof reactingWith>;

/**
 * People who sign in: the second factors a user has, cleared by a reset or a removal, and the
 * gate a right password passes before a session opens (a pending second step instead).
 */
function wireSignIn(runtime: Runtime, m: Reacting): void {
  m.users.describeSecondFactorsWith((q, ids) => m.factors.kindsOf(q, ids));
  m.users.onReset((tx, id) => m.factors.clearIn(tx, id));
  m.signIn.addGate(secondFactorGate(m.factorSignIn, runtime.settings));
}

/** What modules add to each other's views. */
function wireViews(m: Reacting, sync: Reactions['sync'], converge: Reactions['converge']): void {
  const { enrollees, devices, commands, enrollment, areas } = m;
  devices.views.addDetail(commandReactions.pendingCommandsOfTerminal(commands));
  devices.views.addDetail(enrollmentReactions.templatesPresentOnTerminal(sync));
  devices.views.addDetail(fleetReactions.syncCheckOfTerminal(converge));
  enrollees.views.addViewPart(enrollmentReactions.consentAndFingersOfPeople(sync));
  enrollees.views.addViewPart(proofReactions.deletionProofOfPeople(m.proofs));
  enrollees.views.addListFilter('consent', enrollmentReactions.consentListFilter);
  enrollees.views.addListFilter('biometrics', enrollmentReactions.biometricsListFilter);
  // A caller limited to areas sees no command about another area's person on a shared terminal.
  commands.operator.seePeopleBy(enrollees.membership.referenceInScope);
  m.employees.peopleBy({
    inScope: enrollees.membership.employeeInScope,
    everInScope: enrollees.membership.employeeEverInScope,
    enrolled: enrollees.membership.employeeEnrolled,
    active: enrollees.membership.employeeActive,
  });
  areas.countUsage('devices', (q, id) => devices.countInArea(q, id));
  areas.countUsage('enrollees', (q, id) => enrollees.membership.countInArea(q, id));
  areas.countUsage('users', (q, id) => m.users.countInArea(q, id));
  areas.countUsage('api_keys', (q, id) => m.apiKeys.countInArea(q, id));
  areas.countUsage('agents', (q, id) => enrollment.agents.countInArea(q, id));
  // A wall time entered by hand or imported is the person's: read in their areas' zone.
  m.corrections.useZones((q, ids) => m.calendar.zonesFor(q, ids));
  // An area's zone decides its people's days: a change recomputes them (from the first date after the last locked one).
  areas.useZoneParts({
    changed: async (w, areaId, by) => {
      const lastLocked = await m.attendance.periods.lastLockedDate(w);
      await m.calendar.areaZoneChanged(w, areaId, by, lastLocked === null ? FIRST_DATE : addDays(lastLocked, 1));
    },
    peopleInSeveralZones: (q, areaId) => m.calendar.peopleInSeveralZones(q, areaId),
  });
  areas.useParts({
    terminals: devicesInArea,
    schedules: (q, id) => m.calendar.schedules.ofArea(q, id),
    members: async (q, id, page) => {
      const found = await membersOfArea(q, id, page);
      const last = found.rows.at(-1);
      return {
        more: found.more,
        last: last ? [last.nameKey, last.id] : null,
        rows: found.rows.map((e) => ({ id: e.id, employee: e.employeeKey, display_name: e.displayName, device_pin: e.devicePin, status: e.status })),
      };
    },
  });
}

/** Outside the transaction: the fleet's news in the server log, and the log's followers woken. */
function wireFollowers(runtime: Runtime, m: Reacting): void {
  // The fleet's news in the server log (info), for an operator without the API.
  logFleetNews(m.events, runtime.log);

  // After each commit that appended events, the log's followers are woken (attendance days
  // follow punch_received, punches_attributed, punch_voided and calendar_changed themselves).
  m.events.onAppended(() => {
    m.webhooks.worker.wake();
    m.punchStream.wake();
    m.eventStream.wake();
  });
}
