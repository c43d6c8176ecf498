/**
 * Properties of the terminal endpoints over real HTTP: arbitrary bodies never make the server
 * fail (no 5xx while the database works), and every good ATTLOG line is stored whatever
 * garbage — text or bytes that are not UTF-8 — surrounds it; a body of bytes that are not text
 * with no good line at all is refused (422), so the terminal keeps it.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import fc from 'fast-check';
import { punches } from '../../src/app/schema';
import { isNotText } from '../../src/modules/terminals/unreadable';
import { decodeBody, parseAttlogLine } from '../../src/protocol/adms';
import { startTestServer, type TestServer } from '../support/harness';

let server: TestServer;
let serial = 0;

beforeAll(async () => {
  // Auto-approval: each run uses a fresh terminal whose data is accepted at once.
  server = await startTestServer({ ADMS_AUTO_APPROVE: true });
});
afterAll(async () => {
  await server.close();
});

async function post(path: string, body: Uint8Array<ArrayBuffer>, contentType: string | null) {
  const res = await fetch(`${server.url}${path}`, { method: 'POST', body, headers: contentType ? { 'content-type': contentType } : {} });
  return { status: res.status, body: await res.text(), date: res.headers.get('date') };
}

const TARGETS = [
  'cdata?table=ATTLOG',
  'cdata?table=OPERLOG',
  'cdata?table=BIODATA',
  'cdata?table=options',
  'cdata?table=ATTPHOTO',
  'cdata?table=rtlog',
  'cdata?table=tabledata&tablename=templatev10',
  'cdata?table=ERRORLOG',
  'cdata?table=SOMETHING',
  'devicecmd?x=1',
  'registry?x=1',
  'querydata?type=tabledata',
  'fdata?PIN=1.jpg',
] as const;

const textLine = fc.string({ maxLength: 120 }).map((s) => s.replace(/\n/g, ' '));
const byteLine = fc.uint8Array({ maxLength: 80 }).map((b) => b.map((x) => (x === 0x0a ? 0x20 : x)));

describe('arbitrary bodies', () => {
  test('never answer 5xx on any upload endpoint, with or without a Content-Type', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...TARGETS),
        fc.oneof(
          fc.uint8Array({ maxLength: 3000 }),
          fc
            .array(fc.oneof(textLine, fc.constant('FP PIN=1\tFID=1\tTMP=AAAA'), fc.constant('BIODATA Pin=1\tType=1\tTmp=QUJD')), { maxLength: 20 })
            .map((l) => new TextEncoder().encode(l.join('\n'))),
        ),
        fc.constantFrom('text/plain', 'application/json', 'application/x-www-form-urlencoded', null),
        async (target, body, contentType) => {
          const sn = `PROP${++serial}`;
          const res = await post(`/iclock/${target}&SN=${sn}`, new Uint8Array(body), contentType);
          expect(res.status).toBeLessThan(500);
          expect(res.date).not.toBeNull();
          expect(res.body.trimStart().startsWith('{')).toBe(false);
        },
      ),
      { numRuns: 30 },
    );
  });
});

describe('good lines among garbage', () => {
  test('every good ATTLOG line is stored and counted in OK:n, whatever surrounds it', async () => {
    const goodLine = fc.record({
      pin: fc.stringMatching(/^[0-9A-Za-z]{1,9}$/),
      day: fc.integer({ min: 1, max: 28 }),
      seconds: fc.integer({ min: 0, max: 86_399 }),
      state: fc.integer({ min: 0, max: 5 }),
      verify: fc.integer({ min: 0, max: 29 }),
    });
    const garbage = fc.oneof(
      textLine.map((t) => new TextEncoder().encode(t)),
      byteLine,
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            goodLine.map((g) => ({ good: g })),
            garbage.map((b) => ({ bad: b })),
          ),
          { maxLength: 30 },
        ),
        async (items) => {
          const sn = `MIX${++serial}`;
          const seen = new Set<string>();
          const good: { pin: string; localTime: string }[] = [];
          const parts: Uint8Array[] = [];
          for (const item of items) {
            if ('good' in item) {
              const g = item.good;
              const time = `2024-03-${String(g.day).padStart(2, '0')} ${String(Math.floor(g.seconds / 3600)).padStart(2, '0')}:${String(Math.floor((g.seconds % 3600) / 60)).padStart(2, '0')}:${String(g.seconds % 60).padStart(2, '0')}`;
              const key = `${g.pin}|${time}`;
              if (seen.has(key)) continue;
              seen.add(key);
              good.push({ pin: g.pin, localTime: time });
              parts.push(new TextEncoder().encode(`${g.pin}\t${time}\t${g.state}\t${g.verify}\t0\t0\t0`));
            } else {
              // A garbage line that happens to be a valid punch would be counted too; keep it out.
              if (parseAttlogLine(new TextDecoder().decode(item.bad)).ok) continue;
              parts.push(item.bad);
            }
          }
          const body = join(parts);
          const res = await post(`/iclock/cdata?SN=${sn}&table=ATTLOG`, body, null);
          if (good.length === 0 && isNotText(decodeBody(body).text)) {
            // Nothing of it could be read, and it is not text: refused, never acknowledged and lost.
            expect(res.status).toBe(422);
            return;
          }
          expect(res.status).toBe(200);
          expect(res.body).toBe(`OK:${good.length}`);
          const stored = await server.fpa.db.orm
            .select({ pin: punches.devicePin, localTime: punches.localTime })
            .from(punches)
            .where(eq(punches.deviceSerial, sn));
          expect(stored).toHaveLength(good.length);
          for (const g of good) {
            const [found] = await server.fpa.db.orm
              .select()
              .from(punches)
              .where(and(eq(punches.deviceSerial, sn), eq(punches.devicePin, g.pin), eq(punches.localTime, g.localTime)))
              .limit(1);
            expect(found).toBeDefined();
          }
        },
      ),
      { numRuns: 30 },
    );
  });
});

describe('compressed bodies', () => {
  test('a gzip of ATTLOG lines is refused and stores nothing; sent as Content-Encoding: gzip, every line is stored', async () => {
    const line = fc
      .record({ pin: fc.stringMatching(/^[0-9]{1,9}$/), second: fc.integer({ min: 0, max: 86_399 }), state: fc.constantFrom('0', '1', 'I', 'O') })
      .map(({ pin, second, state }) => {
        const time = new Date(Date.UTC(2024, 2, 16) + second * 1000).toISOString().slice(0, 19).replace('T', ' ');
        return { pin, time, text: `${pin}\t${time}\t${state}\t1\t0\t0\t0\n` };
      });
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(line, { selector: (l) => `${l.pin}|${l.time}`, minLength: 1, maxLength: 40 }), fc.boolean(), async (lines, tgz) => {
        const sn = `GZIP${++serial}`;
        const packed = Bun.gzipSync(new TextEncoder().encode(lines.map((l) => l.text).join('')));
        const refused = await post(`/iclock/cdata?SN=${sn}&table=ATTLOG${tgz ? '&ContentType=tgz' : ''}`, packed, null);
        expect(refused.status).toBe(422);
        expect(await server.fpa.db.orm.select().from(punches).where(eq(punches.deviceSerial, sn))).toEqual([]);
        const res = await fetch(`${server.url}/iclock/cdata?SN=${sn}&table=ATTLOG`, { method: 'POST', body: packed, headers: { 'content-encoding': 'gzip' } });
        expect([res.status, await res.text()]).toEqual([200, `OK:${lines.length}`]);
        expect(await server.fpa.db.orm.select().from(punches).where(eq(punches.deviceSerial, sn))).toHaveLength(lines.length);
      }),
      { numRuns: 30 },
    );
  });
});

function join(parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const size = parts.reduce((n, p) => n + p.byteLength + 1, 0);
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
    out[at++] = 0x0a;
  }
  return out;
}
