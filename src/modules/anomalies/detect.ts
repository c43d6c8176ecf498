/**
 * The rules that make a punch an anomaly, on what the service gathered for it (service.ts):
 *
 * - `verified_without_biometric`: a terminal punch whose verify mode used no biometric (2 PIN,
 *   3 password, 4 card, 7 card or password, 11 card and password; docs/protocol/adms.md, verify
 *   codes) by a person whose biometric that terminal holds (a card-only reader, or a terminal
 *   their template cannot reach, is not asked to verify by it). Mode 0 ("any") is not flagged:
 *   firmware disagree on what it means.
 * - `impossible_travel`: another punch of the person, on a terminal sharing no area with this
 *   one, closer in time than TRAVEL_MINUTES says the two areas are apart.
 * - `while_on_leave`: the person is on leave (calendar or the host's) on the punch's date (and
 *   later, as that leave changes: on-leave.ts).
 * - `repeated_punch`: an earlier punch of the person within DUPLICATE_WINDOW (any terminal). The
 *   repeat is the later punch of the pair, whichever arrived last: a punch arriving after a later
 *   one was stored (a backlog, a recovery, an import) makes that stored one the repeat
 *   (`laterRepeats`).
 */
import { travelKey } from '../../platform/config/values';
import type { NearbyPunch } from '../punches';
import type { AnomalyKind } from './tables';

export const WITHOUT_BIOMETRIC = new Set([2, 3, 4, 7, 11]);

export interface Candidate {
  id: string;
  /** Orders punches of one instant (as byInstant does): of two at the same instant, the later stored is the repeat. */
  sequence: number;
  enrolleeId: string;
  deviceId: string | null;
  deviceSerial: string | null;
  at: number;
  verifyType: number;
  source: string;
}

export interface Context {
  /** The person's other punches near this one (not voided). */
  near: readonly NearbyPunch[];
  /** Kinds of biometric the punch's terminal holds for the person. */
  biometrics: readonly string[];
  /** The kind of leave the person is on that date, if any. */
  leave: string | null;
  areasOf(deviceId: string): readonly string[];
  travel: ReadonlyMap<string, number>;
  duplicateWindowMs: number;
}

export interface Found {
  kind: AnomalyKind;
  details: Record<string, unknown>;
}

export function detect(p: Candidate, c: Context): Found[] {
  const found: Found[] = [];
  if (p.source === 'device' && WITHOUT_BIOMETRIC.has(p.verifyType) && c.biometrics.length > 0) {
    found.push({ kind: 'verified_without_biometric', details: { verify_type: p.verifyType, biometrics: [...c.biometrics] } });
  }
  const travel = impossibleTravel(p, c);
  if (travel) found.push({ kind: 'impossible_travel', details: travel });
  if (c.leave !== null) found.push({ kind: 'while_on_leave', details: { leave: c.leave } });
  const before = (n: NearbyPunch) => n.at < p.at || (n.at === p.at && n.sequence < p.sequence);
  const previous = c.duplicateWindowMs > 0 ? c.near.filter((n) => n.id !== p.id && before(n) && p.at - n.at < c.duplicateWindowMs).at(-1) : undefined;
  if (previous) found.push(repeatOf(p.at, previous, c.duplicateWindowMs));
  return found;
}

/** A stored punch that turned out to repeat one arriving after it, and that punch. */
export interface LaterRepeat {
  punch: NearbyPunch;
  found: Found;
}

/**
 * The stored punches of one person (`near`, oldest first as `byInstant` orders them) that repeat
 * a punch arriving now: each whose nearest earlier punch is one of `arriving` and lies within the
 * window. A stored punch whose nearest earlier punch was stored before it repeats that one, and
 * was looked at when the pair was complete; the arriving punches themselves are detect's.
 */
export function laterRepeats(near: readonly NearbyPunch[], arriving: ReadonlySet<string>, windowMs: number): LaterRepeat[] {
  if (windowMs <= 0) return [];
  const out: LaterRepeat[] = [];
  for (const [i, punch] of near.entries()) {
    const previous = near[i - 1];
    if (arriving.has(punch.id) || !previous || !arriving.has(previous.id) || punch.at - previous.at >= windowMs) continue;
    out.push({ punch, found: repeatOf(punch.at, previous, windowMs) });
  }
  return out;
}

function repeatOf(at: number, previous: NearbyPunch, windowMs: number): Found {
  return {
    kind: 'repeated_punch',
    details: {
      previous_punch: previous.id,
      previous_at: new Date(previous.at).toISOString(),
      seconds_apart: Math.round((at - previous.at) / 1000),
      window_seconds: Math.round(windowMs / 1000),
    },
  };
}

/** The closest other punch too far away for the time between, with the areas and minutes. */
function impossibleTravel(p: Candidate, c: Context): Record<string, unknown> | null {
  if (p.deviceId === null || c.travel.size === 0) return null;
  const here = c.areasOf(p.deviceId);
  let worst: { other: NearbyPunch; from: string; to: string; apart: number; needed: number } | null = null;
  for (const other of c.near) {
    if (other.id === p.id || other.deviceId === null || other.deviceId === p.deviceId) continue;
    const there = c.areasOf(other.deviceId);
    // Terminals sharing an area are reachable from each other.
    if (there.some((a) => here.includes(a))) continue;
    const apart = Math.abs(p.at - other.at) / 60_000;
    for (const a of there) {
      for (const b of here) {
        const needed = c.travel.get(travelKey(a, b));
        if (needed !== undefined && apart < needed && (!worst || needed - apart > worst.needed - worst.apart)) {
          worst = { other, from: other.at <= p.at ? a : b, to: other.at <= p.at ? b : a, apart, needed };
        }
      }
    }
  }
  if (!worst) return null;
  return {
    other_punch: worst.other.id,
    other_device: worst.other.deviceSerial,
    other_at: new Date(worst.other.at).toISOString(),
    from_area: worst.from,
    to_area: worst.to,
    minutes_apart: Math.round(worst.apart * 10) / 10,
    minutes_needed: worst.needed,
  };
}
