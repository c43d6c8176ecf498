/**
 * 4. storeTemplate fan-out: 500 approved terminals in the default area, then
 * `fpa.service.storeTemplate` N times (one new template each, sequentially). Reports the time
 * per template; the queued commands are counted afterwards.
 */
import { eq, sql } from 'drizzle-orm';
import { deviceCommands } from '../src/app/schema';
import { approvedDevices, bulkEnrollees, type Figure, round, startBenchServer } from './support';

export interface FanoutOptions {
  devices: number;
  templates: number;
}

export const FANOUT_DEFAULTS: FanoutOptions = { devices: 500, templates: 20 };

export async function benchFanout(options: FanoutOptions = FANOUT_DEFAULTS): Promise<Figure[]> {
  const server = await startBenchServer('fpa-bench-fanout-');
  try {
    const { fpa } = server;
    await approvedDevices(
      fpa,
      Array.from({ length: options.devices }, (_, i) => `BENCHFAN${String(i).padStart(4, '0')}`),
    );
    const people = await bulkEnrollees(fpa, options.templates);
    // Warm-up on a separate enrollee so JIT and statement caches are primed, not counted.
    const [warm] = await bulkEnrollees(fpa, 1, { firstPin: 900_000 });
    await fpa.service.storeTemplate(warm!.id, 1, crypto.getRandomValues(new Uint8Array(600)), { algorithmVersion: '10', by: 'bench' });

    const times: number[] = [];
    for (const person of people) {
      const data = crypto.getRandomValues(new Uint8Array(600));
      const start = performance.now();
      const stored = await fpa.service.storeTemplate(person.id, 1, data, { algorithmVersion: '10', by: 'bench' });
      times.push(performance.now() - start);
      if (stored.queuedTo !== options.devices) throw new Error(`storeTemplate queued to ${stored.queuedTo} devices, expected ${options.devices}`);
    }
    const [queued] = await fpa.db.orm.select({ n: sql<number>`count(*)` }).from(deviceCommands).where(eq(deviceCommands.kind, 'update_template'));
    const expected = (options.templates + 1) * options.devices;
    if (queued?.n !== expected) throw new Error(`fan-out queued ${queued?.n} template commands, expected ${expected}`);
    const total = times.reduce((a, b) => a + b, 0);
    const sorted = [...times].sort((a, b) => a - b);
    return [
      {
        id: 'fanout',
        title: `storeTemplate fan-out to ${options.devices} devices`,
        value: round(total / times.length, 1),
        unit: 'ms/template',
        target: null,
        notes: [
          `${options.templates} templates: median ${round(sorted[Math.floor(sorted.length / 2)]!, 1)} ms, max ${round(sorted[sorted.length - 1]!, 1)} ms; ${round((options.templates * options.devices) / (total / 1000), 0)} commands/s`,
        ],
      },
    ];
  } finally {
    await server.close();
  }
}
