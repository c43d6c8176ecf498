/**
 * Crash safety: the standalone server runs as a child process and is killed with SIGKILL at
 * random moments while four terminals push attendance (one also uploads walk-up templates) and
 * an enrollment agent runs sessions. After each kill the server is started again on the same
 * file (taking over the stale lock) and the terminals resend whatever was not answered `OK`.
 * At the end every acknowledged punch is stored exactly once, nothing else is, sequences follow
 * recording order, polling sees each punch once, each punch has exactly one `punch_received`
 * event and its attendance day counts it, every webhook endpoint eventually receives every
 * punch under that event's id (one `webhook-id` per punch, however often it is sent), and no
 * template, staged upload or session is half-written.
 *
 * CI makes 5 kills; `bun run test:crash` makes 50 (FPA_CRASH_KILLS). FPA_CRASH_SEED repeats a
 * run's kill schedule.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { readLock } from '../../src/platform/db/lock';
import { attendanceDays, openReadOnly, punchEvents, sameBytes, sessionStatuses, storedPunches, templateState } from '../support/crash-checks';
import { CrashAgent, lineKey, seededRandom, TrackedTerminal } from '../support/crash-load';
import { ChildServer, serverEnv } from '../support/crash-server';
import { ApiClient, adminToken, TEST_KEY, tempDir } from '../support/harness';

const KILLS = Number(process.env.FPA_CRASH_KILLS ?? 5);
const SEED = Number(process.env.FPA_CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));
const API = '/api/fingerprint/v1';
/** Monday 2026-01-05 06:00 UTC: first punch of the first terminal; terminals are a year apart. */
const FIRST_PUNCH = Date.UTC(2026, 0, 5, 6, 0, 0);
const YEAR_MS = 365 * 86_400_000;

const work = tempDir('fpa-crash-');
const dbFile = join(work.dir, 'fpa.db');
let server: ChildServer | null = null;
let receiver: ReturnType<typeof Bun.serve> | null = null;

afterAll(async () => {
  await server?.kill();
  receiver?.stop(true);
  work.cleanup();
});

async function expectCreated(res: Promise<{ status: number; body: Record<string, unknown> }>, what: string): Promise<Record<string, unknown>> {
  const r = await res;
  if (r.status !== 201) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

async function person(admin: ApiClient, id: string): Promise<{ id: string; pin: string }> {
  await expectCreated(admin.post('/employees/', { id, name: `Person ${id}` }), `employee ${id}`);
  const e = await expectCreated(admin.post('/enrollees/', { employee: id }), `enrollee ${id}`);
  await expectCreated(admin.post(`/enrollees/${String(e.id)}/consent/`, { version: 'v1', method: 'paper' }), `consent ${id}`);
  return { id: String(e.id), pin: String(e.device_pin) };
}

/** `punches/latest/?after=` until an empty page: every sequence, in the order served. */
async function pollAll(admin: ApiClient): Promise<number[]> {
  const seen: number[] = [];
  let after = 0;
  for (;;) {
    const page = await admin.get(`/punches/latest/?after=${after}&limit=37`);
    expect(page.status).toBe(200);
    const results = page.body.results as { sequence: number }[];
    if (results.length === 0) return seen;
    for (const p of results) seen.push(p.sequence);
    after = page.body.last_sequence as number;
  }
}

describe('crash safety (SIGKILL during ingestion, enrollment and delivery)', () => {
  test(`${KILLS} kills: nothing acknowledged is lost or doubled, nothing half-written`, async () => {
    const began = Date.now();
    // The kill schedule has its own generator, so a seed repeats it exactly; the load's
    // choices interleave with timing and only start from the same state.
    const killRandom = seededRandom(SEED);
    const random = seededRandom(SEED + 1);
    const context = () => `seed ${SEED} (FPA_CRASH_SEED=${SEED} repeats the kill schedule)`;
    let deliveries = 0;
    /** Per endpoint path: the webhook-ids each punch sequence arrived under. */
    const received = new Map<string, Map<number, Set<string>>>();
    receiver = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: async (req) => {
        const body = JSON.parse(await req.text()) as { type: string; data: { punch: { sequence: number } } };
        deliveries++;
        const path = new URL(req.url).pathname;
        const byPunch = received.get(path) ?? new Map<number, Set<string>>();
        received.set(path, byPunch);
        if (body.type === 'punch_received') {
          const ids = byPunch.get(body.data.punch.sequence) ?? new Set<string>();
          ids.add(req.headers.get('webhook-id') ?? '');
          byPunch.set(body.data.punch.sequence, ids);
        }
        return new Response(null, { status: 204 });
      },
    });
    server = new ChildServer(
      work.dir,
      serverEnv(work.dir, {
        FPA_WEBHOOK_WORKER: 'true',
        FPA_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        FPA_AGENT_RATE_LIMIT: '1000000/m',
        FPA_LOG_LEVEL: 'error',
      }),
    );
    await server.start();
    const admin = new ApiClient(`${server.url}${API}`, { authorization: `Bearer ${await adminToken({ expiresIn: '2h' })}` });

    // Two webhook endpoints subscribed to punches before any punch, so each must get every one.
    const paths = ['/a', '/b'];
    for (const path of paths) await expectCreated(admin.post('/webhooks/', { url: `http://127.0.0.1:${receiver.port}${path}` }), `webhook ${path}`);

    const walkUpPeople = [await person(admin, 'W-1'), await person(admin, 'W-2')];
    const punchPeople = [await person(admin, 'P-1'), await person(admin, 'P-2')];
    const enrolled = await person(admin, 'A-1');
    const agentRow = await expectCreated(admin.post('/enrollment-agents/', { name: 'crash desk', algorithm_version: '10' }), 'agent');

    const pins = [...punchPeople.map((p) => p.pin), '9001', '9002', '9003'];
    const terminals = ['CRASH01', 'CRASH02', 'CRASH03', 'CRASH04'].map(
      (sn, i) =>
        new TrackedTerminal(
          sn,
          server!.url,
          pins,
          FIRST_PUNCH + i * YEAR_MS,
          i === 0 ? { pins: walkUpPeople.map((p) => p.pin), fingers: [0, 1, 2], chance: 0.3 } : null,
        ),
    );
    for (const t of terminals) {
      await t.greet();
      const approved = await admin.post(`/devices/${t.sn}/approve/`);
      expect(approved.status).toBe(200);
    }
    const agent = new CrashAgent(
      `${server.url}${API}`,
      await adminToken({ expiresIn: '2h' }),
      { id: String(agentRow.id), key: String(agentRow.key) },
      enrolled.id,
      [5, 6],
      random,
    );

    // The load runs throughout; kills and restarts happen underneath it.
    let stopping = false;
    const loops = terminals.map(async (t) => {
      while (!stopping) {
        await t.step(random, 1 + Math.floor(random() * 4));
        await Bun.sleep(5 + Math.floor(random() * 25));
      }
    });
    agent.start();

    const kills: number[] = [];
    let killedStarting = 0;
    for (let k = 0; k < KILLS; k++) {
      await Bun.sleep(150 + Math.floor(killRandom() * 450));
      const victim = server.pid!;
      await server.kill();
      kills.push(victim);
      // SIGKILL runs no shutdown code: the lock file names a process that no longer exists.
      expect(readLock(`${dbFile}.lock`)?.pid).toBe(victim);
      await Bun.sleep(Math.floor(killRandom() * 60));
      if (k % 5 === 2 && k + 1 < KILLS) {
        // One kill in five lands while the server starts (opening, locking, migrating…);
        // whatever lock it left, complete or not, is stale too.
        server.spawn();
        await Bun.sleep(Math.floor(killRandom() * 400));
        await server.kill();
        k++;
        killedStarting++;
      }
      await server.start();
      expect(readLock(`${dbFile}.lock`)?.pid).toBe(server.pid!);
    }
    stopping = true;
    await Promise.all(loops);
    for (const t of terminals) await t.settle(30_000);
    await agent.settle();
    const loadMs = Date.now() - began;

    // Polling through the API: each punch exactly once, in increasing sequence.
    const polled = await pollAll(admin);
    for (let i = 1; i < polled.length; i++) expect(polled[i]!).toBeGreaterThan(polled[i - 1]!);
    // Every endpoint eventually gets every punch (the last kill may have cut a batch short).
    const delivered = () => paths.every((p) => polled.every((sequence) => received.get(p)?.has(sequence)));
    const deliveryDeadline = Date.now() + 60_000;
    while (!delivered() && Date.now() < deliveryDeadline) await Bun.sleep(50);
    const undelivered = paths.map((p) => ({ path: p, missing: polled.filter((sequence) => !received.get(p)?.has(sequence)).length }));
    expect({ undelivered, context: context() }).toEqual({ undelivered: paths.map((p) => ({ path: p, missing: 0 })), context: context() });
    // Attendance reads catch up with the log first.
    expect((await admin.get('/attendance-days/?limit=1')).status).toBe(200);

    expect(await server.stop()).toBe(0);
    expect(existsSync(`${dbFile}.lock`)).toBe(false);
    expect(server.unexpectedExits).toEqual([]);

    const db = await openReadOnly(dbFile);
    try {
      const stored = await storedPunches(db);
      expect(polled).toEqual(stored.map((p) => p.sequence));

      let recordedTotal = 0;
      for (const t of terminals) {
        expect(t.miscounts).toEqual([]);
        recordedTotal += t.recorded.length;
        // After settling, every recorded line was acknowledged at some point.
        expect(t.acknowledged.size).toBe(t.recorded.length);
        const mine = stored.filter((p) => p.serial === t.sn);
        const order = new Map(t.recorded.map((l, i) => [lineKey(l.pin, l.localTime), i]));
        const counts = new Map<string, number>();
        for (const p of mine) counts.set(lineKey(p.pin, p.localTime), (counts.get(lineKey(p.pin, p.localTime)) ?? 0) + 1);
        // Acknowledged → stored exactly once; stored → was recorded by this terminal.
        const lost = [...t.acknowledged].filter((k) => counts.get(k) !== 1);
        const invented = [...counts.keys()].filter((k) => !order.has(k));
        expect({ terminal: t.sn, lost, invented, context: context() }).toEqual({ terminal: t.sn, lost: [], invented: [], context: context() });
        expect(mine.length).toBe(t.recorded.length);
        for (const p of mine) expect(p.state).toBe(t.recorded[order.get(lineKey(p.pin, p.localTime))!]!.state);
        // Sequences are given in commit order, and a terminal only ever sends in recording order.
        const positions = mine.map((p) => order.get(lineKey(p.pin, p.localTime))!);
        for (let i = 1; i < positions.length; i++) expect(positions[i]!).toBeGreaterThan(positions[i - 1]!);
      }
      expect(stored.length).toBe(recordedTotal);

      // One punch_received event per punch, recorded with the punch or not at all, and each
      // endpoint got it under that event's id only, however often it was sent.
      const events = await punchEvents(db);
      const sequences = new Set(stored.map((p) => p.sequence));
      const wrongEvents = stored.filter((p) => (events.get(p.sequence) ?? []).length !== 1).map((p) => p.sequence);
      expect({ wrongEvents, context: context() }).toEqual({ wrongEvents: [], context: context() });
      expect([...events.keys()].filter((s) => !sequences.has(s))).toEqual([]);
      for (const path of paths) {
        const byPunch = received.get(path)!;
        const wrongIds = stored.filter((p) => [...(byPunch.get(p.sequence) ?? [])].join() !== events.get(p.sequence)!.join()).map((p) => p.sequence);
        expect({ path, wrongIds, context: context() }).toEqual({ path, wrongIds: [], context: context() });
      }

      // Attendance days count every acknowledged punch of an enrollee once, on its date.
      const expectedDays = new Map<string, { punches: number[] }>();
      for (const p of stored) {
        if (!p.enrolleeId) continue;
        const key = `${p.enrolleeId} ${new Date(p.punchedAt).toISOString().slice(0, 10)}`;
        const day = expectedDays.get(key) ?? { punches: [] };
        day.punches.push(p.punchedAt);
        expectedDays.set(key, day);
      }
      const days = await attendanceDays(db);
      const wrongDays = days
        .filter((d) => {
          const want = expectedDays.get(`${d.enrolleeId} ${d.date}`);
          if (!want) return true;
          const sorted = [...want.punches].sort((a, b) => a - b);
          // The last out closes a pair: with an odd count the last punch is an in.
          const paired = sorted.length - (sorted.length % 2);
          return d.punchCount !== sorted.length || d.firstIn !== sorted[0] || d.lastOut !== (paired >= 2 ? sorted[paired - 1] : null);
        })
        .map((d) => `${d.enrolleeId} ${d.date}`);
      expect({ wrongDays, context: context() }).toEqual({ wrongDays: [], context: context() });
      expect(days.length).toBe(expectedDays.size);
      expect(days.length).toBeGreaterThan(0);

      // Templates, sync rows, staged uploads and sessions: all whole.
      const templates = await templateState(db, [TEST_KEY]);
      expect({ problems: templates.problems, context: context() }).toEqual({ problems: [], context: context() });
      const walkUp = terminals[0]!;
      expect(walkUp.templatesAcknowledged.size).toBeGreaterThan(0);
      for (const [key, template] of walkUp.templatesAcknowledged) {
        const [pin, finger] = key.split(':');
        const owner = walkUpPeople.find((p) => p.pin === pin)!;
        const same = sameBytes(templates.plaintexts.get(`${owner.id}:${finger}`), new Uint8Array(Buffer.from(template, 'base64')));
        expect({ key, same }).toEqual({ key, same: true });
      }
      expect(agent.surprises).toEqual([]);
      expect(agent.completed.size).toBeGreaterThan(0);
      for (const [finger, bytes] of agent.completed) {
        expect({ finger, same: sameBytes(templates.plaintexts.get(`${enrolled.id}:${finger}`), bytes) }).toEqual({ finger, same: true });
      }
      const sessions = await sessionStatuses(db);
      for (const s of agent.sessions) expect({ id: s.id, status: sessions.get(s.id) }).toEqual({ id: s.id, status: s.outcome });

      const totalMs = Date.now() - began;
      console.log(
        `crash test: ${kills.length + killedStarting} kills (${killedStarting} while starting), ${server.starts} starts, ${stored.length} punches, ${days.length} attendance days, ` +
          `${deliveries} webhook requests for ${paths.length * stored.length} punch deliveries, ${templates.counts.templates} templates, ${agent.sessions.length} agent sessions (${agent.failures} agent request failures), ` +
          `${terminals.reduce((n, t) => n + t.failures, 0)} terminal request failures, ${terminals.reduce((n, t) => n + t.resent, 0)} line resends; load ${loadMs} ms, total ${totalMs} ms; ${context()}`,
      );
    } finally {
      db.close();
    }
  }, 240_000);
});
