/**
 * This server's own heartbeat: a serving instance writes the time every HEARTBEAT_MS. At start,
 * a heartbeat older than DEVICE_OFFLINE_AFTER means the server was down (or unreachable to
 * itself) since: terminals kept their records meanwhile, and a firmware that moved its stamp
 * while the server did not answer would never send them, so a re-upload of that range is planned
 * for every approved terminal (reason `server_outage`; the check sends it, service.ts).
 */
import { eq } from 'drizzle-orm';
import type { CompletenessRuntime } from './runtime';
import type { Completeness } from './service';
import { serverHeartbeat } from './tables';

const HEARTBEAT_MS = 30_000;
const ROW = 1;

export class ServerHeartbeat {
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly ctx: CompletenessRuntime,
    private readonly completeness: Completeness,
  ) {}

  /** Checks the last heartbeat (queueing re-uploads after an outage), then beats on. */
  async start(): Promise<{ down_since: number | null; queued: number }> {
    const outcome = await this.checkOutage();
    await this.beat();
    this.timer ??= setInterval(() => {
      this.beat().catch((error) => this.ctx.log.warn('the server heartbeat was not written', { error: String(error) }));
    }, HEARTBEAT_MS);
    this.timer.unref?.();
    return outcome;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async beat(): Promise<void> {
    const at = this.ctx.clock.now();
    await this.ctx.db.write(({ tx }) =>
      tx
        .insert(serverHeartbeat)
        .values({ id: ROW, at })
        .onConflictDoUpdate({ target: serverHeartbeat.id, set: { at } })
        .then(() => undefined),
    );
  }

  private async checkOutage(): Promise<{ down_since: number | null; queued: number }> {
    const [last] = await this.ctx.db.orm.select().from(serverHeartbeat).where(eq(serverHeartbeat.id, ROW)).limit(1);
    const now = this.ctx.clock.now();
    if (!last || now - last.at < this.ctx.settings.DEVICE_OFFLINE_AFTER) return { down_since: null, queued: 0 };
    const devices = await this.completeness.deps.devices.withStatus('approved');
    await this.ctx.db.write(async (w) => {
      for (const device of devices) await this.completeness.afterOutage(w, device, 'server_outage', last.at);
    });
    this.ctx.log.info('the server was down: approved terminals are asked to re-upload the punches of that time', {
      down_since: new Date(last.at).toISOString(),
      terminals: devices.length,
    });
    return { down_since: last.at, queued: devices.length };
  }
}
