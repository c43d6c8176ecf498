/**
 * Enrollment, the one home of biometric data: consent; every way a template comes in (agents,
 * desktop applications with a USB reader, and their sessions; remote sessions on a terminal;
 * walk-up enrollment at a terminal); the encrypted template store; the fan-out to the terminals
 * that should hold each person and template; per-terminal sync status; and the rate limit of the
 * agent API. What it does when other modules' events are recorded is in reactions.ts.
 */

import type { AreaScope } from '../../platform/scope';
import type { CommandService } from '../commands';
import type { DeviceService } from '../devices';
import type { EnrolleeService } from '../enrollees';
import type { EventChannel, EventLog } from '../events';
import { AgentSessionService } from './agent-sessions';
import { AgentService } from './agents';
import { ConsentService } from './consent';
import type { EnrollmentEvents } from './events';
import { FanOut } from './fan-out';
import { ScopeLeaving } from './leaving';
import { AgentRateLimiter } from './rate-limit';
import { RemoteEnrollment } from './remote-sessions';
import type { EnrollmentRuntime } from './runtime';
import { SessionStore } from './sessions';
import { TemplateStore } from './template-store';
import { TemplateSync } from './template-sync';
import { WalkUpEnrollment } from './walk-up';

export class Enrollment {
  readonly events: EventChannel<EnrollmentEvents>;
  /** Encrypted templates: stored (then fanned out), opened for a terminal, listed, destroyed. */
  readonly templates: TemplateStore;
  /** What each terminal should hold of each person: templates queued, backfills, removals, conflicts. */
  readonly fanOut: FanOut;
  /** Who leaves a terminal out of their scope, and when (leaving.ts): every such path's one rule. */
  readonly leaving: ScopeLeaving;
  /** Per-terminal sync status of each template. */
  readonly sync: TemplateSync;
  readonly consent: ConsentService;
  readonly sessions: SessionStore;
  readonly agents: AgentService;
  readonly agentSessions: AgentSessionService;
  readonly remote: RemoteEnrollment;
  readonly limiter: AgentRateLimiter;
  /** Templates a terminal uploads, matched to their enrollee by PIN (walk-up.ts). */
  readonly walkUp: WalkUpEnrollment;
  private readonly inScopeOf: (enrollee: string, device: string | undefined, scope: AreaScope) => Promise<void>;

  constructor(ctx: EnrollmentRuntime, log: EventLog, deps: { enrollees: EnrolleeService; devices: DeviceService; commands: CommandService }) {
    const { enrollees, devices, commands } = deps;
    this.inScopeOf = async (enrollee, device, scope) => {
      const row = await enrollees.findByIdOrPin(ctx.db.orm, enrollee);
      // An unknown enrollee is the service's own 404.
      if (row) await enrollees.get(row.id, ctx.db.orm, scope);
      if (device !== undefined) await devices.visible(device, scope);
    };
    this.events = log.channel<EnrollmentEvents>();
    this.fanOut = new FanOut(ctx, this.events, enrollees, devices, commands);
    this.sync = new TemplateSync(ctx.clock);
    this.templates = new TemplateStore(ctx, this.events, enrollees, devices, this.fanOut);
    this.consent = new ConsentService(ctx, this.events, enrollees, this.templates);
    this.sessions = new SessionStore(ctx, this.events, commands, enrollees, devices);
    this.agents = new AgentService(ctx, this.sessions);
    this.agentSessions = new AgentSessionService(ctx, this.sessions, enrollees, { templates: this.templates, fanOut: this.fanOut });
    this.remote = new RemoteEnrollment(ctx, this.sessions, commands, enrollees, devices);
    this.limiter = new AgentRateLimiter(ctx.settings.AGENT_RATE_LIMIT, ctx.clock, ctx.db);
    this.leaving = new ScopeLeaving(ctx, this.fanOut, { devices, enrollees, commands });
    this.walkUp = new WalkUpEnrollment(ctx, this.events, {
      devices,
      enrollees,
      templates: this.templates,
      remote: this.remote,
      commands,
      leaving: this.leaving,
    });
  }

  /** 404 unless the enrollee (id or PIN) and the terminal, when named, are in the caller's areas. */
  inScope(enrollee: string, device: string | undefined, scope: AreaScope): Promise<void> {
    return this.inScopeOf(enrollee, device, scope);
  }
}
