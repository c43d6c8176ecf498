import { chunks } from '../../platform/chunks';
import type { Runtime } from '../../platform/runtime';
import type { CommandService } from '../commands';
import type { DeviceService } from '../devices';
import type { EnrolleeService } from '../enrollees';
import type { EventChannel, EventLog } from '../events';
import { ConsentService } from './consent';
import type { BiometricEvents } from './events';
import { TemplateStore } from './templates';

export class Biometrics {
  readonly events: EventChannel<BiometricEvents>;
  readonly templates: TemplateStore;
  readonly consent: ConsentService;

  constructor(ctx: Runtime, log: EventLog, deps: { enrollees: EnrolleeService; devices: DeviceService; commands: CommandService }) {
    const { enrollees, devices, commands } = deps;
    this.events = log.channel<BiometricEvents>();
    this.templates = new TemplateStore(ctx, this.events, enrollees, devices, commands);
    this.consent = new ConsentService(ctx, this.events, enrollees, this.templates);
    this.enrollees = enrollees;
    this.ctx = ctx;
  }

  private readonly enrollees: EnrolleeService;
  private readonly ctx: Runtime;

  /**
   * Retention: destroys the templates of enrollees deactivated before `deactivatedBefore`
   * (deletes are queued to the terminals), a few enrollees per transaction.
   */
  async destroyOfDeactivated(deactivatedBefore: number): Promise<number> {
    const q = this.ctx.db.orm;
    const due = await this.enrollees.retention.deactivatedBefore(q, deactivatedBefore, await this.templates.owners(q));
    let total = 0;
    for (const batch of chunks(due, TEMPLATE_BATCH)) {
      total += await this.ctx.db.write(async (w) => {
        let n = 0;
        for (const enrollee of batch) {
          // Re-checked inside the transaction: the enrollee may have been reactivated meanwhile.
          const current = await this.enrollees.find(w.tx, enrollee.id);
          if (current?.status !== 'deactivated' || current.deactivatedAt === null || current.deactivatedAt >= deactivatedBefore) continue;
          n += await this.templates.destroyTemplatesIn(w, current, 'retention: deactivated enrollee', 'system');
        }
        return n;
      });
    }
    return total;
  }
}

/** Enrollees whose templates are destroyed per transaction (each queues device commands). */
const TEMPLATE_BATCH = 50;
