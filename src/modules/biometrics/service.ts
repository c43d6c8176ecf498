/**
 * Biometric data: consent, the encrypted templates and what each terminal holds of them.
 * Assembled here from its parts (consent.ts, templates.ts, terminal-sync.ts).
 */
import { sql } from 'drizzle-orm';
import { chunks } from '../../platform/chunks';
import type { Runtime } from '../../platform/runtime';
import type { CommandService } from '../commands';
import type { DeviceService } from '../devices';
import type { EnrolleeService } from '../enrollees';
import type { EventChannel, EventLog } from '../events';
import { ConsentService } from './consent';
import type { BiometricEvents } from './events';
import { consents, templates } from './tables';
import { TemplateStore } from './templates';
import { keepTerminalsInSync } from './terminal-sync';

export class Biometrics {
  readonly events: EventChannel<BiometricEvents>;
  readonly templates: TemplateStore;
  readonly consent: ConsentService;

  constructor(ctx: Runtime, log: EventLog, deps: { enrollees: EnrolleeService; devices: DeviceService; commands: CommandService }) {
    const { enrollees, devices, commands } = deps;
    this.events = log.channel<BiometricEvents>();
    this.templates = new TemplateStore(ctx, this.events, enrollees, devices, commands);
    this.consent = new ConsentService(ctx, this.events, enrollees, this.templates);
    keepTerminalsInSync({ clock: ctx.clock, enrollees, devices, commands, templates: this.templates, consent: this.consent });
    enrollees.addViewPart(async (q, ids) => {
      const consents = await this.consent.currentOf(q, ids);
      const fingers = await this.templates.fingersOf(q, ids);
      return new Map(ids.map((id) => [id, { consent: consents.get(id) ?? null, fingers: fingers.get(id) ?? [] }]));
    });
    // `enrollees/?consent=&biometrics=`: answered from the indexes by enrollee of consents and templates.
    enrollees.addListFilter('consent', (value, enrollee) => {
      const given = sql`exists (select 1 from ${consents} c where c.enrollee_id = ${enrollee} and c.withdrawn_at is null)`;
      return value === 'given' ? given : sql`not ${given}`;
    });
    enrollees.addListFilter('biometrics', (value, enrollee) => {
      const some = sql`exists (select 1 from ${templates} t where t.enrollee_id = ${enrollee})`;
      return value === 'some' ? some : sql`not ${some}`;
    });
    devices.addDetail(async (q, device) => ({ templates_present: await this.templates.countPresent(q, device.id) }));
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
    const due = await this.enrollees.deactivatedBefore(q, deactivatedBefore, await this.templates.owners(q));
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
