/**
 * 5. Webhook deliveries per second to local receivers (`Bun.serve` on 127.0.0.1 answering
 * 204), with 1 endpoint and with 10, each subscribed to `punch_received` and following the
 * event log from its own position. The endpoints are created over the admin API; N punches are
 * ingested through the punch service in terminal-sized batches (nothing is written for the
 * endpoints at ingest); the clock runs from the first ingest until every receiver holds N
 * distinct `webhook-id`s. Duplicates are counted, a sample of signatures is verified with the
 * secret the API returned, and the ingest time is compared between the two runs (it must not
 * grow with the number of endpoints).
 */

import type { IncomingPunch } from '../src/modules/punches/service';
import { verifyWebhook } from '../src/modules/webhooks/signing';
import { API_BASE, adminJwt, approvedDevices, type Figure, hasRoute, round, skippedFigure, sleep, startBenchServer, wallTime } from './support';

export interface WebhookOptions {
  punches: number;
  batch: number;
  deadlineSeconds: number;
}

export const WEBHOOK_DEFAULTS: WebhookOptions = { punches: 10_000, batch: 200, deadlineSeconds: 90 };

const TARGET = '≥ 1,000 deliveries/s';
const SAMPLE_VERIFY = 25;

interface Run {
  endpoints: number;
  received: number;
  seconds: number;
  ingestSeconds: number;
  duplicates: number;
  verified: number;
  sampled: number;
  complete: boolean;
}

export async function benchWebhooks(options: WebhookOptions = WEBHOOK_DEFAULTS): Promise<Figure[]> {
  const figures: Figure[] = [];
  let single: Run | null = null;
  for (const endpoints of [1, 10]) {
    const title = `Webhook deliveries to local receivers (${options.punches.toLocaleString('en')} punches, ${endpoints} endpoint${endpoints === 1 ? '' : 's'})`;
    const id = endpoints === 1 ? 'webhooks' : `webhooks-${endpoints}`;
    const run = await deliver(options, endpoints);
    if ('skipped' in run) {
      figures.push(skippedFigure(id, title, 'deliveries/s', run.skipped, TARGET));
      continue;
    }
    const rate = run.received / run.seconds;
    const notes = [
      `${run.received.toLocaleString('en')}/${(endpoints * options.punches).toLocaleString('en')} distinct webhook-ids in ${round(run.seconds, 2)} s from the first ingest (ingest itself ${round(run.ingestSeconds, 2)} s)${run.complete ? '' : ' — deadline reached'}`,
      `${run.duplicates} duplicate deliveries; ${run.verified}/${run.sampled} sampled signatures verified`,
    ];
    if (single && endpoints > 1) notes.push(`ingest took ${round(run.ingestSeconds / single.ingestSeconds, 2)}× as long as with 1 endpoint`);
    if (endpoints === 1) single = run;
    figures.push({
      id,
      title,
      value: round(rate, 0),
      unit: 'deliveries/s',
      target: { text: TARGET, met: run.complete && rate >= 1000 && run.duplicates === 0 && run.verified === run.sampled },
      notes,
    });
  }
  return figures;
}

async function deliver(options: WebhookOptions, endpoints: number): Promise<Run | { skipped: string }> {
  const received = Array.from({ length: endpoints }, () => new Set<string>());
  let duplicates = 0;
  const samples: { endpoint: number; headers: Headers; body: string }[] = [];
  let lastArrival = 0;
  const receivers = received.map((ids, endpoint) =>
    Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      async fetch(request) {
        const body = await request.text();
        const id = request.headers.get('webhook-id') ?? '';
        if (ids.has(id)) duplicates++;
        else ids.add(id);
        if (samples.length < SAMPLE_VERIFY) samples.push({ endpoint, headers: request.headers, body });
        lastArrival = performance.now();
        return new Response(null, { status: 204 });
      },
    }),
  );
  const server = await startBenchServer('fpa-bench-webhooks-', { WEBHOOK_ALLOW_PRIVATE_NETWORKS: true });
  try {
    if (!hasRoute(server, 'POST', `${API_BASE}/webhooks`)) return { skipped: 'the webhooks admin route is not mounted yet' };
    const { fpa } = server;
    const serial = 'BENCHHOOK1';
    await approvedDevices(fpa, [serial]);
    const device = await fpa.service.devices.get(serial);
    const secrets: string[] = [];
    const token = await adminJwt();
    for (const r of receivers) {
      const created = await fetch(`${server.url}${API_BASE}/webhooks/`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `http://127.0.0.1:${r.port}/hook`, events: ['punch_received'] }),
      });
      const endpoint = (await created.json()) as { id?: string; secret?: string };
      if (created.status !== 201 || !endpoint.secret) throw new Error(`creating the webhook endpoint answered HTTP ${created.status}`);
      secrets.push(endpoint.secret);
    }

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
    const total = () => received.reduce((n, ids) => n + ids.size, 0);
    const want = endpoints * options.punches;
    const start = performance.now();
    for (const lines of batches) await fpa.service.punches.ingest(device, lines);
    const ingestSeconds = (performance.now() - start) / 1000;
    const deadline = start + options.deadlineSeconds * 1000;
    while (total() < want && performance.now() < deadline) await sleep(5);
    const complete = total() >= want;
    const seconds = ((complete ? lastArrival : performance.now()) - start) / 1000;
    // Let late duplicates (if any) arrive before they are counted.
    await sleep(300);
    const verified = samples.filter((s) => verifyWebhook(secrets[s.endpoint]!, s.headers, s.body)).length;
    return { endpoints, received: total(), seconds, ingestSeconds, duplicates, verified, sampled: samples.length, complete };
  } finally {
    await server.close();
    for (const r of receivers) r.stop(true);
  }
}
