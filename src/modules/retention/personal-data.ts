/**
 * What retention keeps of the events that carry a person's data once they are past the horizon
 * (RETENTION_PUNCHES_DAYS): their ids (enrollee, terminal, command, punch sequence or id,
 * anomaly), who acted, and nothing else — no name, employee key, PIN, card, date or time of a punch or day. Events
 * of every other type carry ids and facts about terminals, templates (kind and index) or
 * configuration only, and are kept as they are.
 */
import type { RedactionRule } from '../events';

type Data = Record<string, unknown>;

/** The id of an enrollee given as an id or as a reference object. */
function idOf(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && typeof (value as Data).id === 'string') return (value as Data).id as string;
  return null;
}

function pick(value: unknown, keys: readonly string[]): Data {
  const out: Data = {};
  if (!value || typeof value !== 'object') return out;
  for (const key of keys) if (key in (value as Data)) out[key] = (value as Data)[key];
  return out;
}

/** The punch an event refers to (its stored form keeps the sequence; an older row the whole view). */
function punchSequence(data: Data): unknown {
  return data.punch_sequence ?? (data.punch as Data | undefined)?.sequence ?? null;
}

const REDACTORS: Record<string, (data: Data) => Data> = {
  device_command_finished: (d) => {
    const command = d.command as Data | undefined;
    return {
      device: d.device,
      command: {
        ...pick(command, ['id', 'kind', 'session']),
        payload: pick(command?.payload, ['enrollee', 'type', 'fingerIndex', 'slot', 'templateId', 'templateVersion']),
      },
      status: d.status,
      return_code: d.return_code,
    };
  },
  terminal_user_conflict: (d) => pick(d, ['device', 'enrollee']),
  terminal_user_adopted: (d) => pick(d, ['device', 'enrollee', 'punches', 'by']),
  template_rejected: (d) => pick(d, ['device', 'index', 'type', 'reason', 'enrollee']),
  enrollee_created: (d) => ({ enrollee: { id: idOf(d.enrollee) }, ...pick(d, ['areas', 'by']) }),
  enrollee_updated: (d) => ({ enrollee: { id: idOf(d.enrollee) }, changes: pick(d.changes, ['areas', 'status']), ...pick(d, ['by']) }),
  enrollee_deleted: (d) => ({ enrollee: { id: idOf(d.enrollee) }, ...pick(d, ['by']) }),
  // Stored by reference (punches/logged.ts): the punch itself goes with the punch row, so a
  // `punch_received` holds nothing more (and the bulk of the log is not rewritten); a void's
  // reason is an administrator's free text.
  punch_voided: (d) => ({ punch_sequence: punchSequence(d), ...pick(d, ['by']) }),
  punches_attributed: (d) => pick(d, ['enrollee', 'count']),
  attendance_day_changed: (d) => ({ day: { enrollee: idOf((d.day as Data | undefined)?.enrollee) } }),
  attendance_day_removed: (d) => pick(d, ['enrollee']),
  // The anomaly's ids and kind; its employee key, punch time, date and details (other punches'
  // times, the kind of a leave) go.
  anomaly_detected: (d) => ({ anomaly: pick(d.anomaly, ['id', 'kind', 'enrollee', 'device', 'punch']) }),
  anomaly_removed: (d) => ({ anomaly: pick(d.anomaly, ['id', 'kind', 'enrollee', 'device', 'punch']) }),
};

/**
 * The redaction of every event type carrying personal data: old when recorded before `cutoff`;
 * attendance facts also when they are about a date before `dateCutoff` (the purged days) or
 * punches before `cutoff`, however lately they were recorded (a recompute, an import).
 */
export function personalDataRules(cutoff: number, dateCutoff: string): RedactionRule[] {
  const cutoffIso = new Date(cutoff).toISOString();
  const dated: Record<string, RedactionRule['dated']> = {
    attendance_day_changed: { path: '$.day.date', before: dateCutoff },
    attendance_day_removed: { path: '$.date', before: dateCutoff },
    punches_attributed: { path: '$.last_punched_at', before: cutoffIso },
    anomaly_detected: { path: '$.anomaly.at', before: cutoffIso },
    anomaly_removed: { path: '$.anomaly.at', before: cutoffIso },
  };
  return Object.entries(REDACTORS).map(([type, redact]) => ({ type, recordedBefore: cutoff, dated: dated[type], redact }));
}
