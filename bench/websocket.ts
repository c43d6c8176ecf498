import { API_BASE, adminJwt, type Figure, mb, memory, round, skippedFigure, sleep, spawnServer, tempDir, wallTime } from './support';

export interface WebSocketOptions {
  clients: number;
  punches: number;
  batch: number;
  deadlineSeconds: number;
}

export const WEBSOCKET_DEFAULTS: WebSocketOptions = { clients: 1_000, punches: 500, batch: 50, deadlineSeconds: 90 };

const TARGET = '< 300 MB RSS';
const ADMS = '/iclock/';

export async function benchWebSocket(options: WebSocketOptions = WEBSOCKET_DEFAULTS): Promise<Figure[]> {
  const title = `Server RSS with ${options.clients.toLocaleString('en')} WebSocket subscribers, ${options.punches} punches flowing`;
  const tmp = tempDir('fpa-bench-ws-');
  // All subscribers use one administrator token; the per-administrator cap must allow them.
  const child = await spawnServer(tmp.dir, { FPA_WEBSOCKET_MAX_PER_ADMIN: String(options.clients) }).catch((error: unknown) => {
    tmp.cleanup();
    throw error;
  });
  const { url, port } = child;
  const sockets: WebSocket[] = [];
  try {
    const rssStart = memory(child.pid);
    const token = await adminJwt();
    const admin = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

    // Terminal: first contact registers it, the admin API approves it.
    const serial = 'BENCHWS1';
    const hello = await fetch(`${url}${ADMS}cdata?SN=${serial}&options=all&pushver=2.4.1`);
    if (hello.status === 404) return [skippedFigure('websocket', title, 'MB', 'the ADMS routes are not mounted yet', TARGET)];
    const approved = await fetch(`${url}${API_BASE}/devices/${serial}/approve/`, { method: 'POST', headers: admin, body: '{}' });
    if (approved.status !== 200) throw new Error(`approving the terminal answered HTTP ${approved.status}`);

    // Subscribers, opened 100 at a time.
    const received = new Array<number>(options.clients).fill(0);
    const streamUrl = `ws://127.0.0.1:${port}${API_BASE}/punches/stream/?after=0&access_token=${encodeURIComponent(token)}`;
    let closedEarly = 0;
    let firstMessage: string | null = null;
    for (let i = 0; i < options.clients; i += 100) {
      const opening: Promise<void>[] = [];
      for (let c = i; c < Math.min(options.clients, i + 100); c++) {
        const ws = new WebSocket(streamUrl);
        sockets.push(ws);
        ws.onmessage = (event) => {
          firstMessage ??= String(event.data);
          received[c]!++;
        };
        opening.push(
          new Promise<void>((resolve, reject) => {
            ws.onopen = () => resolve();
            ws.onerror = () => reject(new Error('a WebSocket subscriber could not connect'));
            ws.onclose = () => {
              closedEarly++;
              reject(new Error('a WebSocket subscriber was closed while connecting'));
            };
          }),
        );
      }
      try {
        await Promise.all(opening);
      } catch (error) {
        if (i === 0) return [skippedFigure('websocket', title, 'MB', `the punch stream is not available: ${(error as Error).message}`, TARGET)];
        throw error;
      }
    }
    for (const ws of sockets) ws.onclose = () => closedEarly++;
    await sleep(200);
    const rssConnected = memory(child.pid);

    // Punches flow while RSS is sampled.
    let peakSampled = rssConnected.rss;
    const sampler = setInterval(() => {
      peakSampled = Math.max(peakSampled, memory(child.pid).rss);
    }, 50);
    const base = Date.UTC(2025, 2, 3, 8, 0, 0);
    const start = performance.now();
    for (let b = 0; b * options.batch < options.punches; b++) {
      const n = Math.min(options.batch, options.punches - b * options.batch);
      const body = Array.from({ length: n }, (_, i) => {
        const k = b * options.batch + i;
        return `${1 + (k % 40)}\t${wallTime(base + k * 1000)}\t0\t1\t0\t0\t0\n`;
      }).join('');
      const res = await fetch(`${url}${ADMS}cdata?SN=${serial}&table=ATTLOG&Stamp=9999`, { method: 'POST', body, headers: { 'content-type': 'text/plain' } });
      const text = (await res.text()).trim();
      if (res.status !== 200 || !text.startsWith('OK')) throw new Error(`ATTLOG upload answered HTTP ${res.status} "${text.slice(0, 60)}"`);
    }
    const deadline = performance.now() + options.deadlineSeconds * 1000;
    const complete = () => received.every((n) => n >= options.punches);
    while (!complete() && closedEarly === 0 && performance.now() < deadline) await sleep(20);
    const seconds = (performance.now() - start) / 1000;
    clearInterval(sampler);
    const end = memory(child.pid);
    const delivered = received.reduce((a, b) => a + b, 0);
    const peak = Math.max(end.hwm, peakSampled);
    const done = complete();
    if (firstMessage !== null && !isPunchMessage(firstMessage)) throw new Error('the stream sent something other than a punch');
    return [
      {
        id: 'websocket',
        title,
        value: round(peak / 1024 ** 2, 1),
        unit: 'MB',
        target: { text: TARGET, met: done && peak < 300 * 1024 ** 2 },
        notes: [
          `RSS at start ${mb(rssStart.rss)}, with ${options.clients} clients connected ${mb(rssConnected.rss)}, after the flow ${mb(end.rss)} (VmHWM ${mb(end.hwm)})`,
          `${delivered.toLocaleString('en')}/${(options.clients * options.punches).toLocaleString('en')} messages delivered in ${round(seconds, 2)} s (${round(delivered / seconds, 0)} msg/s)${done ? '' : ' — INCOMPLETE'}; ${closedEarly} subscribers closed early`,
        ],
      },
    ];
  } finally {
    for (const ws of sockets) ws.close();
    await child.stop();
    tmp.cleanup();
  }
}

function isPunchMessage(text: string): boolean {
  try {
    const parsed = JSON.parse(text) as { sequence?: unknown; punch?: { sequence?: unknown } };
    return typeof parsed.sequence === 'number' || typeof parsed.punch?.sequence === 'number';
  } catch {
    return false;
  }
}
