/**
 * Errors beside the field, in plain words. Every form of the console submits through `onSubmit`:
 * an API error is turned into messages (plainErrors) and each is shown under the field it is
 * about (`aria-invalid`, tied to the control by `aria-describedby`, the first one focused); an
 * error about no field is shown at the top of the form itself, never in a banner out of view.
 */
import { ApiError, SERVER_PROBLEM, UNREACHABLE } from './api';
import { h } from './dom';
import { fileSize, localDay } from './format';

type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement | HTMLElement;

export interface PlainError {
  /** The API's field name (`areas`, `card`, `from`…), when the error is about one. */
  field?: string;
  message: string;
}

/** A problem the console finds itself in what was typed (no request made), about one field. */
export class FieldError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/** What the API says in developer words, as a person would say it. */
const BY_CODE: Record<string, string | ((e: ApiError) => string)> = {
  not_in_scope: 'This person is not in any of this terminal’s areas. Add the area to the person, or choose a terminal of their areas.',
  unknown_area: (e) => {
    const unknown = Array.isArray(e.details.unknown) ? (e.details.unknown as string[]) : [];
    const suggestions = (e.details.suggestions ?? {}) as Record<string, string>;
    const first = unknown[0] ?? '';
    const hint = suggestions[first] ? ` Did you mean “${suggestions[first]}”?` : '';
    return `There is no area called “${first}”.${hint} Choose one from the list, or create it first.`;
  },
  consent_required: 'Record this person’s consent first: without it no fingerprint is taken.',
  invalid_card: 'A card number is the digits printed on the badge (1 to 4294967295).',
  invalid_pin:
    'Not every terminal can hold this PIN (a PIN is 1 to 9 digits). Remove this user from the terminal and enroll the person, who gets a new PIN, or change the PIN at the terminal’s menu and adopt that user.',
  unknown_employee: 'No employee has this ID in the employee directory.',
  employee_inactive: 'This employee left: they are inactive in the employee directory. Reactivate them under People › Inactive employees first.',
  enrollee_inactive: 'This person is deactivated: reactivate them first.',
  device_busy: 'This terminal is busy with another enrollment. Try again in a minute.',
  device_not_approved:
    'This terminal is waiting for approval: until then it gets nothing but the deletes it owes. Approve it first; approving it asks for its users and then sends it the people of its areas.',
  algorithm_incompatible: 'No terminal of this person’s areas can use fingerprints taken this way.',
  command_not_supported: 'This terminal does not support that.',
  confirmation_required: 'Type the serial number to confirm.',
  rate_limited: 'Too many attempts. Wait a moment and try again.',
  weak_password: (e) => `The password needs at least ${typeof e.details.min === 'number' ? e.details.min : 12} characters other than spaces.`,
  // The policy's refusal (it names the action) is about the role, most often changed since the
  // page was drawn; any other says why in words already (another area's member, areas not one's own).
  forbidden: (e) =>
    typeof e.details.action === 'string'
      ? 'Your role does not allow this; it may have changed since you signed in. Reload the page to see what you may do now, or ask an administrator.'
      : sentence(e.message),
  not_found: (e) => notFound(e.message),
  unavailable: 'The server is busy. Try again in a moment.',
  payload_too_large: (e) =>
    typeof e.details.max_bytes === 'number'
      ? `This is larger than the server takes here (at most ${fileSize(e.details.max_bytes)}).`
      : 'This is larger than the server takes here.',
  internal_error: SERVER_PROBLEM,
  unreachable: UNREACHABLE,
};

/** What a "not found" is about, as a person says it: each is kept to the caller's areas. */
const THINGS: Record<string, string> = {
  enrollee: 'This person',
  person: 'This person',
  device: 'This terminal',
  terminal: 'This terminal',
  area: 'This area',
  user: 'This user',
  employee: 'This employee',
  'api key': 'This API key',
};

/**
 * "Enrollee not found." said as what it means and what to do. A caller limited to areas is told
 * "not found" for what is outside them too, so both readings are given.
 */
function notFound(message: string): string {
  const named = /^(?:no such (.+?)|(.+?) not found)\.?$/i.exec(message.trim());
  if (!named) return sentence(message);
  const thing = (named[1] ?? named[2] ?? '').toLowerCase();
  // Anything else (a job, a pay period) is the same for every caller.
  const where = THINGS[thing] ? ', or is not in your areas' : '';
  return `${THINGS[thing] ?? `This ${thing}`} does not exist (it may have been deleted)${where}. Go back to the list and look for it there.`;
}

/** The plain word for a field name, for a message that has no field to sit beside. */
const FIELD_WORDS: Record<string, string> = {
  name: 'Name',
  id: 'ID',
  employee: 'Employee ID',
  areas: 'Areas',
  area: 'Area',
  card: 'Card number',
  from: 'From',
  to: 'To',
  start: 'Starts',
  end: 'Ends',
  break: 'Break',
  grace_in: 'Late after',
  weekdays: 'Days',
  time_zone: 'Time zone',
  version: 'Consent text version',
  method: 'How it was given',
  reason: 'Reason',
  at: 'Time',
  date: 'Date',
  schedule: 'Schedule',
  enrollees: 'People',
  url: 'Address',
};

/** What a field takes, said when the value sent is not accepted (better than any schema message). */
const FIELD_RULES: Record<string, string> = {
  card: 'A card number is the digits printed on the badge (1 to 4294967295).',
  time_zone: 'A time zone is a name like Europe/Berlin.',
  start: 'A time like 09:00.',
  end: 'A time like 17:00.',
  break: 'A duration like 30m or 1h.',
  grace_in: 'A duration like 10m.',
  grace_out: 'A duration like 10m.',
  from: 'A date is needed.',
  to: 'A date is needed.',
  url: 'A web address starting with https://.',
};

/** TypeBox's messages (“Expected string length greater or equal to 1”) in plain words. */
function plainValidation(message: string): string {
  // The API says what a value must be in words already (`must be one of: oldest, newest`).
  if (message.startsWith('must ')) return sentence(message);
  if (message === 'required' || /length greater or equal to 1\b/.test(message) || /Expected required property/.test(message)) return 'This is required.';
  const longest = /length less or equal to (\d+)/.exec(message);
  if (longest) return `At most ${longest[1]} characters.`;
  if (/pattern/i.test(message)) return 'This is not in the expected format.';
  if (/Unknown property/.test(message)) return 'This field is not expected here.';
  if (/Expected (integer|number)/.test(message)) return 'A number is expected.';
  if (/greater or equal|less or equal/.test(message)) return 'This number is out of range.';
  if (/uniqueItems|duplicate/i.test(message)) return 'Each value may appear only once.';
  return 'This value is not accepted.';
}

const sentence = (text: string) => {
  const t = text.trim();
  return t ? `${t.charAt(0).toUpperCase()}${t.slice(1)}${/[.!?]$/.test(t) ? '' : '.'}` : t;
};

/** An error as messages a person understands, each with the field it is about when there is one. */
export function plainErrors(error: unknown): PlainError[] {
  if (error instanceof FieldError) return [{ field: error.field, message: error.message }];
  if (!(error instanceof ApiError)) return [{ message: error instanceof Error ? sentence(error.message) : String(error) }];
  const d = error.details;
  if (error.code === 'validation_error' && Array.isArray(d.errors) && d.errors.length > 0) {
    const seen = new Set<string>();
    const out: PlainError[] = [];
    for (const e of d.errors as { path?: string; message?: string }[]) {
      const field = (e.path ?? '').split('/').filter(Boolean)[0];
      if (field && seen.has(field)) continue;
      if (field) seen.add(field);
      const plain = plainValidation(e.message ?? '');
      out.push({ field, message: plain === 'This is required.' || !field || !FIELD_RULES[field] ? plain : FIELD_RULES[field] });
    }
    return out;
  }
  const known = BY_CODE[error.code];
  const message = known ? (typeof known === 'function' ? known(error) : known) : sentence(error.message);
  const fields = typeof d.field === 'string' ? [d.field] : Array.isArray(d.fields) ? (d.fields as string[]) : [];
  if (error.code === 'conflict' && typeof d.card === 'string') return [{ field: 'card', message: 'Another person already has this card.' }];
  // A pay period whose last date is not over yet: when it can be locked, in the console's dates.
  if (error.code === 'conflict' && typeof d.lockable_from === 'string' && typeof d.to === 'string') {
    // Still on its last date in an area's zone behind the attendance zone (the API names it then): which one, or it reads as a contradiction.
    const where = typeof d.time_zone === 'string' && error.message.includes(` in ${d.time_zone} `) ? ` for the people of ${d.time_zone}` : '';
    return [{ message: `This pay period ends on ${localDay(d.to)}, which is not over yet${where}: it can be locked from ${localDay(d.lockable_from)} on.` }];
  }
  // An employee id nobody has in the directory (or marked inactive there): beside the field it was typed in.
  if ((error.code === 'unknown_employee' || error.code === 'employee_inactive') && typeof d.employee === 'string') return [{ field: 'employee', message }];
  // “An area (a schedule…) with this name exists”: beside the name.
  if (error.code === 'conflict' && / with this name exists/.test(error.message)) return [{ field: 'name', message }];
  return [{ field: fields[0], message }];
}

/** Removes the messages a previous submit left in the form. */
function clearErrors(form: HTMLFormElement): void {
  for (const el of Array.from(form.querySelectorAll('.field-error, .form-error'))) el.remove();
  for (const el of Array.from(form.querySelectorAll('[aria-invalid]'))) {
    el.removeAttribute('aria-invalid');
    const describedBy = (el.getAttribute('aria-describedby') ?? '').split(' ').filter((id) => !id.endsWith('-error'));
    if (describedBy.length > 0) el.setAttribute('aria-describedby', describedBy.join(' '));
    else el.removeAttribute('aria-describedby');
  }
}

/** Shows the messages beside their fields (or at the top of the form); focuses the first. */
export function showErrors(form: HTMLFormElement, errors: PlainError[], fields: Record<string, Control>): void {
  clearErrors(form);
  let first: HTMLElement | null = null;
  const general: string[] = [];
  for (const e of errors) {
    const control = e.field ? fields[e.field] : undefined;
    if (!control) {
      general.push(e.field && FIELD_WORDS[e.field] ? `${FIELD_WORDS[e.field]}: ${e.message}` : e.message);
      continue;
    }
    if (!control.id) control.id = `c-${Math.random().toString(36).slice(2, 9)}`;
    const id = `${control.id}-error`;
    const note = h('small', { class: 'field-error', id }, e.message);
    const holder = control.closest('.field') ?? control.parentElement ?? form;
    holder.append(note);
    control.setAttribute('aria-invalid', 'true');
    control.setAttribute('aria-describedby', [control.getAttribute('aria-describedby'), id].filter(Boolean).join(' '));
    first ??= control;
  }
  if (general.length > 0) {
    const box = h('p', { class: 'form-error', role: 'alert', tabindex: -1 }, general.join(' '));
    form.prepend(box);
    first ??= box;
  }
  // A group (the areas' checkboxes) is not focusable itself: its first control is.
  const focusable =
    first && !first.matches('input, select, textarea, button, [tabindex]') ? first.querySelector<HTMLElement>('input, select, textarea, button') : null;
  (focusable ?? first)?.focus();
}

/**
 * Submits `form` through `work`; an error is shown in the form beside its field. `fields` maps
 * the API's field names to the controls (several names may share one control).
 */
export function onSubmit(form: HTMLFormElement, fields: Record<string, Control>, work: () => Promise<void>): HTMLFormElement {
  // Busy, not `disabled` (as dom.ts `button`): a disabled submit button loses focus to <body>, so
  // the redraw after the work could not find where focus was (keep-focus.ts) and a keyboard user
  // started again from the top of the page. A submit while at work does nothing.
  let busy = false;
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (busy) return;
    busy = true;
    const submit = form.querySelector<HTMLButtonElement>('button[type=submit]');
    submit?.setAttribute('aria-disabled', 'true');
    clearErrors(form);
    try {
      await work();
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return;
      showErrors(form, plainErrors(error), fields);
    } finally {
      busy = false;
      submit?.removeAttribute('aria-disabled');
    }
  });
  return form;
}

/** A message in plain words for an error shown outside a form (the page's status line). */
export function plainMessage(error: unknown): string {
  return plainErrors(error)
    .map((e) => (e.field && FIELD_WORDS[e.field] ? `${FIELD_WORDS[e.field]}: ${e.message}` : e.message))
    .join(' ');
}
