/**
 * Reads a database file the server has let go of, through its own read-only connection
 * (`PRAGMA query_only` on a single-connection client), and reports what the crash test
 * checks: the punches, their events, their attendance days, and whether any template or session
 * was left half-written. Template bytes are compared in memory and never printed.
 */
import { type Client, createClient } from '@libsql/client';
import { stagedAad, templateAad } from '../../src/modules/enrollment/aad';
import { TemplateKeyRing } from '../../src/platform/crypto/template-cipher';

export async function openReadOnly(file: string): Promise<Client> {
  // One connection, so the pragma holds for every statement of this client.
  const client = createClient({ url: `file:${file}`, concurrency: 1, intMode: 'number' });
  await client.execute('PRAGMA query_only = ON');
  return client;
}

export interface StoredPunch {
  sequence: number;
  serial: string;
  pin: string;
  localTime: string;
  state: number;
  enrolleeId: string | null;
  punchedAt: number;
}

export async function storedPunches(db: Client): Promise<StoredPunch[]> {
  const rs = await db.execute('SELECT sequence, device_serial, device_pin, local_time, state, enrollee_id, punched_at FROM fpa_punches ORDER BY sequence');
  return rs.rows.map((r) => ({
    sequence: Number(r.sequence),
    serial: String(r.device_serial),
    pin: String(r.device_pin),
    localTime: String(r.local_time),
    state: Number(r.state),
    enrolleeId: r.enrollee_id === null ? null : String(r.enrollee_id),
    punchedAt: Number(r.punched_at),
  }));
}

/** The ids of the `punch_received` events of each punch sequence (one each, when all is well). */
export async function punchEvents(db: Client): Promise<Map<number, string[]>> {
  const rs = await db.execute("SELECT id, json_extract(data, '$.punch_sequence') AS punch FROM fpa_events WHERE type = 'punch_received' ORDER BY sequence");
  const out = new Map<number, string[]>();
  for (const r of rs.rows) {
    const punch = Number(r.punch);
    out.set(punch, [...(out.get(punch) ?? []), String(r.id)]);
  }
  return out;
}

export interface StoredDay {
  enrolleeId: string;
  date: string;
  punchCount: number;
  firstIn: number | null;
  lastOut: number | null;
}

export async function attendanceDays(db: Client): Promise<StoredDay[]> {
  const rs = await db.execute('SELECT enrollee_id, date, punch_count, first_in, last_out FROM fpa_attendance_days ORDER BY enrollee_id, date');
  return rs.rows.map((r) => ({
    enrolleeId: String(r.enrollee_id),
    date: String(r.date),
    punchCount: Number(r.punch_count),
    firstIn: r.first_in === null ? null : Number(r.first_in),
    lastOut: r.last_out === null ? null : Number(r.last_out),
  }));
}

export interface TemplateState {
  /** Decrypted bytes per `enrolleeId:finger` (one algorithm in these tests). */
  plaintexts: Map<string, Uint8Array>;
  /** Everything found half-written, as readable sentences. */
  problems: string[];
  counts: { templates: number; sync: number; staged: number; sessions: number };
}

/**
 * Every stored template opens with the key ring and its own AAD; every sync row points to a
 * template; staged uploads exist only on open sessions and open with their AAD too.
 */
export async function templateState(db: Client, keys: string[]): Promise<TemplateState> {
  const ring = await TemplateKeyRing.fromKeys(keys);
  const problems: string[] = [];
  const plaintexts = new Map<string, Uint8Array>();

  const tpl = await db.execute('SELECT id, enrollee_id, finger_index, version, ciphertext, size_bytes FROM fpa_templates');
  for (const r of tpl.rows) {
    const id = String(r.id);
    const enrollee = String(r.enrollee_id);
    const finger = Number(r.finger_index);
    try {
      const plain = await ring.decrypt(new Uint8Array(r.ciphertext as ArrayBuffer), templateAad(enrollee, finger, Number(r.version)));
      if (plain.byteLength !== Number(r.size_bytes))
        problems.push(`template ${id}: size_bytes ${String(r.size_bytes)} but ${plain.byteLength} bytes decrypted`);
      plaintexts.set(`${enrollee}:${finger}`, plain);
    } catch {
      problems.push(`template ${id} (enrollee ${enrollee}, finger ${finger}, version ${String(r.version)}) does not decrypt with its AAD`);
    }
  }

  const sync = await db.execute(
    'SELECT s.template_id, s.device_id FROM fpa_template_sync s LEFT JOIN fpa_templates t ON t.id = s.template_id WHERE t.id IS NULL',
  );
  for (const r of sync.rows) problems.push(`template_sync row of device ${String(r.device_id)} points to missing template ${String(r.template_id)}`);

  const staged = await db.execute(
    'SELECT st.session_id, st.finger_index, st.revision, st.ciphertext, s.status FROM fpa_staged_templates st LEFT JOIN fpa_enrollment_sessions s ON s.id = st.session_id',
  );
  for (const r of staged.rows) {
    const session = String(r.session_id);
    const status = r.status === null ? 'missing' : String(r.status);
    if (status !== 'open' && status !== 'in_progress')
      problems.push(`staged template of finger ${String(r.finger_index)} belongs to ${status} session ${session}`);
    try {
      await ring.decrypt(new Uint8Array(r.ciphertext as ArrayBuffer), stagedAad(session, Number(r.finger_index), Number(r.revision)));
    } catch {
      problems.push(`staged template of session ${session}, finger ${String(r.finger_index)} does not decrypt with its AAD`);
    }
  }

  const closedOpen = await db.execute(
    "SELECT id, status FROM fpa_enrollment_sessions WHERE (status IN ('open', 'in_progress') AND closed_at IS NOT NULL) OR (status NOT IN ('open', 'in_progress') AND closed_at IS NULL)",
  );
  for (const r of closedOpen.rows) problems.push(`session ${String(r.id)} is ${String(r.status)} but its closed_at disagrees`);

  const sessions = await db.execute('SELECT count(*) AS n FROM fpa_enrollment_sessions');
  return {
    plaintexts,
    problems,
    counts: { templates: tpl.rows.length, sync: await count(db, 'fpa_template_sync'), staged: staged.rows.length, sessions: Number(sessions.rows[0]!.n) },
  };
}

export async function sessionStatuses(db: Client): Promise<Map<string, string>> {
  const rs = await db.execute('SELECT id, status FROM fpa_enrollment_sessions');
  return new Map(rs.rows.map((r) => [String(r.id), String(r.status)]));
}

async function count(db: Client, table: string): Promise<number> {
  const rs = await db.execute(`SELECT count(*) AS n FROM ${table}`);
  return Number(rs.rows[0]!.n);
}

/** Same bytes, compared without ever rendering them. */
export function sameBytes(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  return a !== undefined && b !== undefined && Buffer.from(a).equals(Buffer.from(b));
}
