/**
 * The composition root: every module built once, in dependency order (each module knows only
 * the ones above it in this list); what each reacts to is wired in reactions.ts.
 */

import { Anomalies } from '../modules/anomalies';
import { AreaCatalog } from '../modules/areas';
import { Absences, AttendanceService, Reports, TodayBoard } from '../modules/attendance';
import { AuditService } from '../modules/audit';
import { Biometrics } from '../modules/biometrics';
import { CalendarService } from '../modules/calendar';
import { CommandService } from '../modules/commands';
import { Completeness, ServerHeartbeat } from '../modules/completeness';
import { ConsoleService } from '../modules/console';
import { DeviceService } from '../modules/devices';
import { Diagnostics } from '../modules/diagnostics';
import { EmployeeImport } from '../modules/employee-import';
import { type EmployeeDirectory, EmployeeService } from '../modules/employees';
import { EnrolleeService } from '../modules/enrollees';
import { Enrollment } from '../modules/enrollment';
import { EventLog } from '../modules/events';
import { Fleet } from '../modules/fleet';
import { HealthService } from '../modules/health';
import { JobRunner } from '../modules/jobs';
import { DeletionProofs } from '../modules/proofs';
import { PunchCorrections, PunchService, punchStreamSource } from '../modules/punches';
import { ReportService } from '../modules/reports';
import { Retention } from '../modules/retention';
import { FactorSignIn, type FactorUserDirectory, SecondFactors, SingleSignOn } from '../modules/sign-in-factors';
import { Terminals } from '../modules/terminals';
import { ApiKeys, PasswordSignIn, UsersService } from '../modules/users';
import { Webhooks } from '../modules/webhooks';
import { StreamHub, StreamQuota } from '../platform/http/stream';
import type { Runtime } from '../platform/runtime';
import type { MembersOf } from '../platform/scope';
import { FPA_EVENT_TYPES } from './event-catalog';
import { wireReactions } from './reactions';

export function buildModules(runtime: Runtime, directory: EmployeeDirectory) {
  const events = new EventLog(runtime);
  const jobs = new JobRunner(runtime);
  const audit = new AuditService(runtime);
  const consoleSessions = new ConsoleService(runtime);
  const employees = new EmployeeService(runtime, directory);
  const areas = new AreaCatalog(runtime);
  // People who sign in: accounts resolve console sessions of users (their role and areas of now).
  const apiKeys = new ApiKeys(runtime);
  const users = new UsersService(runtime, consoleSessions, apiKeys);
  const signIn = new PasswordSignIn(runtime, consoleSessions, users);
  consoleSessions.resolveUsersWith(users);
  // Second factors and single sign-on, on top of the accounts: a right password of a user with a
  // second factor opens no session but a pending step; a reset (or removal) clears the factors.
  const factors = new SecondFactors(runtime);
  const factorUsers: FactorUserDirectory = { byId: (id) => users.account(id), byEmail: (email) => users.accountByEmail(email) };
  const factorSignIn = new FactorSignIn(factors, factorUsers, signIn.throttle);
  const sso = new SingleSignOn(runtime, factors.states, factorUsers);
  const devices = new DeviceService(runtime, events);
  const commands = new CommandService(runtime, events, devices);
  const enrollees = new EnrolleeService(runtime, events, directory, (q, pin) => devices.users.pinKnown(q, pin));
  const employeeImport = new EmployeeImport(runtime, employees, enrollees);
  const biometrics = new Biometrics(runtime, events, { enrollees, devices, commands });
  const enrollment = new Enrollment(runtime, events, { enrollees, devices, commands, biometrics });
  const punches = new PunchService(runtime, events, enrollees, devices);
  const corrections = new PunchCorrections(runtime, punches, enrollees);
  const fleet = new Fleet(runtime, events, { devices, commands, enrollees, biometrics, punches });
  const terminals = new Terminals(runtime, { devices, commands, biometrics, enrollment, punches });
  const proofs = new DeletionProofs(runtime, events, enrollees);
  const diagnostics = new Diagnostics(runtime, devices);
  const calendar = new CalendarService(runtime, events, enrollees);
  const attendance = new AttendanceService(runtime, events, punches, enrollees, calendar);
  const absences = new Absences(runtime, attendance, calendar, enrollees);
  const reports = new Reports(runtime, attendance, enrollees);
  const completeness = new Completeness(runtime, events, { devices, commands, punches });
  const heartbeat = new ServerHeartbeat(runtime, completeness);
  const anomalies = new Anomalies(runtime, events, { devices, biometrics, calendar, enrollees });
  const reportFiles = new ReportService(runtime, { attendance, days: reports, enrollees, areas });
  const board = new TodayBoard(runtime, attendance, calendar, enrollees);
  const webhooks = new Webhooks(runtime, events, { eventTypes: FPA_EVENT_TYPES });
  const retention = new Retention(runtime, {
    punches,
    attendance,
    commands,
    webhooks,
    devices,
    biometrics,
    enrollment,
    enrollees,
    proofs,
    anomalies,
    log: events,
  });
  const health = new HealthService(runtime, { devices, commands, webhooks, jobs, punches });
  // The people and terminals of a limited caller's areas: what its event and punch streams carry.
  const members: MembersOf = async (scope) => ({
    enrollees: new Set((await enrollees.membership.idsInScope(runtime.db.orm, scope)) ?? []),
    devices: new Set((await devices.serialsInAreas(runtime.db.orm, scope)) ?? []),
  });
  const punchSource = punchStreamSource(runtime);
  const punchStream = new StreamHub(runtime, punchSource);
  const eventStream = new StreamHub(runtime, events.streamSource());
  // One quota over every stream of the instance: WEBSOCKET_MAX_PER_ADMIN open streams per administrator.
  const streamQuota = new StreamQuota(() => runtime.settings.WEBSOCKET_MAX_PER_ADMIN);
  wireReactions(runtime, {
    events,
    areas,
    users,
    signIn,
    factors,
    factorSignIn,
    apiKeys,
    calendar,
    employees,
    enrollees,
    devices,
    commands,
    biometrics,
    enrollment,
    fleet,
    punches,
    attendance,
    proofs,
    completeness,
    anomalies,
    webhooks,
    punchStream,
    eventStream,
  });
  return {
    events,
    audit,
    console: consoleSessions,
    users,
    apiKeys,
    signIn,
    factors,
    factorUsers,
    factorSignIn,
    sso,
    jobs,
    employees,
    employeeImport,
    areas,
    devices,
    commands,
    enrollees,
    biometrics,
    enrollment,
    punches,
    fleet,
    corrections,
    terminals,
    proofs,
    diagnostics,
    calendar,
    attendance,
    absences,
    reports,
    completeness,
    heartbeat,
    anomalies,
    reportFiles,
    board,
    webhooks,
    retention,
    health,
    punchStream,
    punchSource,
    eventStream,
    streamQuota,
    members,
  };
}

export type Modules = ReturnType<typeof buildModules>;
