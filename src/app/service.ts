/**
 * The in-process API a host calls (`fpa.service`): the spec's service operations and each
 * module's service, so a host can do from code whatever an administrator can do over HTTP.
 */
import type { CalendarProvider } from '../modules/calendar';
import type { UserCreateInput } from '../modules/users';
import { FpaError } from '../platform/errors';
import { OPERATOR } from '../platform/http/caller';
import type { Runtime } from '../platform/runtime';
import type { Modules } from './modules';

export function buildService(m: Modules, runtime: Runtime) {
  return {
    ...peopleOperations(m),
    ...enrollmentOperations(m),
    ...timeOperations(m),
    ...accountOperations(m),
    ...upkeepOperations(m),
    ...moduleServices(m),
    /** Settings, database, key ring, clock and instance id this instance runs with. */
    runtime,
  };
}

/** Terminals and people: approve, disable, enroll, consent, delete, store a template. */
function peopleOperations(m: Modules) {
  const { devices, enrollees, enrollment } = m;
  return {
    /** Approves a pending device and backfills every in-scope enrollee onto it. */
    approveDevice: (device: string, options: { by: string; areas?: string[] }) => devices.administration.approveDevice(device, options),
    disableDevice: (device: string, options: { by: string }) => devices.administration.disableDevice(device, options),
    /** Creates an enrollee with an auto-generated device PIN. */
    createEnrollee: (employee: string, options: { areas?: string[]; by?: string } = {}) => enrollees.changes.create(employee, options),
    giveConsent: (enrollee: string, consent: { version: string; method: string; by: string }) => enrollment.consent.give(enrollee, consent),
    withdrawConsent: (enrollee: string, options: { by: string }) => enrollment.consent.withdraw(enrollee, options),
    deleteEnrollee: (enrollee: string, options: { by: string }) => enrollees.changes.delete(enrollee, options),
    /** Validates, encrypts, versions, stores and fans out one template. */
    storeTemplate: (
      enrollee: string,
      finger: number,
      data: Uint8Array,
      options: { algorithmVersion: string; quality?: number; by: string; source?: 'api' | 'agent' | 'device' | 'remote'; device?: string | null },
    ) =>
      enrollment.templates.storeTemplate({
        enrolleeId: enrollee,
        fingerIndex: finger,
        data,
        algorithmVersion: options.algorithmVersion,
        quality: options.quality ?? null,
        source: options.source ?? 'api',
        sourceDeviceId: options.device ?? null,
        by: options.by,
      }),
  };
}

/** Enrollment sessions (remote on a terminal, or through an agent) and the agents. */
function enrollmentOperations(m: Modules) {
  const { enrollment } = m;
  return {
    /**
     * docs/spec.md `start_enrollment_session(enrollee, device or agent, fingers)`: a remote session on the
     * terminal with serial `device`, or an agent session for the agent with id `agent` (exactly one).
     */
    startEnrollmentSession: async (enrollee: string, options: { device?: string; agent?: string; fingers: number[]; by: string }) => {
      const { device, agent, fingers, by } = options;
      if (device && agent) throw new FpaError('validation_error', 'give exactly one of device and agent', { fields: ['device', 'agent'] });
      if (device) return enrollment.remote.start(enrollee, { device, fingers, by });
      if (agent) return enrollment.agentSessions.startAgentSession(enrollee, { agent, fingers, by });
      throw new FpaError('validation_error', 'give exactly one of device and agent', { fields: ['device', 'agent'] });
    },
    /** Remote enrollment on a terminal; `enrollee` is its UUID or PIN. */
    startRemoteEnrollment: (enrollee: string, options: { device: string; fingers: number[]; by: string }) => enrollment.remote.start(enrollee, options),
    /** An agent session; `enrollee` is its UUID or PIN. */
    startAgentSession: (enrollee: string, options: { agent: string; fingers: number[]; by: string }) =>
      enrollment.agentSessions.startAgentSession(enrollee, options),
    /** Creates an enrollment agent; `key` is returned this one time and never stored. */
    createAgent: (name: string, options: { algorithmVersion: string; areas?: readonly string[]; by: string }) =>
      enrollment.agents.createAgent({ name, algorithmVersion: options.algorithmVersion, areas: options.areas, by: options.by }),
    revokeAgent: (agent: string, options: { by: string }) => enrollment.agents.revokeAgent(agent, options),
  };
}

/** Punches by hand and voided, the host's calendar, attendance recomputed. */
function timeOperations(m: Modules) {
  return {
    /** A punch entered by hand (`source: "manual"`), audited with `by` and the reason. */
    recordManualPunch: (enrollee: string, punch: { at: string; state?: number; reason: string; by: string }) =>
      m.corrections.manual({ enrollee, at: punch.at, state: punch.state, reason: punch.reason }, punch.by),
    /** Voids a punch: it stays listed and no longer counts for attendance. */
    voidPunch: (punch: string, options: { reason: string; by: string }) => m.corrections.void(punch, options.reason, options.by),
    /**
     * The host's own leave or rosters: `provider` adds leaves and shifts to every plan (it runs
     * inside attendance's write transactions, so it must answer from memory); call
     * `calendarChanged` whenever they change so the days they touch are recomputed.
     */
    addCalendarProvider: (provider: CalendarProvider) => m.calendar.addProvider(provider),
    calendarChanged: (range: { from: string; to?: string | null }, enrollees?: string[], options: { by?: string } = {}) =>
      m.calendar.calendarChanged(range, { enrollees, by: options.by }),
    /** Recomputes the days of a range now (`POST attendance-days/recompute/`). */
    recomputeAttendance: (range: { from: string; to: string; enrollee?: string }) => m.attendance.recompute(range),
  };
}

/** People who sign in: console links, invites, users and API keys. */
function accountOperations(m: Modules) {
  return {
    /** A one-time console sign-in link for `actor` (the token is returned this once): `/console/sign-in#token=…` (`signInPath`). */
    createConsoleLink: (actor: string, options: { by: string }) => m.console.createLink(actor, { ...OPERATOR, by: options.by }),
    /**
     * Invites a user as the operator (`bun run fpa:create-user`): the account and its one-time
     * `invite_url` under `consoleBase` (the console's origin, e.g. `https://attendance.example.com`).
     */
    inviteUser: (input: UserCreateInput, options: { consoleBase: string; by?: string }) =>
      m.users.create({ ...OPERATOR, by: options.by ?? 'operator' }, input, options.consoleBase),
    /** People who sign in: list, change, reset, remove (each call takes the acting `Caller`). */
    users: m.users,
    /** API keys: create, list, revoke (each call takes the acting `Caller`). */
    apiKeys: m.apiKeys,
  };
}

/** Deletion proofs, the retention purge, the streams closed. */
function upkeepOperations(m: Modules) {
  return {
    /** The public key set that verifies deletion proofs (what `/.well-known/fpa-proof-key.json` serves), for a host serving it elsewhere. */
    proofKeys: () => m.proofs.keys.jwks(),
    /**
     * Deletion proofs: `document(enrollee, { areas: [], by: 'hr' }, 'json')` is the signed proof
     * of one person (`'pdf'` its readable PDF; `areas: []` is every area), its download audited as `by`.
     */
    proofs: m.proofs,
    /** The retention purge, now. */
    purgeRetention: () => m.retention.purge(),
    /**
     * Closes the open live streams (punches, events: the console's Today board too) with 1001 and
     * refuses new ones. A host stopping its app calls this first (README, "Embedding in a host
     * application"): Bun's server.stop() waits for every open WebSocket, and Elysia runs onStop
     * hooks only after it, so the plugin cannot do it itself.
     */
    closeStreams: async () => {
      await m.punchStream.stop();
      await m.eventStream.stop();
    },
  };
}

/** Each module's service, for whatever the operations above do not name. */
function moduleServices(m: Modules) {
  return {
    devices: m.devices,
    /** `areas/`: create, rename, describe, delete when unused. */
    areas: m.areas,
    commands: m.commands,
    enrollees: m.enrollees,
    enrollment: m.enrollment,
    punches: m.punches,
    /** What each terminal holds: its users, adoption, removal, resync. */
    fleet: m.fleet,
    corrections: m.corrections,
    calendar: m.calendar,
    attendance: m.attendance,
    reports: m.reports,
    /** The report files (daily, timesheet, summary, exceptions as CSV, Excel, PDF): build a document, then its `file`. */
    reportFiles: m.reportFiles,
    webhooks: m.webhooks.service,
    terminals: m.terminals,
    events: m.events,
  };
}

export type Service = ReturnType<typeof buildService>;
