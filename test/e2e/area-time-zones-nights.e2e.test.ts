/**
 * The nights a machine was off, with areas in several zones (README "Time zones"): a scheduled
 * absences run covers each zone's dates since the run before it, and writes a person's day only
 * once that date is over where they work. At 02:00 in London on Friday the 13th, Mumbai's
 * Thursday is over and New York's is not (22:00 there): its people get Thursday at the next run.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { dayOf } from '../support/attendance';
import { startTestServer, type TestServer } from '../support/harness';

let now = Date.parse('2026-03-01T10:00:00Z');
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: 'Europe/London', TASK_BACKEND: 'cron' }, { clock: { now: () => now }, startJobs: false });
  expect((await server.admin.post('/areas/', { name: 'london' })).status).toBe(201);
  expect((await server.admin.post('/areas/', { name: 'mumbai', time_zone: 'Asia/Kolkata' })).status).toBe(201);
  expect((await server.admin.post('/areas/', { name: 'newyork', time_zone: 'America/New_York' })).status).toBe(201);
  for (const [employee, area] of [
    ['L', 'london'],
    ['M', 'mumbai'],
    ['N', 'newyork'],
  ]) {
    expect((await server.admin.post('/employees/', { id: employee, name: `Person ${employee}` })).status).toBe(201);
    expect((await server.admin.post('/enrollees/', { employee, areas: [area] })).status).toBe(201);
  }
});
afterAll(async () => {
  await server.close();
});

const statuses = async (date: string) => Promise.all(['L', 'M', 'N'].map(async (who) => (await dayOf(server, who, date))?.status ?? null));

describe('nights the machine was off, in three zones', () => {
  test('the start after the night of the 9th writes the 9th for everyone', async () => {
    now = Date.parse('2026-03-10T08:00:00Z');
    const runs = await server.fpa.jobs.catchUp();
    expect(runs.find((r) => r.job === 'generate-absences')?.result).toMatchObject({ from: '2026-03-09', to: '2026-03-09', absent: 3 });
    expect(await statuses('2026-03-09')).toEqual(['absent', 'absent', 'absent']);
  });

  test('three nights off: each zone’s dates since the last run, none not over where the person works', async () => {
    // 02:00 in London, 07:30 in Mumbai, 22:00 on Thursday in New York.
    now = Date.parse('2026-03-13T02:00:00Z');
    const run = await server.fpa.jobs.runScheduled('generate-absences');
    expect(run).toMatchObject({ status: 'succeeded', result: { to: '2026-03-12' } });
    expect(await statuses('2026-03-10')).toEqual(['absent', 'absent', 'absent']);
    expect(await statuses('2026-03-11')).toEqual(['absent', 'absent', 'absent']);
    expect(await statuses('2026-03-12')).toEqual(['absent', 'absent', null]);
    // New York's Thursday is over by 01:00 there: the run then writes it.
    now = Date.parse('2026-03-13T06:00:00Z');
    const asked = await server.admin.post('/jobs/generate-absences/run/', {});
    expect(asked.body).toMatchObject({ status: 'succeeded', result: { from: '2026-03-12', to: '2026-03-12', absent: 1, unchanged: 2 } });
    expect(await statuses('2026-03-12')).toEqual(['absent', 'absent', 'absent']);
  });

  test('a date asked for that is over nowhere yet is refused, as before; one over in some zones writes those', async () => {
    const refused = await server.admin.post('/jobs/generate-absences/run/', { params: { date: '2026-03-13' } });
    expect(refused.status).toBe(400);
    // 06:00 in London: the 13th is over in no zone. At 20:00Z it is over in Mumbai (01:30 on the 14th).
    now = Date.parse('2026-03-13T20:00:00Z');
    const mumbai = await server.admin.post('/jobs/generate-absences/run/', { params: { date: '2026-03-13' } });
    expect(mumbai.body).toMatchObject({ status: 'succeeded', result: { from: '2026-03-13', to: '2026-03-13', absent: 1 } });
    expect(await statuses('2026-03-13')).toEqual([null, 'absent', null]);
  });
});
