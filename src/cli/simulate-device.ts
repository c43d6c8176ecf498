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
 * `--scenario lost-records|moved-stamp|card-only|drifting-clock` plays one case of punch
 * completeness or anomalies instead (simulator/scenarios.ts).
 */
import { parseArgs } from 'node:util';
import { parseDuration } from '../platform/config/values';
import { runScenario, SCENARIOS } from '../simulator/scenarios';
import { SimulatedTerminal } from '../simulator/terminal';

export const SIMULATE_USAGE =
  'usage: npm run fpa:simulate-device -- --url <base url> --sn <serial> [--punches N] [--pins 1,2] [--duration 30s] [--time-zone <IANA zone>] [--prefix /iclock/] [--biodata] [--fp-version 10] [--poll-interval 2s] [--token <pushcommkey>] [--existing-users N] [--capacity users[,templates]] [--away 1m] [--clock-ahead 5m] [--scenario lost-records|moved-stamp|card-only|drifting-clock] [--drift 5m] [--quiet]';

function duration(text: string | undefined, fallback: number, name: string): number {
  if (text === undefined) return fallback;
  const parsed = parseDuration(text);
  if (!parsed.ok) throw new Error(`--${name}: ${parsed.error}`);
  return parsed.value;
}

export async function simulateDevice(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
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
      quiet: { type: 'boolean' },
    },
    allowPositionals: false,
    strict: true,
  });
  if (!values.url || !values.sn) {
    console.error(SIMULATE_USAGE);
    return 2;
  }
  const punches = values.punches === undefined ? 0 : Number(values.punches);
  if (!Number.isInteger(punches) || punches < 0) throw new Error('--punches must be a whole number');
  const pins = (values.pins ?? '1')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  const ms = duration(values.duration, 30_000, 'duration');
  const pollIntervalMs = values['poll-interval'] === undefined ? undefined : duration(values['poll-interval'], 10_000, 'poll-interval');
  const existing = values['existing-users'] === undefined ? 0 : Number(values['existing-users']);
  if (!Number.isInteger(existing) || existing < 0) throw new Error('--existing-users must be a whole number');
  const [users, templates] = (values.capacity ?? '').split(',').map((n) => (n.trim() === '' ? undefined : Number(n)));
  if ([users, templates].some((n) => n !== undefined && !(Number.isInteger(n) && n >= 0))) throw new Error('--capacity is users[,templates], whole numbers');
  const awayMs = values.away === undefined ? 0 : duration(values.away, 0, 'away');
  const clockOffMs = values['clock-ahead'] === undefined ? 0 : duration(values['clock-ahead'], 0, 'clock-ahead');
  const terminal = new SimulatedTerminal({
    url: values.url,
    sn: values.sn,
    prefix: values.prefix,
    timeZone: values['time-zone'],
    biodata: values.biodata ?? false,
    fpVersion: values['fp-version'],
    pushCommKey: values.token,
    existingUsers: Array.from({ length: existing }, (_, i) => ({ pin: String(i + 1), name: `Menu user ${i + 1}`, fingers: [6] })),
    capacity: { users, templates },
    clockOffMs,
    log: values.quiet ? undefined : (line) => console.log(`[${values.sn}] ${line}`),
  });
  if (values.scenario !== undefined) {
    if (!(values.scenario in SCENARIOS)) throw new Error(`--scenario: one of ${Object.keys(SCENARIOS).join(', ')}`);
    const played = await runScenario(terminal, values.scenario, {
      ms,
      pins,
      punches: values.punches === undefined ? 20 : punches,
      pollIntervalMs,
      awayMs,
      driftMs: duration(values.drift, 5 * 60_000, 'drift'),
      log: values.quiet ? () => undefined : (line) => console.log(`[${values.sn}] ${line}`),
    });
    console.log(
      `fpa:simulate-device: ${values.sn} played ${values.scenario}: polled ${played.polls} times, sent ${played.punchesSent} punches, kept ${played.punchesHeld} without sending them, holds ${terminal.transactionCount} records, met ${played.errors} errors`,
    );
    return played.polls === 0 ? 1 : 0;
  }
  const summary = await terminal.runFor(ms, { punches, pins, pollIntervalMs, awayAfterFirstPollMs: awayMs });
  console.log(
    `fpa:simulate-device: ${values.sn} polled ${summary.polls} times, punched ${summary.punchesSent} times (${terminal.pendingPunches} not acknowledged), ran ${summary.commands} commands, met ${summary.errors} errors; holds ${terminal.users.size} users and ${terminal.templates.size} templates`,
  );
  if (summary.polls === 0) {
    // A terminal that never got through has done nothing an operator asked for: not a success.
    console.error(`fpa:simulate-device: the server at ${values.url} never answered a poll (${summary.errors} errors)`);
    return 1;
  }
  return terminal.pendingPunches === 0 ? 0 : 1;
}
