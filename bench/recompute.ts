/**
 * 7. Recomputing a month of attendance for 1,000 employees.
 *
 * Prepared (not timed): 1,000 enrollees in the default area with a day shift (08:00–16:30,
 * 30 min break) assigned to the area, 100 of them with their own night shift (22:00–06:00);
 * March 2026 punched through the punch service in 200-line batches (four punches a workday,
 * two a night), a leave week for 50 of them, and the absences of the month generated, so each
 * person has a record on each of the 31 dates. Timed:
 * - `POST attendance-days/recompute/` of the month for everyone (each day read, planned and
 *   computed; none changes, so nothing is written);
 * - a change of the day shift's grace: the follower recomputes the month of the 900 people
 *   it concerns and writes every day it changes (with an `attendance_day_changed` event each),
 *   timed until the days reflect it.
 */
import { and, eq, sql } from 'drizzle-orm';
import { attendanceDays, enrollees } from '../src/app/schema';
import type { IncomingPunch } from '../src/modules/punches';
import { adminJwt, adminRequest, bulkEnrollees, type Figure, round, startBenchServer } from './support';

export interface RecomputeOptions {
  employees: number;
  nightWorkers: number;
}

export const RECOMPUTE_DEFAULTS: RecomputeOptions = { employees: 1000, nightWorkers: 100 };

const MARCH = Array.from({ length: 31 }, (_, i) => `2026-03-${String(i + 1).padStart(2, '0')}`);
const isWeekend = (date: string) => [0, 6].includes(new Date(`${date}T00:00:00Z`).getUTCDay());

function line(pin: string, date: string, time: string): IncomingPunch {
  const localTime = `${date} ${time}:00`;
  return {
    pin,
    localTime,
    punchedAt: Date.parse(`${date}T${time}:00Z`),
    utcOffsetMinutes: 0,
    state: 0,
    verifyType: 1,
    workCode: '0',
    extra: [],
    raw: `${pin}\t${localTime}\t0\t1\t0`,
  };
}

export async function benchRecompute(options: RecomputeOptions = RECOMPUTE_DEFAULTS): Promise<Figure[]> {
  const server = await startBenchServer('fpa-bench-recompute-', { TIME_ZONE: 'UTC' });
  try {
    const { fpa } = server;
    const token = await adminJwt();
    const api = async (method: string, path: string, body?: unknown) => (await adminRequest(server.url, token, method, path, body)).json();
    const people = await bulkEnrollees(fpa, options.employees);
    // Enrolled before the month, so that absences are written for all of it.
    await fpa.db.write(({ tx }) => tx.update(enrollees).set({ createdAt: Date.parse('2026-01-01T00:00:00Z') }));
    const nights = new Set(people.slice(0, options.nightWorkers).map((p) => p.id));
    await api('POST', '/work-schedules/', { name: 'day', start: '08:00', end: '16:30', grace_in: '5m', grace_out: '5m', break: '30m' });
    await api('POST', '/work-schedules/', { name: 'night', start: '22:00', end: '06:00', break: '30m', weekdays: [1, 2, 3, 4, 5] });
    await api('POST', '/shift-assignments/', { schedule: 'day', area: 'default', from: '2026-03-01' });
    for (const id of nights) await api('POST', '/shift-assignments/', { schedule: 'night', enrollee: id, from: '2026-03-01' });
    for (const p of people.slice(options.nightWorkers, options.nightWorkers + 50)) {
      await api('POST', '/leaves/', { enrollee: p.id, from: '2026-03-16', to: '2026-03-20', kind: 'annual' });
    }
    const device = await fpa.service.devices.registration.touch('BENCHRECOMPUTE', { pushVersion: '2.4.1' });
    await fpa.service.approveDevice('BENCHRECOMPUTE', { by: 'bench' });
    let lines: IncomingPunch[] = [];
    let punches = 0;
    for (const date of MARCH.filter((d) => !isWeekend(d))) {
      const next = new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
      for (const p of people) {
        if (nights.has(p.id)) lines.push(line(p.pin, date, '21:57'), line(p.pin, next, '06:02'));
        else lines.push(line(p.pin, date, '07:58'), line(p.pin, date, '12:00'), line(p.pin, date, '12:29'), line(p.pin, date, '16:31'));
        if (lines.length >= 200) {
          punches += (await fpa.service.punches.ingest(device, lines)).inserted;
          lines = [];
        }
      }
    }
    if (lines.length > 0) punches += (await fpa.service.punches.ingest(device, lines)).inserted;
    await fpa.service.attendance.follower.catchUp();
    const absences = await fpa.jobs.run('generate-absences', { params: { from: '2026-03-01', to: '2026-03-31' } });
    if (absences.status !== 'succeeded') throw new Error(`generate-absences ${absences.status}`);
    const [stored] = await fpa.db.orm
      .select({ n: sql<number>`count(*)` })
      .from(attendanceDays)
      .where(and(sql`${attendanceDays.date} >= '2026-03-01'`, sql`${attendanceDays.date} <= '2026-03-31'`));
    const days = options.employees * 31;
    if (stored?.n !== days) throw new Error(`prepared ${stored?.n} days, expected ${days}`);

    const started = performance.now();
    const recomputed = (await api('POST', '/attendance-days/recompute/', { from: '2026-03-01', to: '2026-03-31' })) as { recomputed: number };
    const recomputeSeconds = (performance.now() - started) / 1000;
    if (recomputed.recomputed !== days) throw new Error(`recomputed ${recomputed.recomputed} days, expected ${days}`);

    // A grace of 30 min makes no one late but changes nothing else either, so force a visible
    // change: the day shift starts at 07:30, and every day worker becomes 28 minutes "late".
    const changedAt = performance.now();
    await api('PATCH', '/work-schedules/day/', { start: '07:30' });
    await fpa.service.attendance.follower.catchUp();
    const followSeconds = (performance.now() - changedAt) / 1000;
    const [late] = await fpa.db.orm
      .select({ n: sql<number>`count(*)` })
      .from(attendanceDays)
      .where(and(eq(attendanceDays.status, 'present'), sql`${attendanceDays.flags} like '%"late"%'`));
    const dayWorkerDays = (options.employees - options.nightWorkers) * 22 - 50 * 5;
    if (late?.n !== dayWorkerDays) throw new Error(`after the change ${late?.n} days are late, expected ${dayWorkerDays}`);
    return [
      {
        id: 'recompute',
        title: `Recompute a month for ${options.employees.toLocaleString('en')} employees (POST attendance-days/recompute/)`,
        value: round(days / recomputeSeconds, 0),
        unit: 'days/s',
        notes: [
          `${days} days (${punches} punches, ${options.nightWorkers} night workers, 50 on leave a week) recomputed in ${round(recomputeSeconds, 3)} s, nothing changed so nothing written`,
        ],
      },
      {
        id: 'recompute-follow',
        title: `A schedule change followed for ${(options.employees - options.nightWorkers).toLocaleString('en')} employees over a month`,
        value: round(followSeconds, 2),
        unit: 's',
        notes: [`the follower recomputed the month of the day shift's people and rewrote ${dayWorkerDays} days (now late) in ${round(followSeconds, 3)} s`],
      },
    ];
  } finally {
    await server.close();
  }
}
