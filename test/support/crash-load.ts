/**
 * Load for the crash test that keeps its own books, so the test can tell afterwards what the
 * server acknowledged: simulated terminals pushing attendance (and walk-up templates), kept and
 * resent until answered `OK` exactly as firmware does, and an enrollment agent running
 * sessions to completion or cancellation. Every request may hit a server that was just
 * killed: a failure is only ever "try again", never a reason to drop data.
 */

import { formatLocalWallTime } from '../../src/platform/time/zone';
import { SimulatedTerminal, syntheticTemplate } from '../../src/simulator/terminal';

/** mulberry32: a small seeded generator, so a failing run can be repeated with its seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** fetch with a deadline and no kept-alive connection (terminals use `Connection: close`). */
export function deadlineFetch(timeoutMs: number): typeof fetch {
  const call = (input: string | URL | Request, init?: RequestInit) => fetch(input, { ...init, keepalive: false, signal: AbortSignal.timeout(timeoutMs) });
  return Object.assign(call, { preconnect: fetch.preconnect });
}

const isOk = (res: { status: number; body: string }) => res.status === 200 && res.body.startsWith('OK');
const SS21 = new TextEncoder().encode('SS21');

/** One attendance line as the terminal recorded it. */
export interface Line {
  pin: string;
  localTime: string;
  state: number;
}

export const lineKey = (pin: string, localTime: string) => `${pin}\t${localTime}`;

export interface WalkUpPlan {
  pins: string[];
  fingers: number[];
  /** Chance per step of a new template upload. */
  chance: number;
}

/**
 * A terminal with books: every line it recorded (in order), the ones answered `OK`, and the
 * walk-up templates it uploaded. One request at a time, like the firmware.
 */
export class TrackedTerminal {
  readonly terminal: SimulatedTerminal;
  /** Every line recorded, in recording order. */
  readonly recorded: Line[] = [];
  readonly acknowledged = new Set<string>();
  /** `OK:n` answers whose n was not the number of lines sent. */
  readonly miscounts: string[] = [];
  /** The last template answered `OK` per `pin:finger` (base64). */
  readonly templatesAcknowledged = new Map<string, string>();
  failures = 0;
  /** Line resends: lines carried again because an earlier upload of them went unanswered. */
  resent = 0;
  private unanswered: Line[] = [];
  private templateInFlight: { pin: string; finger: number; template: string } | null = null;

  constructor(
    readonly sn: string,
    url: string,
    private readonly pins: string[],
    /** Wall time of the first punch; each next one is 7 minutes later (unique per terminal). */
    private readonly firstPunchMs: number,
    private readonly walkUp: WalkUpPlan | null = null,
  ) {
    this.terminal = new SimulatedTerminal({ url, sn, fetch: deadlineFetch(15_000) });
  }

  get pending(): number {
    return this.unanswered.length + (this.templateInFlight ? 1 : 0);
  }

  async greet(): Promise<void> {
    await this.terminal.handshake();
    await this.terminal.postOptions();
  }

  /** One round: poll for commands, record `newLines` punches and upload, maybe a template. */
  async step(random: () => number, newLines: number): Promise<void> {
    try {
      await this.terminal.poll();
    } catch {
      this.failures++;
    }
    const fresh = Array.from({ length: newLines }, () => this.record());
    try {
      await this.upload(fresh);
    } catch {
      this.failures++;
    }
    if (!this.walkUp) return;
    if (!this.templateInFlight && random() < this.walkUp.chance) {
      const pin = this.walkUp.pins[Math.floor(random() * this.walkUp.pins.length)]!;
      const finger = this.walkUp.fingers[Math.floor(random() * this.walkUp.fingers.length)]!;
      this.templateInFlight = { pin, finger, template: syntheticTemplate(64 + Math.floor(random() * 400)) };
    }
    try {
      await this.uploadTemplate();
    } catch {
      this.failures++;
    }
  }

  /** Resends until every line and template is acknowledged (the server must be up). */
  async settle(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.pending > 0) {
      if (Date.now() > deadline)
        throw new Error(`${this.sn}: ${this.unanswered.length} lines and ${this.templateInFlight ? 1 : 0} template still unacknowledged`);
      try {
        await this.upload([]);
        await this.uploadTemplate();
      } catch {
        this.failures++;
        await Bun.sleep(50);
      }
    }
    // Take the commands the uploads queued, so the terminal tables are current too.
    for (let i = 0; i < 10; i++) if ((await this.terminal.poll()).length === 0) break;
  }

  private record(): Line {
    const n = this.recorded.length;
    const line: Line = {
      pin: this.pins[n % this.pins.length]!,
      localTime: formatLocalWallTime(new Date(this.firstPunchMs + n * 7 * 60_000), 'UTC'),
      state: n % 2,
    };
    this.recorded.push(line);
    return line;
  }

  /** The terminal resends everything unanswered with the new lines; `OK` clears them all. */
  private async upload(fresh: Line[]): Promise<void> {
    this.resent += this.unanswered.length;
    this.unanswered.push(...fresh);
    if (this.unanswered.length === 0) return;
    const batch = this.unanswered.length;
    const res = await this.terminal.punch(fresh.map((l) => ({ pin: l.pin, localTime: l.localTime, state: l.state })));
    if (!isOk(res)) return;
    if (res.body !== `OK:${batch}`) this.miscounts.push(`${this.sn}: sent ${batch} lines, answered ${res.body}`);
    for (const l of this.unanswered.splice(0, batch)) this.acknowledged.add(lineKey(l.pin, l.localTime));
  }

  private async uploadTemplate(): Promise<void> {
    const t = this.templateInFlight;
    if (!t) return;
    const res = await this.terminal.uploadTemplate(t.pin, t.finger, t.template);
    if (!isOk(res)) return;
    this.templatesAcknowledged.set(`${t.pin}:${t.finger}`, t.template);
    this.templateInFlight = null;
  }
}

interface Reply {
  status: number;
  body: Record<string, unknown>;
}

/** A closed session answers every agent request with 409 `session_closed` and its final status. */
function closedAs(reply: Reply, outcome: 'completed' | 'cancelled'): boolean {
  const error = reply.body.error as { code?: string; details?: { status?: string } } | undefined;
  return reply.status === 409 && error?.code === 'session_closed' && error.details?.status === outcome;
}

/** An enrollment agent (and the administrator starting its sessions) over real HTTP. */
export class CrashAgent {
  /** Per finger, the template of the last session whose completion was acknowledged. */
  readonly completed = new Map<number, Uint8Array>();
  readonly sessions: { id: string; outcome: 'completed' | 'cancelled' }[] = [];
  /** Answers that no crash explains (4xx on a step that should work). */
  readonly surprises: string[] = [];
  failures = 0;
  private stopping = false;
  private loop: Promise<void> | null = null;

  constructor(
    private readonly apiBase: string,
    private readonly adminToken: string,
    private readonly agent: { id: string; key: string },
    private readonly enrolleeId: string,
    private readonly fingers: number[],
    private readonly random: () => number,
  ) {}

  start(): void {
    this.loop = (async () => {
      while (!this.stopping) await this.session();
    })();
  }

  /** Lets the session under way finish (the server must be up), then stops. */
  async settle(): Promise<void> {
    this.stopping = true;
    await this.loop;
  }

  /** One session from start to completion (or cancellation, one in four). */
  private async session(): Promise<void> {
    const fingers = this.fingers;
    const started = await this.retry(
      'start',
      () => this.admin('POST', '/enrollment-sessions/', { enrollee: this.enrolleeId, agent: this.agent.id, fingers }),
      201,
    );
    if (!started || typeof started.id !== 'string') return;
    const sessionId = started.id;
    if (!(await this.retry('claim', () => this.agentCall('POST', `/sessions/${sessionId}/claim/`), 200))) return;
    const uploads = new Map<number, Uint8Array>();
    for (const finger of fingers) {
      const bytes = crypto.getRandomValues(new Uint8Array(200 + Math.floor(this.random() * 300)));
      // A v10 template's header (ADMS.md §6.2): random bytes starting A1 CA would read as v9.
      bytes.set(SS21, 2);
      uploads.set(finger, bytes);
      const body = { finger_index: finger, algorithm_version: '10', template: Buffer.from(bytes).toString('base64'), quality: 70 };
      if (!(await this.retry('upload', () => this.agentCall('POST', `/sessions/${sessionId}/templates/`, body), 200))) return;
    }
    const outcome = this.random() < 0.25 ? 'cancelled' : 'completed';
    if (!(await this.finish(sessionId, outcome))) return;
    if (outcome === 'completed') for (const [finger, bytes] of uploads) this.completed.set(finger, bytes);
    this.sessions.push({ id: sessionId, outcome });
  }

  /**
   * Completes or cancels; an unanswered request is settled by reading the session back.
   * False when the server refused for a reason no crash explains (recorded as a surprise).
   */
  private async finish(id: string, outcome: 'completed' | 'cancelled'): Promise<boolean> {
    const path = `/sessions/${id}/${outcome === 'completed' ? 'complete' : 'cancel'}/`;
    for (let attempt = 0; ; attempt++) {
      if (attempt > 400) throw new Error(`agent: session ${id} could not be ${outcome}`);
      try {
        const res = await this.agentCall('POST', path);
        if (res.status === 200 && res.body.status === outcome) return true;
        // An earlier attempt committed before the crash cut its answer: the session is closed
        // with the outcome we asked for, and session_closed says so in its details.
        if (closedAs(res, outcome)) return true;
        if (res.status < 500) {
          this.surprises.push(`${path} → ${res.status} ${JSON.stringify(res.body)}`);
          return false;
        }
      } catch {
        this.failures++;
      }
      await Bun.sleep(40);
      try {
        const read = await this.agentCall('GET', `/sessions/${id}/`);
        if ((read.status === 200 && read.body.status === outcome) || closedAs(read, outcome)) return true;
      } catch {
        this.failures++;
      }
    }
  }

  /**
   * Repeats a step until it gets `want`; failures and 5xx are crashes, anything else is a
   * surprise (recorded; null abandons the session).
   */
  private async retry(step: string, call: () => Promise<Reply>, want: number): Promise<Record<string, unknown> | null> {
    for (let attempt = 0; attempt < 400; attempt++) {
      try {
        const res = await call();
        if (res.status === want) return res.body;
        if (res.status < 500) {
          this.surprises.push(`${step} → ${res.status} ${JSON.stringify(res.body)}`);
          return null;
        }
      } catch {
        this.failures++;
      }
      await Bun.sleep(40);
    }
    throw new Error(`agent: ${step} never succeeded`);
  }

  private admin(method: string, path: string, body?: unknown): Promise<Reply> {
    return this.request(`${this.apiBase}${path}`, method, `Bearer ${this.adminToken}`, body);
  }

  private agentCall(method: string, path: string, body?: unknown): Promise<Reply> {
    return this.request(`${this.apiBase}/agent${path}`, method, `Agent ${this.agent.key}`, body);
  }

  private async request(url: string, method: string, authorization: string, body?: unknown): Promise<Reply> {
    const res = await fetch(url, {
      method,
      keepalive: false,
      signal: AbortSignal.timeout(15_000),
      headers: { authorization, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    let parsed: Record<string, unknown> = {};
    try {
      parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      parsed = { text };
    }
    return { status: res.status, body: parsed };
  }
}
