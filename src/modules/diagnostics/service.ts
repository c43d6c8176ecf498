/**
 * What an installer must fix (`GET diagnostics/`), read from what the service already keeps: the
 * terminals' rows (status, last contact, clock, zone, addresses), their device log (refused keys),
 * the command queue and the templates' per-terminal sync status. Nothing is stored: a diagnostic
 * is there while its cause is, and gone as soon as the cause is fixed.
 */
import type { Caller } from '../../platform/http/caller';
import { formatLocalWallTime } from '../../platform/time/zone';
import { counted } from '../../platform/words';
import { type FailingCommands, failingCommands, type WaitingCommands, waitingSince } from '../commands';
import { gapsOfReuploads, type OpenGap } from '../completeness';
import { allTerminals, type DeviceRow, type DeviceService, type LogEntry, newestLogEntries, type RegistrationRefusal, terminalsWithKeys } from '../devices';
import { TEMPLATE_REFUSALS, type TemplatesNotReaching, templatesNotReaching } from '../enrollment';
import { USERS_LOST } from '../fleet';
import { answerOf, failedBy, failingWords } from './failing';
import type { Diagnostic } from './model';
import { REUPLOAD, reuploadWords, splitReuploads } from './reupload';
import type { DiagnosticRuntime } from './runtime';
import { fullWords, incompatibleWords } from './unreachable';
import { otherZoneWords, type TerminalZones, zonesDiffer, zonesOfTerminals } from './zones';

export type DiagnosticView = typeof Diagnostic.static;

const DAY_MS = 86_400_000;
/** Clock drift worth fixing (API.md: "clock drift over a minute"). */
const DRIFT_LIMIT_S = 60;

interface Facts {
  now: number;
  log: LogEntry[];
  waiting: Map<string, WaitingCommands>;
  failing: Map<string, FailingCommands>;
  /** The failed re-uploads' newest commands asked for a gap: the gap while open, null once closed (completeness). */
  reuploadGaps: Map<number, OpenGap | null>;
  notReaching: TemplatesNotReaching[];
  /** Terminals holding a communication key that is not revoked. */
  keyed: Set<string>;
  /** The zones a terminal's people are judged in (zones.ts). */
  zonesOf: TerminalZones;
}

/** An instant as people read it in a message: `2026-11-27 13:03 (Europe/Berlin)`; `since` keeps the ISO form. */
const wallTimeIn = (ms: number, zone: string) => `${formatLocalWallTime(new Date(ms), zone).slice(0, 16)} (${zone})`;
const iso = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : new Date(ms).toISOString());
const days = (ms: number) => counted(Math.floor(ms / DAY_MS), 'day');

export class Diagnostics {
  constructor(
    private readonly ctx: DiagnosticRuntime,
    private readonly devices: DeviceService,
  ) {}

  /** Every diagnostic about a terminal in the caller's areas, errors first, oldest first. */
  async list(caller: Pick<Caller, 'areas'>): Promise<DiagnosticView[]> {
    const q = this.ctx.db.orm;
    const now = this.ctx.clock.now();
    const terminals = await this.inScope(await allTerminals(q), caller);
    // Refused templates are said by templates_incompatible and terminal_full, with their fix.
    const failing = new Map((await failingCommands(q, now - DAY_MS, [TEMPLATE_REFUSALS])).map((f) => [f.deviceId, f]));
    const reuploads = [...failing.values()].flatMap((f) => f.kinds.filter((k) => k.kind === REUPLOAD).map((k) => k.lastCommand));
    const facts: Facts = {
      now,
      // `registered`: a terminal pending again may be a removed one back (devices/registration.ts).
      log: await newestLogEntries(q, ['key_refused', 'clock_drift', 'registered', USERS_LOST]),
      waiting: new Map((await waitingSince(q, now - DAY_MS)).map((w) => [w.deviceId, w])),
      failing,
      reuploadGaps: await gapsOfReuploads(q, reuploads),
      notReaching: await templatesNotReaching(q),
      keyed: await terminalsWithKeys(q),
      zonesOf: await zonesOfTerminals(q, this.devices, terminals, this.ctx.settings.ATTENDANCE_TIME_ZONE),
    };
    const out = terminals.flatMap((d) => [
      ...this.approval(d, facts),
      ...this.contact(d, facts),
      ...this.usersLost(d, facts),
      ...this.clock(d, facts),
      ...this.templates(d, facts),
      ...this.identity(d, facts),
    ]);
    // No terminal row to scope by: shown to everyone, as the terminals awaiting approval are.
    out.push(...(await this.devices.refusals.recent(q, now)).map((r) => this.refused(r)));
    return out.sort((a, b) => (a.severity === b.severity ? (a.since ?? '').localeCompare(b.since ?? '') : a.severity === 'error' ? -1 : 1));
  }

  /** Registrations refused because too many terminals wait (devices/refusals.ts). */
  private refused(r: RegistrationRefusal): DiagnosticView {
    const max = this.ctx.settings[r.limitName];
    return {
      kind: 'registration_refused',
      severity: 'error',
      device: r.lastSerial,
      device_name: null,
      since: iso(r.firstAt),
      ...refusedWords(r, max, days(this.ctx.settings.ADMS_PENDING_EXPIRY)),
      details: { limit: r.limitName, max, refused: r.refused, last_serial: r.lastSerial, ip: r.lastIp, last_at: iso(r.lastAt) },
    };
  }

  private async inScope(rows: DeviceRow[], caller: Pick<Caller, 'areas'>): Promise<DeviceRow[]> {
    if (caller.areas.length === 0) return rows;
    const views = await this.devices.views.view(this.ctx.db.orm, rows);
    return rows.filter((_, i) => views[i]!.areas.some((a) => caller.areas.includes(a)));
  }

  /**
   * A terminal nobody approved: knocking (less than a day), or waiting for days. A removed terminal
   * back is said as one: known, and sent the deletes it owes while it waits (removedWords).
   */
  private approval(d: DeviceRow, f: Facts): DiagnosticView[] {
    if (d.status !== 'pending_approval') return [];
    const from = d.registeredIp ?? d.ipAddress;
    const waited = f.now - d.createdAt;
    const removed = removedBefore(d, f.log);
    if (removed) {
      const words = removedWords(d, removed, from, waited, (ms) => wallTimeIn(ms, d.timeZone ?? this.ctx.settings.TIME_ZONE));
      return [diag(d, waited < DAY_MS ? 'unknown_terminal' : 'pending_approval', 'warning', d.createdAt, words)];
    }
    if (waited < DAY_MS) {
      return [
        diag(d, 'unknown_terminal', 'warning', d.createdAt, {
          message: `An unknown terminal (serial ${d.serialNumber}${from ? `, from ${from}` : ''}) is contacting the server and waits for approval. It is sent nothing until then.`,
          fix: `If it is one of yours, approve it in Terminals and choose its areas. If not, leave it: it is forgotten ${days(this.ctx.settings.ADMS_PENDING_EXPIRY)} after it first knocked; block its address at the firewall if it keeps coming back.`,
          details: { ip: from },
        }),
      ];
    }
    return [
      diag(d, 'pending_approval', 'warning', d.createdAt, {
        message: `Terminal ${d.serialNumber} has been waiting for approval for ${days(waited)}: its punches are refused (it keeps them) and it gets nobody.`,
        fix: 'Approve it in Terminals and choose its areas, or remove it if it is not yours.',
        details: { ip: from },
      }),
    ];
  }

  /** An approved terminal that is silent, or that has not taken its commands for a day. */
  private contact(d: DeviceRow, f: Facts): DiagnosticView[] {
    if (d.status !== 'approved') return [];
    // Offline as everything else says it (the badge, health, the device_offline event): the
    // check-devices job's verdict, not the clock's own, which ran up to a minute ahead of it and
    // had a terminal shown Online and "has not contacted the server" on one page.
    const silent = d.lastSeenAt === null || !d.online;
    // Silent because every request it makes is refused for want of a key: said by key_missing,
    // whose fix is the key, not the power and the network.
    if (silent && this.keyMissing(d, f)) return [];
    if (silent) {
      return [
        diag(d, 'offline', 'error', d.lastSeenAt, {
          message:
            d.lastSeenAt === null
              ? `Terminal ${d.serialNumber} was approved but has never contacted the server.`
              : `Terminal ${d.serialNumber} has not contacted the server since ${wallTimeIn(d.lastSeenAt, d.timeZone ?? this.ctx.settings.TIME_ZONE)}.`,
          fix: `Check that it is powered and on the network, and that its server address (Comm → Cloud Server) points at this service. It sends what it kept when it is back.${
            d.unconfirmedIp
              ? ` Requests for its serial from ${d.unconfirmedIp}, an address it is not trusted at, do not count: if it moved there, confirm that address (Terminals → ${d.serialNumber} → Confirm address).`
              : ''
          }`,
          details: {},
        }),
      ];
    }
    return [...this.waiting(d, f), ...this.failing(d, f)];
  }

  /** An online terminal with commands queued for more than a day. */
  private waiting(d: DeviceRow, f: Facts): DiagnosticView[] {
    const waiting = f.waiting.get(d.id);
    if (!waiting) return [];
    return [
      diag(d, 'commands_waiting', 'warning', waiting.since, {
        message: `Terminal ${d.serialNumber} is online but ${counted(waiting.count, 'command')} for it ${waiting.count === 1 ? 'has' : 'have'} been waiting for more than a day (users, fingerprints or deletes it should have).`,
        fix: 'Open the terminal’s command queue: a command that fails again and again names the reason. If none was sent, restart the terminal; if it still takes nothing, check its push firmware and its address (a terminal seen from a new address is sent nothing).',
        details: { commands: waiting.count },
      }),
    ];
  }

  /**
   * An online terminal whose commands fail (a failure in the last day, none of the same kind
   * worked there since; none at all, for one it never answered): it takes them and does not
   * answer, or refuses them; or it refuses deletes, which are retried, never failed. Long before
   * a day, so commands_waiting never says it.
   */
  private failing(d: DeviceRow, f: Facts): DiagnosticView[] {
    const all = f.failing.get(d.id);
    if (!all) return [];
    // Re-uploads of punches are said by punches_not_resent, with their own fix.
    const { others: failing, reupload } = splitReuploads(all);
    const reuploads = reupload ? this.notResent(d, reupload, f) : [];
    if (!failing) return reuploads;
    const last = failing.kinds[0]!;
    return [
      ...reuploads,
      diag(d, 'commands_failing', 'error', failing.since, {
        ...failingWords(d.serialNumber, failing, (ms) => wallTimeIn(ms, d.timeZone ?? this.ctx.settings.TIME_ZONE)),
        details: {
          commands: failing.count,
          retrying: failing.retrying,
          kinds: failing.kinds.map((k) => k.kind),
          last_kind: last.kind,
          last_command: last.lastCommand,
          last_at: iso(last.lastAt),
          last_return_code: last.returnCode,
          last_reason: answerOf(last),
          last_failed_by: failedBy(last),
          by_kind: failing.kinds.map((k) => ({
            kind: k.kind,
            commands: k.count,
            retrying: k.retrying,
            since: iso(k.since),
            last_command: k.lastCommand,
            last_at: iso(k.lastAt),
            last_return_code: k.returnCode,
            last_reason: answerOf(k),
            failed_by: failedBy(k),
          })),
        },
      }),
    ];
  }

  /**
   * A terminal that refuses to send its punches again (or never answers): for a gap of its counts,
   * while that gap is open; for a re-upload asked after an outage or by hand, as a failed command.
   */
  private notResent(d: DeviceRow, k: FailingCommands['kinds'][number], f: Facts): DiagnosticView[] {
    const gap = f.reuploadGaps.get(k.lastCommand);
    // The gap it was asked for is closed (an imported USB file, its log cleared): nothing to bring in.
    if (gap === null) return [];
    return [
      diag(d, 'punches_not_resent', 'error', k.since, {
        ...reuploadWords(d.serialNumber, k, gap ?? null, wallTimeIn(k.since, d.timeZone ?? this.ctx.settings.TIME_ZONE)),
        details: {
          missing: gap?.missing ?? null,
          gap_since: iso(gap?.since),
          commands: k.count,
          last_command: k.lastCommand,
          last_at: iso(k.lastAt),
          last_return_code: k.returnCode,
          last_reason: answerOf(k),
        },
      }),
    ];
  }

  /**
   * A terminal that lost its users (reset to factory settings, its memory wiped: fleet/reconcile.ts
   * `usersReported`), while it reports fewer than were expected there then.
   */
  private usersLost(d: DeviceRow, f: Facts): DiagnosticView[] {
    if (d.status !== 'approved' || d.userCount === null) return [];
    const lost = f.log.find((l) => l.deviceId === d.id && l.kind === USERS_LOST);
    if (lost?.details?.lost !== true) return [];
    const expected = lost.details.expected;
    if (typeof expected !== 'number' || d.userCount >= expected) return [];
    return [
      diag(d, 'users_lost', 'error', lost.at, {
        message: `Terminal ${d.serialNumber} reports ${counted(d.userCount, 'user')} where ${expected} are expected: it lost them (reset to factory settings, or its memory wiped), and the people it lost cannot clock in there until they are back.`,
        fix: `Nothing, while it takes its commands: it was asked for its users and is sent again the people of its areas (Terminals → ${d.serialNumber} → Commands shows them going). If they do not go, see what else is said of it here (commands failing, terminal full). Its own users (made at its menu) went with its memory and are made again there; punches it had not sent are lost too.`,
        details: { reported: d.userCount, expected, held: lost.details.held ?? null },
      }),
    ];
  }

  /** A clock off by more than a minute; a zone other than attendance's; a zone nobody chose. */
  private clock(d: DeviceRow, f: Facts): DiagnosticView[] {
    if (d.status !== 'approved') return [];
    const out: DiagnosticView[] = [];
    const drift = d.clockDriftSeconds;
    if (drift !== null && Math.abs(drift) > DRIFT_LIMIT_S) {
      const noted = f.log.find((l) => l.deviceId === d.id && l.kind === 'clock_drift');
      const hours = Math.round(Math.abs(drift) / 3600);
      const zoneLike = hours >= 1 && hours <= 26 && Math.abs(Math.abs(drift) - hours * 3600) <= 5 * 60;
      // Years behind: its clock started over (a flat clock battery sets 2000-01-01 at power-up).
      const reset = drift < -YEAR_S;
      const zone = d.timeZone ?? this.ctx.settings.TIME_ZONE;
      out.push(
        diag(d, 'clock_drift', 'warning', noted?.at ?? null, {
          message: `Terminal ${d.serialNumber}'s clock is ${describeSeconds(Math.abs(drift))} ${drift > 0 ? 'ahead' : 'behind'}: its punches carry its own time.`,
          fix: reset
            ? `Its clock has started over from its first date, as a terminal's does when its clock battery is flat: set its clock from the server (Terminals → ${d.serialNumber} → Set the clock, or DEVICE_CLOCK_CORRECTION), and have the battery replaced, or it starts over at the next power cut. Its punches since then carry the wrong date: correct them by hand.`
            : zoneLike
              ? `It is off by about ${counted(hours, 'hour')}, as a clock set to another place's time is. If the terminal stands where its time zone here says (${zone}), set its clock from the server (Terminals → ${d.serialNumber} → Set the clock); if it stands elsewhere, correct its time zone first (Settings; the terminal is told at its next handshake), then set its clock.`
              : `Set its clock from the server (Terminals → ${d.serialNumber} → Set the clock), or ask whoever runs the server to have it done by itself (setting DEVICE_CLOCK_CORRECTION). A clock that drifts again needs its battery or its NTP setting checked.`,
          details: { drift_seconds: drift },
        }),
      );
    }
    // Compared with the zone of each of its areas (the area's own, else ATTENDANCE_TIME_ZONE): said of the first that differs.
    const own = d.timeZone ?? this.ctx.settings.TIME_ZONE;
    const other = f.zonesOf(d.id).find((z) => zonesDiffer(own, z.zone, f.now));
    if (other) out.push(diag(d, 'other_time_zone', 'warning', d.approvedAt, otherZoneWords(d.serialNumber, own, other.zone, f.now, other.area)));
    if (d.timeZone === null && this.ctx.settings.TIME_ZONE === 'UTC') {
      out.push(
        diag(d, 'time_zone_not_set', 'warning', d.approvedAt, {
          message: `Terminal ${d.serialNumber} has no time zone, and neither has the service (no time zone was set for it): its wall times are read as UTC.`,
          fix: `Set the terminal's time zone in its settings (Terminals → ${d.serialNumber} → Settings), even if it is UTC, or ask whoever runs the server to set one for the whole service (setting TIME_ZONE).`,
          details: {},
        }),
      );
    }
    return out;
  }

  /**
   * Templates that cannot reach this terminal, one diagnostic per kind: a kind it does not read at
   * all (a warning: people identify there another way), an algorithm it does not take or refused,
   * or no room (unreachable.ts says which, with the kind named).
   */
  private templates(d: DeviceRow, f: Facts): DiagnosticView[] {
    return f.notReaching
      .filter((n) => n.deviceId === d.id)
      .map((n) => {
        if (n.reason !== 'incompatible') return diag(d, 'terminal_full', 'error', n.since, fullWords(n, d));
        const words = incompatibleWords(n, d);
        return diag(d, 'templates_incompatible', words.severity, n.since, words);
      });
  }

  /** Refused communication keys, and a terminal heard from a new address. */
  /** Under ADMS_TRUST=key an approved terminal is trusted only with a key: one without is refused. */
  private keyMissing(d: DeviceRow, f: Facts): boolean {
    return this.ctx.settings.ADMS_TRUST === 'key' && d.status === 'approved' && !f.keyed.has(d.id);
  }

  private identity(d: DeviceRow, f: Facts): DiagnosticView[] {
    const out: DiagnosticView[] = [];
    if (this.keyMissing(d, f)) {
      out.push(
        diag(d, 'key_missing', 'error', d.approvedAt ?? d.createdAt, {
          message: `Terminal ${d.serialNumber} has no communication key, and this service trusts a terminal only with one (ADMS_TRUST=key): every request it makes is refused, its punches stay on it, and it is sent nobody. It shows offline until it sends its key.`,
          fix: `Issue it a key (Terminals → ${d.serialNumber} → Keys → Issue a key) and enter the key in the terminal (Comm → Cloud Server → Comm Key). It then sends the punches it kept.`,
          details: {},
        }),
      );
    }
    const refused = f.log.find((l) => l.deviceId === d.id && l.kind === 'key_refused');
    // Until the terminal is heard from with its key again (a refused request does not count as contact).
    if (refused && refused.at > (d.lastSeenAt ?? 0)) {
      const ip = typeof refused.details?.ip === 'string' ? refused.details.ip : null;
      out.push(
        diag(d, 'key_refused', 'error', refused.at, {
          message: `Requests for terminal ${d.serialNumber}${ip ? ` from ${ip}` : ''} are refused: it was issued a communication key and does not send it, or sends a wrong or revoked one. Nothing it sends is taken.`,
          fix: `Enter the key in the terminal (Comm → Cloud Server → Comm Key), or issue a new one in Terminals → ${d.serialNumber} → Keys. If this is not your terminal, someone is using its serial: leave the key as it is.`,
          details: { ip },
        }),
      );
    }
    if (d.status === 'approved' && d.unconfirmedIp) {
      out.push(
        diag(d, 'new_address', 'error', d.unconfirmedIpAt, {
          message: `Terminal ${d.serialNumber} is heard from a new address, ${d.unconfirmedIp} (it was approved at ${d.pinnedIp ?? 'another'}). Its punches are kept (flagged), but it is sent no users, cards or fingerprints from there.`,
          fix: `Check that the device at ${d.unconfirmedIp} is this terminal (on the terminal: Comm → Ethernet shows its address). If it really moved (a new network or router), confirm that address (Terminals → ${d.serialNumber} → Confirm address ${d.unconfirmedIp}): the confirmation names it, so if a request from yet another address comes in meanwhile, nothing is confirmed and you check again. If not, another device is using its serial: do not confirm, and give the terminal a communication key. Until then its requests from there do not count as it being online.`,
          details: { pinned_ip: d.pinnedIp, ip: d.unconfirmedIp },
        }),
      );
    }
    return out;
  }
}

/** When and by whom a pending terminal was removed before it registered again (its `registered` log entry); null for a new one. */
function removedBefore(d: DeviceRow, log: readonly LogEntry[]): { at: number; by: string | null } | null {
  const entry = log.find((l) => l.deviceId === d.id && l.kind === 'registered');
  const at = typeof entry?.details?.removed_at === 'string' ? Date.parse(entry.details.removed_at) : Number.NaN;
  if (Number.isNaN(at)) return null;
  return { at, by: typeof entry?.details?.removed_by === 'string' ? entry.details.removed_by : null };
}

/**
 * A removed terminal back: not unknown (it comes back under its old id, with what it held) and not
 * sent nothing (the deletes it owes go to it whatever its status: README "Removing a terminal").
 */
function removedWords(
  d: DeviceRow,
  removed: { at: number; by: string | null },
  from: string | null,
  waited: number,
  at: (ms: number) => string,
): { message: string; fix: string; details: Record<string, unknown> } {
  const which = `Terminal ${d.serialNumber}, removed on ${at(removed.at)}${removed.by ? ` by ${removed.by}` : ''}`;
  const owed = 'the deletes it owes (the people withdrawn or deleted since) and nothing else';
  const details = { ip: from, removed: true, removed_at: iso(removed.at), removed_by: removed.by };
  const stayOut =
    'If it should stay out of service, leave it waiting: it takes those deletes whatever its status (they show in its command queue); then switch it off or point it away from this server, and remove it again.';
  if (waited < DAY_MS) {
    return {
      message: `${which}, is contacting the server again${from ? ` (from ${from})` : ''} and waits for approval. Until then it is sent ${owed}.`,
      fix: `If it is back in service, approve it in Terminals and choose its areas: it is asked for its users and gets the people of its areas again. ${stayOut}`,
      details,
    };
  }
  return {
    message: `${which}, came back and has been waiting for approval for ${days(waited)}: its punches are refused (it keeps them), and it is sent ${owed}.`,
    fix: `Approve it in Terminals and choose its areas if it is back in service. ${stayOut}`,
    details,
  };
}

function refusedWords(r: RegistrationRefusal, max: number, expiry: string): { message: string; fix: string } {
  const times = r.refused === 1 ? 'once' : `${r.refused} times`;
  const last = `the last: serial ${r.lastSerial}${r.lastIp ? ` from ${r.lastIp}` : ''}`;
  return r.limitName === 'ADMS_MAX_PENDING_DEVICES'
    ? {
        message: `Unknown terminals were refused ${times} in the last hour (${last}): ${max} terminals already wait for approval (ADMS_MAX_PENDING_DEVICES). A terminal of yours among them never appears in Terminals.`,
        fix: `In Terminals, approve your terminals and remove the ones that are not yours (unapproved ones are forgotten ${expiry} after they first knocked); raise ADMS_MAX_PENDING_DEVICES only if your site really has more terminals waiting at once.`,
      }
    : {
        message: `Unknown terminals from one address were refused ${times} in the last hour (${last}): ${max} terminals from that address already wait for approval (ADMS_MAX_PENDING_PER_ADDRESS). A terminal of yours behind that address never appears in Terminals.`,
        fix: 'In Terminals, approve the terminals of that address that are yours and remove the others; raise ADMS_MAX_PENDING_PER_ADDRESS if many of your terminals share one address (behind NAT).',
      };
}

function diag(
  d: DeviceRow,
  kind: DiagnosticView['kind'],
  severity: DiagnosticView['severity'],
  since: number | null,
  words: { message: string; fix: string; details: Record<string, unknown> },
): DiagnosticView {
  return { kind, severity, device: d.serialNumber, device_name: d.name, since: iso(since), ...words };
}

function describeSeconds(s: number): string {
  if (s < 120) return `${s} seconds`;
  if (s < 7200) return `${Math.round(s / 60)} minutes`;
  if (s < 2 * 86_400) return `${Math.round(s / 360) / 10} hours`;
  if (s < 2 * YEAR_S) return `${Math.round(s / 86_400)} days`;
  return `about ${Math.round(s / YEAR_S)} years`;
}

const YEAR_S = 365.25 * 86_400;
