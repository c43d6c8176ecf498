/**
 * The proof of deletion of a person whose consent was withdrawn or who was deleted: where it
 * stands (which terminals confirmed), and the button that downloads it, as the signed JSON and as
 * a readable PDF. A deleted person's page shows this, and their consent history.
 */
import type { ConsentRecordView } from '../../../enrollment';
import type { DeletionProofView } from '../../../proofs';
import { ApiError, api, can, everyRow } from '../api';
import { badge, button, h, headingWithStatus, replace, section, table } from '../dom';
import { count, dateTime } from '../format';
import { consentHistorySection } from './person-consent';

const TONE = { confirmed: 'ok', pending: 'info', unreachable: 'bad' } as const;
const STATUS = { confirmed: 'Confirmed', pending: 'Waiting for the terminal', unreachable: 'Unreachable' } as const;

/** The person's proof, or null when no deletion was asked for them. */
export async function loadProof(enrollee: string): Promise<DeletionProofView | null> {
  // Proofs are for those who answer a person's request (hr and up): other roles do not ask.
  if (!can('GET enrollees/{id}/deletion-proof/')) return null;
  try {
    return await api.get<DeletionProofView>(`enrollees/${encodeURIComponent(enrollee)}/deletion-proof/`);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

/** Saves a response as a file (the browser's download). */
async function download(path: string, filename: string): Promise<void> {
  const response = await api.raw(path);
  const url = URL.createObjectURL(await response.blob());
  const link = h('a', { href: url, download: filename, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function proofSection(proof: DeletionProofView): HTMLElement {
  const base = `enrollees/${encodeURIComponent(proof.enrollee)}/deletion-proof`;
  const waiting = proof.terminals.filter((t) => t.status !== 'confirmed').length;
  return section(
    'Proof of deletion',
    h(
      'p',
      {},
      proof.complete
        ? badge('Complete', 'ok')
        : badge(`${count(waiting, 'terminal', 'terminals')} still to confirm`, proof.terminals.some((t) => t.status === 'unreachable') ? 'bad' : 'info'),
      ` ${count(proof.server.templates_destroyed, 'template', 'templates')} destroyed on the server on ${dateTime(proof.server.at)}.`,
    ),
    table(
      ['Terminal', 'Status', 'Confirmed or last heard from', 'Delete command'],
      proof.terminals.map((t) => [
        h('a', { href: `#/terminals/${encodeURIComponent(t.serial_number)}` }, t.serial_number),
        badge(STATUS[t.status], TONE[t.status]),
        t.confirmed_at ? dateTime(t.confirmed_at) : t.last_heard_at ? `Last heard from ${dateTime(t.last_heard_at)}` : '—',
        h(
          'span',
          {},
          t.command ? `#${t.command.id} ${t.command.kind}${t.command.return_code === null ? '' : `, Return=${t.command.return_code}`}` : '—',
          // Their data the terminal uploaded again after the request: what the proof waits for again.
          t.data_returned.map((r) =>
            h('div', { class: 'muted' }, `Uploaded their ${r.type.replaceAll('_', ' ')} ${r.index} again on ${dateTime(r.at)}: refused, delete #${r.command}`),
          ),
        ),
      ]),
      'No terminal held their data.',
    ),
    h(
      'div',
      { class: 'actions proof-downloads' },
      button('Proof of deletion (JSON)', () => download(`${base}/`, `deletion-proof-${proof.employee ?? proof.enrollee}.json`)),
      button('Proof of deletion (PDF)', () => download(`${base}.pdf`, `deletion-proof-${proof.employee ?? proof.enrollee}.pdf`)),
    ),
    h(
      'p',
      { class: 'muted' },
      'The JSON is signed by this service: anyone can check it with the public key at /.well-known/fpa-proof-key.json. The PDF shows the same proof, with its signature.',
    ),
  );
}

/** The page of a deleted person (the API no longer shows them): their proof, if any; false when none. */
export async function deletedPersonPage(main: HTMLElement, enrollee: string): Promise<boolean> {
  const proof = await loadProof(enrollee);
  if (!proof) return false;
  const consents = can('GET enrollees/{id}/consents/')
    ? await everyRow<ConsentRecordView>(`enrollees/${encodeURIComponent(enrollee)}/consents/`)
    : ([] as ConsentRecordView[]);
  replace(
    main,
    h('p', { class: 'crumbs' }, h('a', { href: '#/people' }, 'People'), ' › ', proof.employee ?? 'Deleted person'),
    headingWithStatus(proof.employee ? `Employee ${proof.employee}` : 'Deleted person', badge('Deleted', 'muted')),
    h(
      'p',
      {},
      'This person was deleted: their name, PIN and card are no longer shown here. Their fingerprints were destroyed and deleted from the terminals. An entry of theirs in the employee directory keeps their name until it is erased (People › Inactive employees).',
    ),
    proofSection(proof),
    can('GET enrollees/{id}/consents/') && consentHistorySection(consents),
  );
  return true;
}
