/** The machine a run was measured on, so figures are never read without it. */
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg, release, totalmem } from 'node:os';

export interface Machine {
  nproc: number;
  cpu: string;
  memory: string;
  bun: string;
  kernel: string;
  date: string;
  /** 1-minute load average when the run started (other work on the machine skews figures). */
  loadAtStart: number;
}

export function describeMachine(): Machine {
  return {
    nproc: nproc(),
    cpu: cpuModel(),
    memory: `${(memTotalBytes() / 1024 ** 3).toFixed(1)} GiB`,
    bun: Bun.version,
    kernel: `${process.platform} ${release()}`,
    date: new Date().toISOString(),
    loadAtStart: loadNow(),
  };
}

/** The 1-minute load average. */
export function loadNow(): number {
  return Math.round(loadavg()[0]! * 100) / 100;
}

/** What `nproc` prints: the CPUs this process may run on. */
function nproc(): number {
  const out = Bun.spawnSync(['nproc'], { stdout: 'pipe', stderr: 'ignore' });
  const n = Number.parseInt(out.stdout.toString().trim(), 10);
  return Number.isFinite(n) && n > 0 ? n : availableParallelism();
}

function cpuModel(): string {
  try {
    const line = readFileSync('/proc/cpuinfo', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('model name'));
    if (line) return line.slice(line.indexOf(':') + 1).trim();
  } catch {
    // not Linux
  }
  return 'unknown';
}

function memTotalBytes(): number {
  try {
    const match = /^MemTotal:\s+(\d+) kB/m.exec(readFileSync('/proc/meminfo', 'utf8'));
    if (match) return Number(match[1]) * 1024;
  } catch {
    // not Linux
  }
  return totalmem();
}
