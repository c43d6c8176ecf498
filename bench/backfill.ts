/**
 * 3. Approval backfill: 10,000 enrollees × 2 fingers in the default area, one pending
 * terminal (the simulator, over HTTP). Timed: `approveDevice`, which asks the terminal for its
 * users, and the terminal's poll that answers it (no users), upon which the backfill is queued
 * (modules/fleet). Preparation (bulk rows, encrypted templates) is not timed. The queued
 * commands are counted in the database afterwards, not taken from a return value.
 */
import { and, eq, sql } from 'drizzle-orm';
import { deviceCommands } from '../src/app/schema';
import { SimulatedTerminal } from '../src/simulator/terminal';
import { bulkEnrollees, type Figure, round, startBenchServer } from './support';

export interface BackfillOptions {
  enrollees: number;
  fingers: number[];
}

export const BACKFILL_DEFAULTS: BackfillOptions = { enrollees: 10_000, fingers: [1, 6] };

export async function benchBackfill(options: BackfillOptions = BACKFILL_DEFAULTS): Promise<Figure[]> {
  const server = await startBenchServer('fpa-bench-backfill-');
  try {
    const { fpa } = server;
    await bulkEnrollees(fpa, options.enrollees, { fingers: options.fingers });
    const serial = 'BENCHBACKFILL1';
    const terminal = new SimulatedTerminal({ url: server.url, sn: serial });
    await terminal.handshake();
    const device = await fpa.service.devices.registration.touch(serial, { pushVersion: '2.4.1' });
    const start = performance.now();
    await fpa.service.approveDevice(serial, { by: 'bench' });
    const asked = await terminal.poll();
    if (!asked.some((c) => c.text.startsWith('DATA QUERY USERINFO'))) throw new Error('the approved terminal was not asked for its users');
    const seconds = (performance.now() - start) / 1000;

    const counts = await fpa.db.orm
      .select({ kind: deviceCommands.kind, n: sql<number>`count(*)` })
      .from(deviceCommands)
      .where(and(eq(deviceCommands.deviceId, device.id), eq(deviceCommands.status, 'pending')))
      .groupBy(deviceCommands.kind);
    const templateCommands = counts.find((c) => c.kind === 'update_template')?.n ?? 0;
    const userCommands = counts.find((c) => c.kind === 'add_user')?.n ?? 0;
    const expectedTemplates = options.enrollees * options.fingers.length;
    if (templateCommands !== expectedTemplates || userCommands !== options.enrollees) {
      throw new Error(`backfill queued ${templateCommands} template and ${userCommands} user commands, expected ${expectedTemplates} and ${options.enrollees}`);
    }
    const total = templateCommands + userCommands;
    return [
      {
        id: 'backfill',
        title: `Approval backfill (${options.enrollees.toLocaleString('en')} enrollees × ${options.fingers.length} fingers, 1 device)`,
        value: round(total / seconds, 0),
        unit: 'commands/s',
        target: { text: `${expectedTemplates.toLocaleString('en')} template commands (+ ${userCommands.toLocaleString('en')} users) < 2 s`, met: seconds < 2 },
        notes: [
          `approval, the user query and its answer took ${round(seconds, 3)} s for ${total} commands (${templateCommands} update_template + ${userCommands} add_user)`,
        ],
      },
    ];
  } finally {
    await server.close();
  }
}
