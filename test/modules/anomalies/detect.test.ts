/**
 * The anomaly rules on their own (src/modules/anomalies/detect.ts): `repeated_punch` is the later
 * punch of a pair, whatever order they arrived in, and of two at the same instant only the one
 * stored later (two terminals reporting one person at once are one repeat, not two).
 */
import { describe, expect, test } from 'bun:test';
import { type Candidate, type Context, detect, laterRepeats } from '../../../src/modules/anomalies/detect';
import type { NearbyPunch } from '../../../src/modules/punches';

const T = Date.parse('2026-03-02T08:00:00Z');
const WINDOW = 60_000;

const near = (id: string, sequence: number, at: number, deviceId = 'dev-a'): NearbyPunch => ({
  id,
  sequence,
  enrolleeId: 'e-1',
  deviceId,
  deviceSerial: deviceId,
  at,
});
const candidate = (n: NearbyPunch): Candidate => ({
  id: n.id,
  sequence: n.sequence,
  enrolleeId: n.enrolleeId,
  deviceId: n.deviceId,
  deviceSerial: n.deviceSerial,
  at: n.at,
  verifyType: 1,
  source: 'device',
});
const context = (punches: NearbyPunch[]): Context => ({
  near: punches,
  biometrics: [],
  leave: null,
  areasOf: () => [],
  travel: new Map(),
  duplicateWindowMs: WINDOW,
});
const repeats = (p: NearbyPunch, all: NearbyPunch[]) =>
  detect(candidate(p), context(all.filter((n) => n.id !== p.id)))
    .filter((f) => f.kind === 'repeated_punch')
    .map((f) => f.details.previous_punch);

describe('repeated_punch', () => {
  test('the later of two punches within the window repeats the earlier; not the other way round', () => {
    const first = near('p1', 1, T);
    const second = near('p2', 2, T + 30_000);
    expect(repeats(second, [first, second])).toEqual(['p1']);
    expect(repeats(first, [first, second])).toEqual([]);
  });

  test('two punches at the same instant (two terminals at once): only the one stored later is a repeat', () => {
    const a = near('p1', 10, T, 'dev-a');
    const b = near('p2', 11, T, 'dev-b');
    expect(repeats(a, [a, b])).toEqual([]);
    expect(repeats(b, [a, b])).toEqual(['p1']);
  });

  test('an earlier punch arriving last makes the stored later one the repeat (laterRepeats), once', () => {
    const stored = near('p2', 1, T + 30_000);
    const arriving = near('p1', 2, T);
    expect(laterRepeats([arriving, stored], new Set(['p1']), WINDOW).map((r) => [r.punch.id, r.found.details.previous_punch])).toEqual([['p2', 'p1']]);
    // A window apart exactly: not a repeat.
    expect(laterRepeats([arriving, near('p3', 1, T + WINDOW)], new Set(['p1']), WINDOW)).toEqual([]);
  });
});
