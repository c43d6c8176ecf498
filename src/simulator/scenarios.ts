/**
 * Terminal scenarios of punch completeness and anomalies, for `npm run fpa:simulate-device --
 * --scenario <name>` (and the README's laptop walk-through). Each plays one terminal's life
 * against a real server: handshake, parameters, polls every interval, and its own twist.
 *
 * - `lost-records`: a third of its punches never reach the server (it counts them, it keeps
 *   them, it never sends them). Its reported count runs ahead; the server's check (every
 *   minute) finds the gap and asks for the range; the terminal re-uploads it.
 * - `moved-stamp`: it goes away (`--away`, longer than DEVICE_OFFLINE_AFTER) and keeps
 *   punching; back, its firmware has moved its stamp past those punches and never sends them.
 *   The server asks it to re-upload the silent range.
 * - `card-only`: every punch is verified by card (verify mode 4): a person with a fingerprint
 *   enrolled raises `verified_without_biometric`.
 * - `drifting-clock`: its clock runs `--drift` ahead (default 5m): its punches carry that time.
 * - `old-firmware`: as `lost-records`, on a firmware that cannot re-send (it answers −1002 to
 *   `DATA QUERY ATTLOG`): the gap stays until its USB file is imported (`--usb-file`).
 */
import type { CommandResponder, PunchRecord, SimulatedTerminal } from './terminal';

export interface ScenarioPlan {
  ms: number;
  pins: string[];
  punches: number;
  pollIntervalMs?: number;
  awayMs: number;
  driftMs: number;
  log(line: string): void;
}

export interface ScenarioSummary {
  polls: number;
  punchesSent: number;
  punchesHeld: number;
  errors: number;
}

interface Scenario {
  about: string;
  /** How the n-th punch is made at `now` (the terminal's time), and whether it is sent (false: kept in the log only). */
  punch(n: number, plan: ScenarioPlan, away: boolean, now: number): { record: PunchRecord; send: boolean };
  /** How its firmware answers commands, where it differs (the terminal is built with it). */
  respond?: CommandResponder;
}

export const SCENARIOS: Record<string, Scenario> = {
  'lost-records': {
    about: 'a third of its punches never reach the server; the gap is found and re-uploaded',
    punch: (n, plan) => ({ record: { pin: pinOf(n, plan) }, send: n % 3 !== 2 }),
  },
  'moved-stamp': {
    about: 'punches made while away are never sent (its stamp moved past them); re-uploaded after it is back',
    punch: (n, plan, away) => ({ record: { pin: pinOf(n, plan) }, send: !away }),
  },
  'card-only': {
    about: 'every punch verified by card (mode 4): an anomaly for people with a fingerprint',
    punch: (n, plan) => ({ record: { pin: pinOf(n, plan), verifyType: 4 }, send: true }),
  },
  'old-firmware': {
    about: 'a third of its punches never reach the server, and its firmware cannot re-send them: they come on its USB file',
    punch: (n, plan) => ({ record: { pin: pinOf(n, plan) }, send: n % 3 !== 2 }),
    respond: (command) => (command.text.startsWith('DATA QUERY ATTLOG') ? -1002 : undefined),
  },
  'drifting-clock': {
    about: 'its clock runs ahead by --drift (default 5m)',
    punch: (n, plan, _away, now) => ({ record: { pin: pinOf(n, plan), at: new Date(now + plan.driftMs + (n % 60) * 1000) }, send: true }),
  },
};

const pinOf = (n: number, plan: ScenarioPlan) => plan.pins[n % plan.pins.length] ?? '1';

/** Plays a scenario for `plan.ms`, like run.ts `runFor` (which it follows), with its twist. */
export async function runScenario(terminal: SimulatedTerminal, name: string, plan: ScenarioPlan): Promise<ScenarioSummary> {
  const scenario = SCENARIOS[name];
  if (!scenario) throw new Error(`--scenario: one of ${Object.keys(SCENARIOS).join(', ')}`);
  plan.log(`scenario ${name}: ${scenario.about}`);
  const started = Date.now();
  const elapsed = () => Date.now() - started;
  const interval = () => plan.pollIntervalMs ?? Math.max(1, Number(terminal.options.Delay ?? '10')) * 1000;
  const summary: ScenarioSummary = { polls: 0, punchesSent: 0, punchesHeld: 0, errors: 0 };
  let made = 0;
  let greeted = false;
  // `moved-stamp` is away from its first poll for awayMs; the punches due meanwhile are made then.
  const awayUntil = () => (name === 'moved-stamp' && plan.awayMs > 0 ? plan.awayMs : 0);
  while (elapsed() < plan.ms) {
    try {
      if (!greeted) {
        await terminal.handshake();
        await terminal.postOptions();
        greeted = true;
      }
      const away = elapsed() < awayUntil() && summary.polls > 0;
      // Punches due by now, spread over the first half of the run (the second half shows the recovery).
      const due = Math.min(plan.punches, Math.ceil((elapsed() / Math.max(1, plan.ms / 2)) * plan.punches));
      const send: PunchRecord[] = [];
      for (; made < due; made++) {
        const { record, send: sent } = scenario.punch(made, plan, away, terminal.now());
        if (sent) send.push(record);
        else {
          terminal.holdUnsent([record]);
          summary.punchesHeld++;
        }
      }
      if (away) {
        await Bun.sleep(Math.min(interval(), plan.ms - elapsed()));
        continue;
      }
      if (send.length > 0) await terminal.punch(send);
      summary.punchesSent += send.length;
      await terminal.poll();
      summary.polls++;
    } catch (error) {
      summary.errors++;
      plan.log(`error: ${error instanceof Error ? error.message : String(error)}`);
    }
    const left = plan.ms - elapsed();
    if (left > 0) await Bun.sleep(Math.min(interval(), left));
  }
  return summary;
}
