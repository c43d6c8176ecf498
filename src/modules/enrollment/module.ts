/**
 * Enrollment: agents (desktop applications with a USB reader), agent sessions, remote sessions
 * on a terminal, walk-up enrollment at a terminal, and the rate limit of the agent API. What it does when other modules' events
 * are recorded is in reactions.ts.
 */

import type { AreaScope } from '../../platform/scope';
import type { Biometrics } from '../biometrics';
import type { CommandService } from '../commands';
import type { DeviceService } from '../devices';
import type { EnrolleeService } from '../enrollees';
import type { EventChannel, EventLog } from '../events';
import { AgentSessionService } from './agent-sessions';
import { AgentService } from './agents';
import type { EnrollmentEvents } from './events';
import { AgentRateLimiter } from './rate-limit';
import { RemoteEnrollment } from './remote-sessions';
import type { EnrollmentRuntime } from './runtime';
import { SessionStore } from './sessions';
import { WalkUpEnrollment } from './walk-up';

export class Enrollment {
  readonly events: EventChannel<EnrollmentEvents>;
  readonly sessions: SessionStore;
  readonly agents: AgentService;
  readonly agentSessions: AgentSessionService;
  readonly remote: RemoteEnrollment;
  readonly limiter: AgentRateLimiter;
  /** Templates a terminal uploads, matched to their enrollee by PIN (walk-up.ts). */
  readonly walkUp: WalkUpEnrollment;
  private readonly inScopeOf: (enrollee: string, device: string | undefined, scope: AreaScope) => Promise<void>;

  constructor(
    ctx: EnrollmentRuntime,
    log: EventLog,
    deps: { enrollees: EnrolleeService; devices: DeviceService; commands: CommandService; biometrics: Biometrics },
  ) {
    const { enrollees, devices, commands, biometrics } = deps;
    this.inScopeOf = async (enrollee, device, scope) => {
      const row = await enrollees.findByIdOrPin(ctx.db.orm, enrollee);
      // An unknown enrollee is the service's own 404.
      if (row) await enrollees.get(row.id, ctx.db.orm, scope);
      if (device !== undefined) await devices.visible(device, scope);
    };
    this.events = log.channel<EnrollmentEvents>();
    this.sessions = new SessionStore(ctx, this.events, commands, enrollees, devices);
    this.agents = new AgentService(ctx, this.sessions);
    this.agentSessions = new AgentSessionService(ctx, this.sessions, enrollees, biometrics);
    this.remote = new RemoteEnrollment(ctx, this.sessions, commands, enrollees, devices);
    this.limiter = new AgentRateLimiter(ctx.settings.AGENT_RATE_LIMIT, ctx.clock, ctx.db);
    this.walkUp = new WalkUpEnrollment(ctx, this.events, { devices, enrollees, biometrics, remote: this.remote, commands });
  }

  /** 404 unless the enrollee (id or PIN) and the terminal, when named, are in the caller's areas. */
  inScope(enrollee: string, device: string | undefined, scope: AreaScope): Promise<void> {
    return this.inScopeOf(enrollee, device, scope);
  }
}
