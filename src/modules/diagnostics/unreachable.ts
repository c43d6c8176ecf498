/**
 * The words of templates_incompatible and terminal_full, per kind: a fingerprint, a face, a palm
 * or a vein that cannot reach a terminal, named as people name it and counted by body part (a
 * face comes as several templates), with the reason that holds: the terminal does not read that
 * kind at all, or not its algorithm (the terminal refused it, or the service did not send it).
 */
import { counted } from '../../platform/words';
import type { BiometricType } from '../../protocol/adms';
import type { DeviceRow } from '../devices';
import { isBiometricType, kindAlgorithmOf, readsKind, type TemplatesNotReaching } from '../enrollment';

interface KindWords {
  one: string;
  many: string;
  /** "Those people cannot identify there by …". */
  by: string;
  /** The terminal's options that say it reads the kind. */
  options: string;
}

const KIND_WORDS: Readonly<Record<BiometricType, KindWords>> = {
  fingerprint: { one: 'fingerprint', many: 'fingerprints', by: 'fingerprint', options: 'FingerFunOn' },
  face: { one: 'near-infrared face', many: 'near-infrared faces', by: 'face', options: 'FaceFunOn, MultiBioDataSupport' },
  visible_face: { one: 'visible-light face', many: 'visible-light faces', by: 'face', options: 'FaceFunOn with VisilightFun, MultiBioDataSupport' },
  palm: { one: 'palm', many: 'palms', by: 'palm', options: 'PvFunOn, MultiBioDataSupport' },
  finger_vein: { one: 'finger vein', many: 'finger veins', by: 'finger vein', options: 'FvFunOn, MultiBioDataSupport' },
};

/** A kind the service no longer knows (a row of an older release) is said by its name. */
const wordsOf = (type: string): KindWords =>
  isBiometricType(type) ? KIND_WORDS[type] : { one: `${type} template`, many: `${type} templates`, by: type, options: 'MultiBioDataSupport' };

type Words = { message: string; fix: string; details: Record<string, unknown> };

/** The terminal does not read the kind at all (a warning: people identify there another way), or not its algorithm (an error). */
export function incompatibleWords(n: TemplatesNotReaching, d: DeviceRow): Words & { severity: 'error' | 'warning' } {
  const kind = wordsOf(n.type);
  const notRead = n.refusedByTerminal === 0 && isBiometricType(n.type) && !readsKind(d, n.type);
  const what = `${counted(n.parts, kind.one, kind.many)} of ${counted(n.people, 'person', 'people')} cannot be used by terminal ${d.serialNumber}`;
  const details = {
    kind: n.type,
    reason: notRead ? 'kind_not_supported' : 'algorithm',
    parts: n.parts,
    templates: n.templates,
    people: n.people,
    algorithms: n.algorithms,
    terminal_algorithm: isBiometricType(n.type) ? kindAlgorithmOf(d, n.type) : null,
    refused_by_terminal: n.refusedByTerminal,
    return_codes: n.returnCodes,
  };
  if (notRead) {
    const why =
      n.type === 'fingerprint' ? 'the terminal says it has no fingerprint reader' : `the terminal does not read ${kind.many} (it has not said it does)`;
    return {
      severity: 'warning',
      message: `${what}: ${why}. Those people cannot identify there by ${kind.by}.`,
      fix: `Nothing to fix if those people identify at this terminal another way (${n.type === 'fingerprint' ? 'a face' : 'a fingerprint'}, a card or a PIN). If they should use their ${kind.by} there and the terminal does read ${kind.many}, check that it says so in its options (${kind.options}): they are sent to it as soon as it does.`,
      details,
    };
  }
  return {
    severity: 'error',
    message: `${what}: ${whyNotTheirAlgorithm(n, d, kind)}. Those people cannot identify there by ${kind.by}.`,
    fix:
      n.type === 'fingerprint'
        ? `Enroll those people again at this terminal (remote enrollment) or at an agent using the terminal's algorithm. If the terminal reported its algorithm wrongly, set it in its settings.`
        : `Enroll those people's ${kind.many} again at this terminal (remote enrollment, or at its menu): one of its algorithm then goes to every terminal that takes that algorithm.`,
    details,
  };
}

/** No room on the terminal for them. */
export function fullWords(n: TemplatesNotReaching, d: DeviceRow): Words {
  const kind = wordsOf(n.type);
  return {
    message: `Terminal ${d.serialNumber} is full: ${counted(n.parts, kind.one, kind.many)} of ${counted(n.people, 'person', 'people')} could not be stored on it.`,
    fix: `Take people who do not use this terminal out of its areas, or delete old users on it (Terminals → People on the terminal). The service sends the missing ${kind.many} again by itself within the hour.`,
    details: { kind: n.type, parts: n.parts, templates: n.templates, people: n.people },
  };
}

/**
 * Why they cannot be used there, the terminal reading their kind: it refused them (its return
 * code; the versions may well look alike), and/or the service did not send them, their algorithm
 * not the terminal's.
 */
function whyNotTheirAlgorithm(n: TemplatesNotReaching, d: DeviceRow, kind: KindWords): string {
  const judged = n.templates - n.refusedByTerminal;
  const reported = isBiometricType(n.type) ? kindAlgorithmOf(d, n.type) : null;
  const takes = reported ?? 'another one';
  // Fingerprints keep the words they always had; another kind's algorithm is named with it.
  const algorithm = n.type === 'fingerprint' ? 'algorithm' : `${kind.one} algorithm`;
  if (n.refusedByTerminal === 0) return `they were made with ${algorithm} ${n.algorithms.join(', ')} and the terminal takes ${takes}`;
  const codes = `Return=${n.returnCodes.join(', ')}`;
  const though = reported === null ? '' : `, though it reports ${algorithm} ${reported}`;
  const theirs = n.algorithms.length === 1 ? `their algorithm, ${n.algorithms[0]}, is` : `their algorithms, ${n.algorithms.join(', ')}, are`;
  if (judged === 0) return `the terminal refused them (${codes}: ${theirs} not one it takes${though})`;
  const refused = n.type === 'fingerprint' ? `${n.refusedByTerminal} of them` : `${counted(n.refusedByTerminal, 'template')} of them`;
  const others = n.type === 'fingerprint' ? counted(judged, 'other was', 'others were') : counted(judged, 'other template was', 'other templates were');
  return `the terminal refused ${refused} (${codes}: not an algorithm it takes), and ${others} made with ${algorithm} ${n.judgedAlgorithms.join(', ')}, where the terminal takes ${takes}`;
}
