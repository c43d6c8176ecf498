/**
 * 5. Webhook deliveries per second to a local receiver (`Bun.serve` on 127.0.0.1 answering
 * 204). The endpoint is created over the admin API; N punches are ingested through the
 * punch service in terminal-sized batches; the clock runs from the first ingest until the
 * receiver holds N distinct `webhook-id`s. Duplicates are counted, a sample of signatures
 * is verified with the secret the API returned.
 */

import type { IncomingPunch } from '../src/modules/punches/service';
import { verifyWebhook } from '../src/modules/webhooks/signing';
import { API_BASE, adminJwt, approvedDevices, type Figure, hasRoute, round, skippedFigure, sleep, startBenchServer, wallTime } from './support';

export interface WebhookOptions {
  punches: number;
  batch: number;
  deadlineSeconds: number;
}

export const WEBHOOK_DEFAULTS: WebhookOptions = { punches: 10_000, batch: 200, deadlineSeconds: 60 };

const TARGET = '≥ 1,000 deliveries/s';
const SAMPLE_VERIFY = 25;

export async function benchWebhooks(options: WebhookOptions = WEBHOOK_DEFAULTS): Promise<Figure[]> {
  const title = `Webhook deliveries to a local receiver (${options.punches.toLocaleString('en')} punches)`;
  const ids = new Set<string>();
  let duplicates = 0;
  let badSignatures = 0;
  const samples: { headers: Headers; body: string }[] = [];
  let lastArrival = 0;
  const receiver = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(request) {
      const body = await request.text();
      const id = request.headers.get('webhook-id') ?? '';
      if (ids.has(id)) duplicates++;
      else ids.add(id);
      if (samples.length < SAMPLE_VERIFY) samples.push({ headers: request.headers, body });
      lastArrival = performance.now();
      return new Response(null, { status: 204 });
    },
  });
  const server = await startBenchServer('fpa-bench-webhooks-', { WEBHOOK_ALLOW_PRIVATE_NETWORKS: true });
  try {
    if (!hasRoute(server, 'POST', `${API_BASE}/webhooks`))
      return [skippedFigure('webhooks', title, 'deliveries/s', 'the webhooks admin route is not mounted yet', TARGET)];
    const { fpa } = server;
    const serial = 'BENCHHOOK1';
    await approvedDevices(fpa, [serial]);
    const device = await fpa.service.devices.get(serial);
    const created = await fetch(`${server.url}${API_BASE}/webhooks/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await adminJwt()}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `http://127.0.0.1:${receiver.port}/hook`, events: ['punch_received'] }),
    });
    const endpoint = (await created.json()) as { id?: string; secret?: string };
    if (created.status !== 201 || !endpoint.secret) throw new Error(`creating the webhook endpoint answered HTTP ${created.status}`);

    const base = Date.UTC(2025, 1, 3, 0, 0, 0);
    const batches: IncomingPunch[][] = [];
    for (let b = 0; b * options.batch < options.punches; b++) {
      const lines: IncomingPunch[] = [];
      for (let i = 0; i < options.batch && b * options.batch + i < options.punches; i++) {
        const at = base + (b * options.batch + i) * 1000;
        const pin = String(1 + (i % 50));
        const localTime = wallTime(at);
        lines.push({
          pin,
          localTime,
          punchedAt: at,
          utcOffsetMinutes: 0,
          state: 0,
          verifyType: 1,
          workCode: '0',
          extra: [],
          raw: `${pin}\t${localTime}\t0\t1\t0\t0\t0`,
        });
      }
      batches.push(lines);
    }
    const start = performance.now();
    for (const lines of batches) await fpa.service.punches.ingest(device, lines);
    const ingestSeconds = (performance.now() - start) / 1000;
    const deadline = start + options.deadlineSeconds * 1000;
    while (ids.size < options.punches && performance.now() < deadline) await sleep(5);
    const seconds = ((ids.size >= options.punches ? lastArrival : performance.now()) - start) / 1000;
    // Let late duplicates (if any) arrive before they are counted.
    await sleep(300);
    for (const s of samples) if (!verifyWebhook(endpoint.secret, s.headers, s.body)) badSignatures++;
    const complete = ids.size >= options.punches;
    const rate = ids.size / seconds;
    return [
      {
        id: 'webhooks',
        title,
        value: round(rate, 0),
        unit: 'deliveries/s',
        target: { text: TARGET, met: complete && rate >= 1000 && duplicates === 0 && badSignatures === 0 },
        notes: [
          `${ids.size}/${options.punches} distinct webhook-ids in ${round(seconds, 2)} s from the first ingest (ingest itself ${round(ingestSeconds, 2)} s)${complete ? '' : ' — deadline reached'}`,
          `${duplicates} duplicate deliveries; ${samples.length - badSignatures}/${samples.length} sampled signatures verified`,
        ],
      },
    ];
  } finally {
    await server.close();
    receiver.stop(true);
  }
}
