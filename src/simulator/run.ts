/**
 * A simulated terminal left running for a while, as `bun run fpa:simulate-device` runs it
 * without a scenario (scenarios.ts plays the same life with a twist).
 */
import type { PunchRecord, SimulatedTerminal } from './terminal';

export interface RunPlan {
  punches?: number;
  pins?: string[];
  pollIntervalMs?: number;
  /** Unplugged after its first poll for this long: silent, its punches kept until it is back. */
  awayAfterFirstPollMs?: number;
  /** Called with what happens on the way (away, errors): the CLI prints it. */
  log?: (line: string) => void;
}

export interface RunSummary {
  polls: number;
  punchesSent: number;
  commands: number;
  errors: number;
}

/**
 * Behaves like a terminal for `ms`: handshake, parameters, then polls every `Delay` seconds
 * (or `pollIntervalMs`), spreading `punches` punches of `pins` over the time. Like a real
 * terminal it survives a server that is down or failing: the error is logged, it waits
 * (`ErrorDelay`, at most the poll interval) and carries on; unacknowledged punches are resent.
 */
export async function runFor(terminal: SimulatedTerminal, ms: number, plan: RunPlan = {}): Promise<RunSummary> {
  const started = Date.now();
  const elapsed = () => Date.now() - started;
  const pins = plan.pins && plan.pins.length > 0 ? plan.pins : ['1'];
  const total = plan.punches ?? 0;
  const interval = () => plan.pollIntervalMs ?? Math.max(1, Number(terminal.options.Delay ?? '10')) * 1000;
  let sent = 0;
  let polls = 0;
  let errors = 0;
  let greeted = false;
  const commandsBefore = terminal.commands.length;
  const punchesDue = (upTo: number) => {
    const batch: PunchRecord[] = [];
    for (; sent < upTo; sent++) batch.push({ pin: pins[sent % pins.length]!, state: sent % 2 });
    return batch;
  };
  while (elapsed() < ms) {
    try {
      if (!greeted) {
        await terminal.handshake();
        await terminal.postOptions();
        greeted = true;
      }
      await terminal.poll();
      polls++;
      if (polls === 1 && (plan.awayAfterFirstPollMs ?? 0) > 0) {
        // Unplugged: silent for a while, its punches kept until it is back.
        plan.log?.(`away for ${plan.awayAfterFirstPollMs} ms`);
        await Bun.sleep(Math.min(plan.awayAfterFirstPollMs!, Math.max(0, ms - elapsed())));
      }
      const batch = punchesDue(Math.min(total, Math.ceil((elapsed() / ms) * total)));
      if (batch.length > 0) await terminal.punch(batch);
      else if (terminal.pendingPunches > 0) await terminal.flushPunches();
    } catch (error) {
      errors++;
      plan.log?.(`error: ${error instanceof Error ? error.message : String(error)}`);
    }
    const left = ms - elapsed();
    if (left > 0) await Bun.sleep(Math.min(interval(), left));
  }
  try {
    const rest = punchesDue(total);
    // Every punch still due is recorded and sent (with any unacknowledged ones) before the end.
    await terminal.punch(rest);
  } catch (error) {
    errors++;
    plan.log?.(`error: ${error instanceof Error ? error.message : String(error)}`);
  }
  return { polls, punchesSent: sent, commands: terminal.commands.length - commandsBefore, errors };
}
