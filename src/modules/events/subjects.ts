/**
 * Whom an event is about, read from its data by the shapes the modules record (src/app/event-catalog.ts):
 * a person as `enrollee` (an id, or an object with `id`), or inside `punch`, `day` or `anomaly`; a
 * terminal as `device` (an object with `serial_number`, or a punch's or an anomaly's serial), or
 * `sender`. test/modules/events/subjects.test.ts checks every type of the catalog against this. The area filter
 * of `events/` and `events/stream/` goes by these (src/platform/scope.ts `sees`).
 */
import type { Subjects } from '../../platform/scope';

type Data = Record<string, unknown>;

const isObject = (value: unknown): value is Data => typeof value === 'object' && value !== null && !Array.isArray(value);

function enrolleeOf(value: unknown): string | null {
  if (typeof value === 'string' && value !== '') return value;
  if (isObject(value) && typeof value.id === 'string') return value.id;
  return null;
}

function serialOf(value: unknown): string | null {
  if (typeof value === 'string' && value !== '') return value;
  if (isObject(value) && typeof value.serial_number === 'string') return value.serial_number;
  return null;
}

export function subjectsOf(data: unknown): Subjects {
  if (!isObject(data)) return {};
  const punch = isObject(data.punch) ? data.punch : null;
  const day = isObject(data.day) ? data.day : null;
  const anomaly = isObject(data.anomaly) ? data.anomaly : null;
  return {
    enrollee: enrolleeOf(data.enrollee) ?? enrolleeOf(punch?.enrollee) ?? enrolleeOf(day?.enrollee) ?? enrolleeOf(anomaly?.enrollee),
    device: serialOf(data.device) ?? serialOf(punch?.device) ?? serialOf(data.sender) ?? serialOf(anomaly?.device),
  };
}
