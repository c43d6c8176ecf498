/**
 * `bun run fpa:simulate-device --url <base> --sn <serial> [--punches N] [--pins 1,2]
 * [--duration 30s] [--time-zone Asia/Kolkata] [--prefix /iclock/] [--biodata]
 * [--poll-interval 2s] [--token <pushcommkey>] [--existing-users N] [--capacity users[,templates]]
 * [--away 1m] [--clock-ahead 5m]`: a terminal for trying the service without hardware. It handshakes, posts its
 * parameters, polls, answers commands and punches. It can play the terminals of a real rollout:
 * one that already holds users 1..N with a fingerprint each (made at its menu), one that fills up
 * (writes past its capacity answer −1001), one that goes silent after its first poll for longer
 * than the server's commands live (`--away`, against a server with a short COMMAND_EXPIRY), one whose
 * clock runs ahead until the server sets it (`--clock-ahead`, `diagnostics/` shows `clock_drift`).
 * `--scenario lost-records|moved-stamp|card-only|drifting-clock|old-firmware` plays one case of
 * punch completeness or anomalies instead (simulator/scenarios.ts). `--usb-file <path>` writes,
 * at the end, its whole log as the terminal saves it to a USB stick (`1_attlog.dat`), for the
 * terminal page's "Punches from a USB stick".
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parseDuration } from '../platform/config/values';
import { isValidTimeZone } from '../platform/time/zone';
import { runFor } from '../simulator/run';
import { runScenario, SCENARIOS } from '../simulator/scenarios';
import { SimulatedTerminal } from '../simulator/terminal';
import { usbAttlogFile } from '../simulator/usb-file';
import { UsageError } from './run';

export const SIMULATE_USAGE =
  'usage: npm run fpa:simulate-device -- --url <base url> --sn <serial> [--punches N] [--pins 1,2] [--duration 30s] [--time-zone <IANA zone>] [--prefix /iclock/] [--biodata] [--fp-version 10] [--poll-interval 2s] [--token <pushcommkey>] [--existing-users N] [--capacity users[,templates]] [--away 1m] [--clock-ahead 5m] [--scenario lost-records|moved-stamp|card-only|drifting-clock|old-firmware] [--drift 5m] [--usb-file <path>] [--quiet]';

function duration(text: string | undefined, fallback: number, name: string): number {
  if (text === undefined) return fallback;
  const parsed = parseDuration(text);
  if (!parsed.ok) throw new UsageError(`--${name}: ${parsed.error}`);
  return parsed.value;
}

const OPTIONS = {
  url: { type: 'string' },
  sn: { type: 'string' },
  punches: { type: 'string' },
  pins: { type: 'string' },
  duration: { type: 'string' },
  'time-zone': { type: 'string' },
  prefix: { type: 'string' },
  biodata: { type: 'boolean' },
  'fp-version': { type: 'string' },
  'poll-interval': { type: 'string' },
  token: { type: 'string' },
  'existing-users': { type: 'string' },
  capacity: { type: 'string' },
  away: { type: 'string' },
  'clock-ahead': { type: 'string' },
  scenario: { type: 'string' },
  drift: { type: 'string' },
  'usb-file': { type: 'string' },
  quiet: { type: 'boolean' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS }>>['values'];

/** What the command runs: the terminal's settings and the plan of its run, read from the flags. */
interface Simulation {
  url: string;
  sn: string;
  punches: number;
  pins: string[];
  ms: number;
  pollIntervalMs: number | undefined;
  awayMs: number;
  existingUsers: number;
  capacity: { users: number | undefined; templates: number | undefined };
  clockOffMs: number;
  log: ((line: string) => void) | undefined;
  values: Values;
}

/** The options the command cannot run without, and what each is (the line naming one that is missing). */
const REQUIRED = { url: 'the server’s base URL, e.g. http://127.0.0.1:3000', sn: 'the serial number the terminal reports' } as const;

/** The line naming the required options not given, then the usage (exit 2, as every script does). */
function missingOptions(given: Record<keyof typeof REQUIRED, string | undefined>): string {
  const missing = (Object.keys(REQUIRED) as (keyof typeof REQUIRED)[]).filter((name) => !given[name]);
  const named = missing.map((name) => `--${name} (${REQUIRED[name]})`).join(' and ');
  return `${named} ${missing.length === 1 ? 'is' : 'are'} required\n${SIMULATE_USAGE}`;
}

/** The flags read and checked (a bad one, or `--url` or `--sn` missing, throws a UsageError naming it). */
function readFlags(args: string[]): Simulation {
  const { values } = parseArgs({ args, options: OPTIONS, allowPositionals: false, strict: true });
  const { url, sn } = values;
  if (!url || !sn) throw new UsageError(missingOptions({ url, sn }));
  const punches = values.punches === undefined ? 0 : Number(values.punches);
  if (!Number.isInteger(punches) || punches < 0) throw new UsageError('--punches must be a whole number');
  const pins = (values.pins ?? '1')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  const ms = duration(values.duration, 30_000, 'duration');
  const pollIntervalMs = values['poll-interval'] === undefined ? undefined : duration(values['poll-interval'], 10_000, 'poll-interval');
  const existingUsers = values['existing-users'] === undefined ? 0 : Number(values['existing-users']);
  if (!Number.isInteger(existingUsers) || existingUsers < 0) throw new UsageError('--existing-users must be a whole number');
  const [users, templates] = (values.capacity ?? '').split(',').map((n) => (n.trim() === '' ? undefined : Number(n)));
  if ([users, templates].some((n) => n !== undefined && !(Number.isInteger(n) && n >= 0)))
    throw new UsageError('--capacity is users[,templates], whole numbers');
  const awayMs = values.away === undefined ? 0 : duration(values.away, 0, 'away');
  const clockOffMs = values['clock-ahead'] === undefined ? 0 : duration(values['clock-ahead'], 0, 'clock-ahead');
  const zone = values['time-zone'];
  if (zone !== undefined && !isValidTimeZone(zone)) throw new UsageError(`--time-zone "${zone}" is not an IANA time zone (for example Asia/Kolkata)`);
  if (values.scenario !== undefined && !(values.scenario in SCENARIOS)) throw new UsageError(`--scenario: one of ${Object.keys(SCENARIOS).join(', ')}`);
  const log = values.quiet ? undefined : (line: string) => console.log(`[${sn}] ${line}`);
  return { url, sn, punches, pins, ms, pollIntervalMs, awayMs, existingUsers, capacity: { users, templates }, clockOffMs, log, values };
}

/** The terminal the flags describe: its users already there, its capacity, its clock, its key. */
function terminalOf(run: Simulation): SimulatedTerminal {
  const { values } = run;
  return new SimulatedTerminal({
    url: run.url,
    sn: run.sn,
    prefix: values.prefix,
    timeZone: values['time-zone'],
    biodata: values.biodata ?? false,
    fpVersion: values['fp-version'],
    pushCommKey: values.token,
    existingUsers: Array.from({ length: run.existingUsers }, (_, i) => ({ pin: String(i + 1), name: `Menu user ${i + 1}`, fingers: [6] })),
    capacity: run.capacity,
    clockOffMs: run.clockOffMs,
    log: run.log,
    respond: values.scenario === undefined ? undefined : SCENARIOS[values.scenario]?.respond,
  });
}

/** `--usb-file`: its whole log written as the file it saves to a USB stick. */
function writeUsbFile(terminal: SimulatedTerminal, path: string | undefined): void {
  if (path === undefined) return;
  writeFileSync(path, usbAttlogFile(terminal));
  console.log(`fpa:simulate-device: wrote its ${terminal.transactionCount} records to ${path} (the terminal page, "Punches from a USB stick", imports it)`);
}

/** `--scenario`: one case of punch completeness or anomalies (simulator/scenarios.ts). */
async function playScenario(terminal: SimulatedTerminal, run: Simulation, scenario: string): Promise<number> {
  const played = await runScenario(terminal, scenario, {
    ms: run.ms,
    pins: run.pins,
    punches: run.values.punches === undefined ? 20 : run.punches,
    pollIntervalMs: run.pollIntervalMs,
    awayMs: run.awayMs,
    driftMs: duration(run.values.drift, 5 * 60_000, 'drift'),
    log: run.log ?? (() => undefined),
  });
  console.log(
    `fpa:simulate-device: ${run.sn} played ${scenario}: polled ${played.polls} times, sent ${played.punchesSent} punches, kept ${played.punchesHeld} without sending them, holds ${terminal.transactionCount} records, met ${played.errors} errors`,
  );
  return played.polls === 0 ? 1 : 0;
}

export async function simulateDevice(args: string[]): Promise<number> {
  const run = readFlags(args);
  const terminal = terminalOf(run);
  if (run.values.scenario !== undefined) {
    const code = await playScenario(terminal, run, run.values.scenario);
    writeUsbFile(terminal, run.values['usb-file']);
    return code;
  }
  const summary = await runFor(terminal, run.ms, {
    punches: run.punches,
    pins: run.pins,
    pollIntervalMs: run.pollIntervalMs,
    awayAfterFirstPollMs: run.awayMs,
    log: run.log,
  });
  console.log(
    `fpa:simulate-device: ${run.sn} polled ${summary.polls} times, punched ${summary.punchesSent} times (${terminal.pendingPunches} not acknowledged), ran ${summary.commands} commands, met ${summary.errors} errors; holds ${terminal.users.size} users and ${terminal.templates.size} templates`,
  );
  writeUsbFile(terminal, run.values['usb-file']);
  if (summary.polls === 0) {
    // A terminal that never got through has done nothing an operator asked for: not a success.
    console.error(`fpa:simulate-device: the server at ${run.url} never answered a poll (${summary.errors} errors)`);
    return 1;
  }
  return terminal.pendingPunches === 0 ? 0 : 1;
}
