/**
 * The words of commands_failing: a terminal that takes its commands and never answers them, one
 * that refuses them, one that refuses deletes (retried, never failed: the people's data stays on
 * it), and commands the service failed itself.
 */

import { counted } from '../../platform/words';
import type { BiometricType } from '../../protocol/adms';
import { type CommandKind, describeReturnCode, type FailedKind, type FailingCommands, NO_RESULT } from '../commands';

/** A command kind as a sentence names it. */
const COMMAND_WORDS: Readonly<Record<CommandKind, string>> = {
  add_user: 'adding a person',
  delete_user: 'removing a person',
  update_template: 'sending a fingerprint',
  delete_template: 'deleting a fingerprint',
  ENROLL_FP: 'enrolling a finger',
  ENROLL_BIO: 'enrolling a biometric',
  check: 'a check-in',
  info: 'reading its information',
  reboot: 'a restart',
  set_time: 'setting its clock',
  query_users: 'listing its users',
  query_templates: 'listing its fingerprints',
  reupload_logs: 'sending punches again',
  clear_logs: 'deleting its punches',
  clear_data: 'deleting all its data',
  raw: 'a raw command',
};
/** A biometric kind as a sentence names it. */
const BIOMETRIC_WORDS: Readonly<Record<BiometricType, string>> = {
  fingerprint: 'fingerprint',
  face: 'face',
  visible_face: 'visible-light face',
  palm: 'palm',
  finger_vein: 'finger vein',
};
const TEMPLATE_VERBS: Partial<Record<CommandKind, string>> = { update_template: 'sending', delete_template: 'deleting' };

/** What the commands of a kind did: a template command names the kinds it carried (`sending a face or palm`). */
function commandWords(k: Pick<FailedKind, 'kind' | 'types'>): string {
  const verb = TEMPLATE_VERBS[k.kind];
  if (!verb || k.types.length === 0) return COMMAND_WORDS[k.kind] ?? k.kind;
  const names = k.types.map((t) => BIOMETRIC_WORDS[t]);
  const list = names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
  return `${verb} a ${list}`;
}

/** What the terminal answered to the newest failure of a kind: its return code in words, or the reason kept with it. */
export const answerOf = (k: FailedKind) => (k.returnCode === null ? (k.reason ?? NO_RESULT) : describeReturnCode(k.returnCode));
const unanswered = (k: FailedKind) => answerOf(k) === NO_RESULT;
/** Who failed it: the terminal (its answer, or none) or the service (never sent). */
export const failedBy = (k: FailedKind) => (k.notSent ? 'service' : 'terminal');

type Words = { message: string; fix: string };

/** The terminal's answers to the newest command of each kind, as a sentence says them. */
function answersTo(kinds: readonly FailedKind[]): string {
  return kinds.length === 1
    ? `Its answer to ${commandWords(kinds[0]!)}: ${answerOf(kinds[0]!)}`
    : `Its answers: ${kinds.map((k) => `to ${commandWords(k)}, ${answerOf(k)}`).join('; ')}`;
}

/**
 * What is wrong and what to do: its failed commands (failedWords), and the deletes it refuses,
 * which the service retries for as long as it takes (refusedDeletesWords): said apart, each with
 * its own count and since, and first those deletes alone when nothing else failed.
 */
export function failingWords(sn: string, f: FailingCommands, at: (ms: number) => string): Words {
  const kinds = [...f.kinds].sort((a, b) => a.since - b.since || a.firstCommand - b.firstCommand);
  if (f.retrying === 0) return failedWords(sn, kinds, f.count, at(f.since));
  const failedKinds = kinds.filter((k) => k.count > k.retrying);
  const failed = failedKinds.length === 0 ? null : failedWords(sn, failedKinds, f.count - f.retrying, at(Math.min(...failedKinds.map((k) => k.since))));
  const refused = refusedDeletesWords(
    kinds.filter((k) => k.retrying > 0),
    f.retrying,
    at,
  );
  if (!failed) return { message: `Terminal ${sn} refuses to delete people's data: ${refused.message}`, fix: refused.fix };
  return { message: `${failed.message} It refuses deletes too: ${refused.message}`, fix: `${failed.fix} ${refused.fix}` };
}

/**
 * Deletes it refuses (kinds with `retrying`): never failed, they are sent again until it takes
 * them, and until then the people's data stays on the terminal and their deletion proofs wait.
 */
function refusedDeletesWords(kinds: readonly FailedKind[], count: number, at: (ms: number) => string): Words {
  const one = count === 1;
  const since = at(Math.min(...kinds.map((k) => k.since)));
  return {
    message: `${counted(count, 'delete')} for it ${one ? 'has' : 'have'} been refused since ${since} and ${one ? 'is' : 'are'} sent again until it takes ${one ? 'it' : 'them'}. ${answersTo(kinds)}. ${
      one
        ? "Until then, what it deletes (a person's user record or fingerprints) stays on the terminal, and a deletion proof that waits for it stays pending."
        : "Until then, what they delete (people's user records or fingerprints) stays on the terminal, and the deletion proofs that wait for them stay pending."
    }`,
    fix: `Restart the terminal and do what its answer says (a storage error that a restart does not cure is its memory: have it serviced). ${one ? 'The delete is retried by itself' : 'The deletes are retried by themselves'}, at least hourly while the terminal is online: this clears when it takes ${one ? 'it' : 'them'}.`,
  };
}

/**
 * Its failed commands: a terminal that takes them and never answers them, or one that refuses
 * them (its answers named, kind by kind, the first to fail first: often the cause of the others,
 * as a person refused makes their fingerprints fail); commands the service failed itself, never
 * sent, are said as the service's, not as the terminal's answer.
 */
function failedWords(sn: string, kinds: readonly FailedKind[], count: number, since: string): Words {
  const failed = `${counted(count, 'command')} for it failed since ${since}`;
  const carried = `What ${count === 1 ? 'it' : 'they'} carried (people, fingerprints, deletes) may not be on it.`;
  const restart =
    'Restart the terminal. If it still does not answer, check its push firmware (an update may be needed) and that nothing between it and the server (a proxy or a firewall) drops what it posts back.';
  const queue = `Its failed commands are in its command queue (Terminals → ${sn}), each with the terminal's answer, and can be retried there once fixed; the hourly reconciliation sends failed fingerprints again by itself.`;
  const byTerminal = kinds.filter((k) => !k.notSent);
  const byService = kinds.filter((k) => k.notSent);
  const notSent = byService.map((k) => `${commandWords(k)} (${k.reason ?? 'no reason kept'})`).join('; ');
  if (byTerminal.length === 0) {
    return {
      message: `The service could not send commands to terminal ${sn}: ${failed}, never sent, and none of the same kind has worked there since: ${notSent}. ${carried}`,
      fix: `${serviceFix(byService, sn)} ${queue}`,
    };
  }
  const also =
    byService.length === 0 ? { message: '', fix: '' } : { message: ` The service could not send others: ${notSent}.`, fix: ` ${serviceFix(byService, sn)}` };
  if (byTerminal.every(unanswered)) {
    return {
      message: `Terminal ${sn} is online and takes its commands but does not answer them: ${failed} (${byTerminal.map((k) => commandWords(k)).join(', ')}), each with no result from the terminal even after its retries, and none has worked there since.${also.message} ${carried}`,
      fix: `${restart}${also.fix} ${queue}`,
    };
  }
  return {
    message: `Terminal ${sn} refuses its commands: ${failed}, and none of the same kind has worked there since. ${answersTo(byTerminal)}.${also.message} ${carried}`,
    fix: `Do what its answer says: make room on it, update its firmware if it does not support the command, or correct what it refuses (a parameter error is often a PIN, a name or a card it does not take).${byTerminal.some(unanswered) ? ` Some got no answer at all: ${restart}` : ''}${also.fix} ${queue}`,
  };
}

/** What to do about commands the service could not send, by the reasons it kept (render.ts). */
function serviceFix(kinds: readonly FailedKind[], sn: string): string {
  const reasons = kinds.map((k) => k.reason ?? '');
  const fixes: string[] = [];
  if (reasons.some((r) => r.includes('decrypt') && !r.includes('password')))
    fixes.push(
      'A fingerprint sealed with a key this service no longer holds cannot be sent: put that key back in the key ring (`npm run fpa:check` names it) or enrol the finger again.',
    );
  if (reasons.some((r) => r.includes('decrypt') && r.includes('password')))
    fixes.push(
      `A user record is not sent while the password the terminal holds for that user, sealed with a key this service no longer holds, cannot be opened (sent without it, the user would lose it): put that key back in the key ring (\`npm run fpa:check\` names it), or have the terminal report its users again (Terminals → ${sn} → List its users): the password it reports is sealed anew, and the record can then be retried.`,
    );
  if (reasons.some((r) => r.includes('PIN')))
    fixes.push(
      `Terminal ${sn} holds the PIN for someone else: open its users (Terminals → ${sn} → Users) and adopt the user it holds as that person or remove it, then retry.`,
    );
  if (fixes.length === 0) fixes.push('The reason is kept with each failed command in its command queue.');
  return fixes.join(' ');
}
