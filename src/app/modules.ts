/**
 * The composition root: every module built once, in dependency order (each module knows only
 * the ones above it in this list); what each reacts to is wired in reactions.ts. Each module is
 * given a runtime of its own (`runtimeFor`): only the settings it declares in its `runtime.ts`,
 * and the key ring only where it encrypts or seals (platform/runtime.ts).
 */

import { ANOMALY_SETTINGS, Anomalies } from '../modules/anomalies';
import { AREA_SETTINGS, AreaCatalog } from '../modules/areas';
import { Absences, ATTENDANCE_SETTINGS, AttendanceService, PayPeriodLocks, Reports, TodayBoard } from '../modules/attendance';
import { AUDIT_SETTINGS, AuditService } from '../modules/audit';
import { CALENDAR_SETTINGS, CalendarService } from '../modules/calendar';
import { COMMAND_SETTINGS, CommandService } from '../modules/commands';
import { COMPLETENESS_SETTINGS, Completeness, ServerHeartbeat } from '../modules/completeness';
import { CONSOLE_SETTINGS, ConsoleService } from '../modules/console';
import { DEVICE_SETTINGS, DeviceService } from '../modules/devices';
import { DIAGNOSTIC_SETTINGS, Diagnostics } from '../modules/diagnostics';
import { EmployeeImport, IMPORT_SETTINGS } from '../modules/employee-import';
import { EMPLOYEE_SETTINGS, type EmployeeDirectory, EmployeeService } from '../modules/employees';
import { ENROLLEE_SETTINGS, EnrolleeService } from '../modules/enrollees';
import { ENROLLMENT_SETTINGS, Enrollment } from '../modules/enrollment';
import { EVENT_SETTINGS, EventLog } from '../modules/events';
import { FLEET_SETTINGS, Fleet } from '../modules/fleet';
import { HEALTH_SETTINGS, HealthService } from '../modules/health';
import { JOB_SETTINGS, JobRunner } from '../modules/jobs';
import { DeletionProofs, PROOF_SETTINGS } from '../modules/proofs';
import { PUNCH_SETTINGS, PunchCorrections, PunchService, punchStreamSource } from '../modules/punches';
import { REPORT_SETTINGS, ReportService } from '../modules/reports';
import { RETENTION_SETTINGS, Retention } from '../modules/retention';
import { FACTOR_SETTINGS, FactorSignIn, type FactorUserDirectory, SecondFactors, SingleSignOn } from '../modules/sign-in-factors';
import { TERMINAL_SETTINGS, Terminals } from '../modules/terminals';
import { ApiKeys, PasswordSignIn, USER_SETTINGS, UsersService } from '../modules/users';
import { WEBHOOK_SETTINGS, Webhooks } from '../modules/webhooks';
import { STREAM_SETTINGS, StreamHub, StreamQuota } from '../platform/http/stream';
import { digestingRuntimeFor, type Runtime, runtimeFor, sealingRuntimeFor } from '../platform/runtime';
import type { MembersOf } from '../platform/scope';
import { FPA_EVENT_TYPES } from './event-catalog';
import { wireReactions } from './reactions';

export function buildModules(runtime: Runtime, directory: EmployeeDirectory) {
  const records = buildRecords(runtime, directory);
  const accounts = buildAccounts(runtime, records.console);
  const fleet = buildFleet(runtime, records.events, directory, records.employees);
  const time = buildTime(runtime, records.events, fleet);
  const upkeep = buildUpkeep(runtime, records, fleet, time);
  const streams = buildStreams(runtime, records.events, fleet);
  const modules = { ...records, ...accounts, ...fleet, ...time, ...upkeep, ...streams };
  wireReactions(runtime, modules);
  return modules;
}

export type Modules = ReturnType<typeof buildModules>;

/** What the rest stands on: the event log, jobs, the audit log, console sessions, employees, areas. */
function buildRecords(runtime: Runtime, directory: EmployeeDirectory) {
  return {
    events: new EventLog(runtimeFor(runtime, EVENT_SETTINGS)),
    jobs: new JobRunner(runtimeFor(runtime, JOB_SETTINGS)),
    audit: new AuditService(runtimeFor(runtime, AUDIT_SETTINGS)),
    console: new ConsoleService(runtimeFor(runtime, CONSOLE_SETTINGS)),
    employees: new EmployeeService(runtimeFor(runtime, EMPLOYEE_SETTINGS), directory),
    areas: new AreaCatalog(runtimeFor(runtime, AREA_SETTINGS)),
  };
}

/** People who sign in: accounts resolve console sessions of users (their role and areas of now). */
function buildAccounts(runtime: Runtime, consoleSessions: ConsoleService) {
  const ctx = digestingRuntimeFor(runtime, USER_SETTINGS);
  const apiKeys = new ApiKeys(ctx);
  const users = new UsersService(ctx, consoleSessions, apiKeys);
  const signIn = new PasswordSignIn(ctx, consoleSessions, users);
  consoleSessions.resolveUsersWith(users);
  // Second factors and single sign-on, on top of the accounts: a right password of a user with a
  // second factor opens no session but a pending step; a reset (or removal) clears the factors.
  const sealing = sealingRuntimeFor(runtime, FACTOR_SETTINGS);
  const factors = new SecondFactors(sealing, {
    confirm: async (userId, password) => {
      await signIn.confirmPassword(userId, password);
    },
  });
  const factorUsers: FactorUserDirectory = { byId: (id) => users.account(id), byEmail: (email) => users.accountByEmail(email) };
  const factorSignIn = new FactorSignIn(factors, factorUsers, signIn.throttle);
  const sso = new SingleSignOn(sealing, factors.states, factorUsers);
  return { apiKeys, users, signIn, factors, factorUsers, factorSignIn, sso };
}

/** The terminals and the people on them: devices, commands, enrollees, templates, punches. */
function buildFleet(runtime: Runtime, events: EventLog, directory: EmployeeDirectory, employees: EmployeeService) {
  // Digests of communication keys; the key ring seals the passwords terminals hold for their users.
  const devices = new DeviceService({ ...digestingRuntimeFor(runtime, DEVICE_SETTINGS), keyRing: runtime.keyRing }, events);
  const commands = new CommandService(runtimeFor(runtime, COMMAND_SETTINGS), events, devices);
  const enrollees = new EnrolleeService(runtimeFor(runtime, ENROLLEE_SETTINGS), events, directory, (q, pin) => devices.users.pinKnown(q, pin));
  const employeeImport = new EmployeeImport(runtimeFor(runtime, IMPORT_SETTINGS), employees, enrollees);
  const enrollment = new Enrollment(sealingRuntimeFor(runtime, ENROLLMENT_SETTINGS), events, { enrollees, devices, commands });
  const punches = new PunchService(punchRuntimeOf(runtime), events, enrollees, devices);
  const corrections = new PunchCorrections(punchRuntimeOf(runtime), punches, enrollees);
  const fleet = new Fleet(runtimeFor(runtime, FLEET_SETTINGS), events, { devices, commands, enrollees, enrollment, punches });
  const terminals = new Terminals(runtimeFor(runtime, TERMINAL_SETTINGS), { devices, commands, enrollment, punches });
  const proofs = new DeletionProofs(sealingRuntimeFor(runtime, PROOF_SETTINGS), events, enrollees);
  const diagnostics = new Diagnostics(runtimeFor(runtime, DIAGNOSTIC_SETTINGS), devices);
  return { devices, commands, enrollees, employeeImport, enrollment, punches, corrections, fleet, terminals, proofs, diagnostics };
}

type FleetModules = ReturnType<typeof buildFleet>;

/** Punches mark the terminals' uploads as they arrive (webhook deliveries yield to a burst of them). */
function punchRuntimeOf(runtime: Runtime) {
  return { ...runtimeFor(runtime, PUNCH_SETTINGS), uploads: runtime.uploads };
}

/** People's time: the calendar, attendance days and absences, reports, completeness, anomalies, the board. */
function buildTime(runtime: Runtime, events: EventLog, { devices, commands, enrollees, enrollment, punches }: FleetModules) {
  const calendar = new CalendarService(runtimeFor(runtime, CALENDAR_SETTINGS), events, enrollees);
  const ctx = runtimeFor(runtime, ATTENDANCE_SETTINGS);
  const attendance = new AttendanceService(ctx, events, punches, enrollees, calendar);
  const absences = new Absences(ctx, attendance, calendar, enrollees);
  const locks = new PayPeriodLocks(attendance, absences);
  const reports = new Reports(ctx, attendance, enrollees);
  const board = new TodayBoard(ctx, attendance, calendar, enrollees);
  const completenessRuntime = runtimeFor(runtime, COMPLETENESS_SETTINGS);
  const completeness = new Completeness(completenessRuntime, events, { devices, commands, punches });
  const heartbeat = new ServerHeartbeat(completenessRuntime, completeness);
  const anomalies = new Anomalies(runtimeFor(runtime, ANOMALY_SETTINGS), events, { devices, enrollment, calendar, enrollees, punches });
  return { calendar, attendance, absences, locks, reports, completeness, heartbeat, anomalies, board };
}

type TimeModules = ReturnType<typeof buildTime>;

/** What keeps the instance going: report files, webhook deliveries, the retention purge, health. */
function buildUpkeep(runtime: Runtime, records: ReturnType<typeof buildRecords>, fleet: FleetModules, time: TimeModules) {
  const { devices, commands, enrollees, enrollment, punches, proofs } = fleet;
  const { attendance, anomalies } = time;
  const reportFiles = new ReportService(runtimeFor(runtime, REPORT_SETTINGS), {
    attendance,
    days: time.reports,
    enrollees,
    areas: records.areas,
    board: time.board,
  });
  // Webhook secrets are sealed, and deliveries yield to a burst of terminals' uploads.
  const webhookRuntime = { ...sealingRuntimeFor(runtime, WEBHOOK_SETTINGS), uploads: runtime.uploads };
  const webhooks = new Webhooks(webhookRuntime, records.events, { eventTypes: FPA_EVENT_TYPES });
  const retention = new Retention(runtimeFor(runtime, RETENTION_SETTINGS), {
    punches,
    attendance,
    commands,
    webhooks,
    devices,
    enrollment,
    enrollees,
    employees: records.employees,
    proofs,
    anomalies,
    log: records.events,
  });
  const health = new HealthService(runtimeFor(runtime, HEALTH_SETTINGS), { devices, commands, webhooks, jobs: records.jobs, punches });
  return { reportFiles, webhooks, retention, health };
}

/** The live streams of punches and events, and whom a limited caller's streams carry. */
function buildStreams(runtime: Runtime, events: EventLog, { enrollees, devices }: FleetModules) {
  // The people and terminals of a limited caller's areas: what its event and punch streams carry.
  const members: MembersOf = async (scope) => ({
    enrollees: new Set((await enrollees.membership.idsInScope(runtime.db.orm, scope)) ?? []),
    devices: new Set((await devices.serialsInAreas(runtime.db.orm, scope)) ?? []),
  });
  const ctx = runtimeFor(runtime, STREAM_SETTINGS);
  const punchSource = punchStreamSource(punchRuntimeOf(runtime));
  const punchStream = new StreamHub(ctx, punchSource);
  const eventStream = new StreamHub(ctx, events.streamSource());
  // One quota over every stream of the instance: WEBSOCKET_MAX_PER_ADMIN open streams per administrator.
  const streamQuota = new StreamQuota(() => ctx.settings.WEBSOCKET_MAX_PER_ADMIN);
  return { members, punchSource, punchStream, eventStream, streamQuota };
}
