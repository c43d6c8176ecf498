/**
 * An enrollment session's status and reason as the person's page says them: what happened, in
 * words, and what to do next, never the API's text (which names API paths, return codes and PINs
 * for the API's readers). The reasons are those the server writes (src/modules/enrollment:
 * sessions.ts, remote-sessions.ts, walk-up.ts, agent-sessions.ts, agents.ts, reactions.ts); one
 * the console does not know is said as a sentence of its own.
 */
import { biometricPart, words } from './format';

/** A link in a sentence: the page where the next step is done. */
export interface ReasonLink {
  href: string;
  text: string;
}

/** The words of a reason, with the links in it. */
export type ReasonWords = (string | ReasonLink)[];

/** What a session's reason is about: its terminal (serial and name), when it is at one. */
export interface SessionPlace {
  serial: string | null;
  terminal: string | null;
}

/** Whose wait an open session is: the person's at a terminal, the agent's at a desk. */
export function sessionStatus(status: string, place: SessionPlace): string {
  if (status === 'open' && place.serial) return `Waiting for the person at ${place.terminal ?? place.serial}`;
  if (status === 'open') return 'Waiting for the agent';
  return words(status);
}

/** The server's names of a session's parts (`finger 6`, `palm 1`, `visible-light face 0`) as the pages name them. */
const PART_KINDS: Readonly<Record<string, string>> = {
  finger: 'fingerprint',
  face: 'face',
  'visible-light face': 'visible_face',
  palm: 'palm',
  'finger vein': 'finger_vein',
};
const PART = /(finger vein|visible-light face|finger|face|palm) (\d+)/g;

/** `finger 6` → `the right index`; `finger 3, finger 6` → `the left index and the right index`. */
function parts(text: string): string {
  const named = [...text.matchAll(PART)].map(([, kind = '', index = '0']) => {
    const part = biometricPart(PART_KINDS[kind] ?? kind, Number(index));
    return `the ${part.charAt(0).toLowerCase()}${part.slice(1)}`;
  });
  if (named.length === 0) return 'a part';
  return named.length === 1 ? named[0]! : `${named.slice(0, -1).join(', ')} and ${named[named.length - 1]}`;
}

const sentence = (text: string) => {
  const t = text.trim();
  return t ? `${t.charAt(0).toUpperCase()}${t.slice(1)}${/[.!?]$/.test(t) ? '' : '.'}` : t;
};

const START_AGAIN = 'Start again; if it happens again, tell your administrator.';

/** Why a session ended (or what an open one waits for), in words, with what to do next. */
export function sessionReason(reason: string | null, place: SessionPlace): ReasonWords {
  if (!reason) return [];
  const text = reason.trim();
  const expired = /^session lifetime ended(?:; (.*))?$/s.exec(text);
  if (expired) {
    const waited = expired[1] ? ` ${sentence(waitingWords(expired[1], true))}` : '';
    return [`Nobody finished it in time.${waited} Start again when the person is ready.`];
  }
  const known = ENDINGS[text];
  if (known) return [known];
  const rejected = /^the template of (.+?) was rejected: (.*)$/s.exec(text);
  if (rejected) return rejectedWords(parts(rejected[1] ?? ''), rejected[2] ?? '', place);
  const command = /^(?:ENROLL_FP|ENROLL_BIO) for (.+?) (expired before the terminal answered|failed: (.*))$/s.exec(text);
  if (command) return [commandWords(parts(command[1] ?? ''), command[3] ?? null)];
  if (/the terminal answered the enroll command as done/.test(text)) {
    const replaced = /; another remote enrollment was started on the terminal$/.test(text);
    return [`${sentence(waitingWords(text, replaced))}${replaced ? ' Another enrollment was started on the terminal, so this one ended: start again.' : ''}`];
  }
  // An agent's own reason for cancelling: said as it gave it.
  return [sentence(text)];
}

/** Reasons said the same whatever the session (a cancel by the service or an agent). */
const ENDINGS: Readonly<Record<string, string>> = {
  'consent withdrawn': 'Ended: the person’s consent was withdrawn.',
  'enrollee deleted': 'Ended: the person was deleted.',
  'enrollee deactivated': 'Ended: the person was deactivated. Reactivate them to enroll again.',
  'agent revoked': 'Ended: the desktop agent was revoked. Start again at another agent or at a terminal.',
  'cancelled by the agent': 'Cancelled at the desktop agent.',
};

/** The terminal said it enrolled parts whose templates never (or not yet) came. */
function waitingWords(text: string, closing: boolean): string {
  const what = parts(text.split(':')[0] ?? '');
  return `the terminal said it enrolled ${what}, but the template ${closing ? 'never arrived' : 'has not arrived yet'}`;
}

/** A part the terminal sent that the server refused: why, and what to do. */
function rejectedWords(part: string, why: string, place: SessionPlace): ReasonWords {
  const ownUser = /^PIN (\S+) on the terminal is its own user/.exec(why);
  if (ownUser) {
    const serial = place.serial ?? /devices\/([^/]+)\/users/.exec(why)?.[1] ?? null;
    const terminal = place.terminal ?? serial ?? 'the terminal';
    return [
      `${terminal} already has its own user with PIN ${ownUser[1]}, so it kept ${part} as that user’s. Open the terminal’s `,
      serial ? { href: `#/terminals/${encodeURIComponent(serial)}`, text: 'People on the terminal' } : 'People on the terminal',
      ' and Adopt that user as this person (or Remove it), then start again.',
    ];
  }
  const refused = `The terminal sent ${part}, but it was refused`;
  if (/not in this terminal’s areas/.test(why))
    return [
      `${refused}: this person is not in any of the terminal’s areas and it is not an enrollment station. Add one of its areas to the person, or enroll at an enrollment station.`,
    ];
  if (/^consent is required/.test(why)) return [`${refused}: this person’s consent is not on record. Record it, then start again.`];
  if (/deactivated/.test(why)) return [`${refused}: this person is deactivated. Reactivate them, then start again.`];
  if (/was deleted/.test(why)) return [`${refused}: this person was deleted.`];
  const most = /at most (\d+) fingers/.exec(why);
  if (most) return [`${refused}: a person may have at most ${most[1]} fingerprints. Choose one they already have to enroll again.`];
  if (/templates are not kept/.test(why)) return [`${refused}: this service does not keep this kind of biometric (ask your administrator).`];
  if (/bytes|empty|base64|too large/.test(why)) return [`${refused}: the template the terminal sent cannot be used. ${START_AGAIN}`];
  return [`${refused} (${why.trim().replace(/[.]$/, '')}). ${START_AGAIN}`];
}

/** What the terminal answered the enroll command of a part with (its return code's meaning, as the server words it). */
function commandWords(part: string, failure: string | null): string {
  if (failure === null) return `The terminal did not take the request for ${part} in time: check that it is online, then start again.`;
  const code = /^Return=(-?\d+) \((.*)\)$/.exec(failure.trim());
  if (!code) return `The terminal gave no answer about ${part}. ${START_AGAIN}`;
  const meaning = code[2] ?? '';
  switch (Number(code[1])) {
    case 4:
      return `The terminal could not enroll ${part}: bad quality, or the captures did not match. Start again and place it steadily.`;
    case 5:
      return `The terminal could not enroll ${part}: it already belongs to another user there. Check who that is on the terminal’s People on the terminal.`;
    case 6:
      return `Cancelled on the terminal while it was asking for ${part}.`;
    case 7:
    case -1005:
      return `The terminal was busy when asked for ${part}. Try again in a minute.`;
    default:
      return `The terminal could not enroll ${part}: ${meaning}. ${START_AGAIN}`;
  }
}
