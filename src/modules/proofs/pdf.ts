/**
 * The deletion proof as a readable A4 PDF: what was deleted, where and when, each terminal's
 * confirmation, and the signature with how to verify it. The JSON document stays the proof; the
 * PDF prints it for people (and carries the same signature).
 */
import PDFDocument from 'pdfkit';
import { describeReturnCode } from '../commands';
import type { DeletionProof } from './model';

type Proof = typeof DeletionProof.static;

const REASONS: Record<Proof['reason'], string> = {
  consent_withdrawn: 'Biometric consent withdrawn',
  deleted: 'Person deleted from the attendance service',
};
const STATUSES: Record<Proof['terminals'][number]['status'], string> = {
  confirmed: 'Confirmed',
  pending: 'Waiting for the terminal',
  unreachable: 'Unreachable',
};

/** `2026-03-02T08:00:00.000Z` → `2026-03-02 08:00:00 UTC`. */
const when = (at: string | null) => (at ? `${at.slice(0, 19).replace('T', ' ')} UTC` : '—');

export async function proofPdf(proof: Proof, options: { keyUrl: string }): Promise<Uint8Array> {
  const doc = new PDFDocument({
    size: 'A4',
    margin: 50,
    info: { Title: `Proof of deletion — ${proof.employee ?? proof.enrollee}`, Author: 'Fingerprint Attendance' },
  });
  const parts: Buffer[] = [];
  doc.on('data', (b: Buffer) => parts.push(b));
  const done = new Promise<void>((resolve) => doc.on('end', () => resolve()));

  doc.fontSize(18).text('Proof of deletion of biometric data');
  doc
    .moveDown(0.3)
    .fontSize(10)
    .fillColor('#555')
    .text(`Issued ${when(proof.issued_at)}. All times are UTC.`)
    .fillColor('black');
  doc
    .moveDown()
    .fontSize(12)
    .text(
      proof.complete
        ? `Complete: every terminal confirmed the deletion (${when(proof.completed_at)}).`
        : 'Not complete yet: some terminals have not confirmed.',
      {
        underline: true,
      },
    );

  whoseData(doc, proof);
  terminals(doc, proof);
  signature(doc, proof, options.keyUrl);
  doc.end();
  await done;
  return new Uint8Array(Buffer.concat(parts));
}

function whoseData(doc: PDFKit.PDFDocument, proof: Proof): void {
  heading(doc, 'Whose data');
  line(doc, 'Employee', proof.employee ?? 'no longer kept (retention)');
  line(doc, 'Enrollee id', proof.enrollee);
  line(doc, 'Why', REASONS[proof.reason]);
  line(doc, 'First asked on', when(proof.requested_at));
  if (proof.requests.length > 1) {
    const asked = proof.requests.map((r) => `${REASONS[r.reason]} on ${when(r.at)} (${r.templates_destroyed} destroyed)`);
    line(doc, 'Requests', asked.join('; '));
  }

  heading(doc, 'On the server');
  line(doc, 'Templates destroyed', String(proof.server.templates_destroyed));
  line(doc, 'Destroyed on', when(proof.server.at));
}

function terminals(doc: PDFKit.PDFDocument, proof: Proof): void {
  heading(doc, 'On the terminals');
  doc
    .fontSize(9)
    .fillColor('#555')
    .text(
      'Every terminal that held this person’s data, or was about to receive it, was sent a delete. Confirmed: the terminal answered it. Unreachable: the terminal has not been heard from for a long time (removed, or switched off).',
    )
    .fillColor('black')
    .moveDown(0.4);
  if (proof.terminals.length === 0) doc.fontSize(10).text('No terminal held this person’s data.');
  for (const t of proof.terminals) {
    doc.fontSize(11).text(`Terminal ${t.serial_number}: ${STATUSES[t.status]}`, { continued: false });
    const c = t.command;
    const detail = c
      ? `Delete command #${c.id} (${c.kind}), ${c.status}${c.return_code === null ? '' : `, the terminal answered ${describeReturnCode(c.return_code)}`}${c.at ? ` on ${when(c.at)}` : ''}.`
      : 'No delete command recorded.';
    doc
      .fontSize(9)
      .fillColor('#333')
      .text(`${t.confirmed_at ? `Confirmed ${when(t.confirmed_at)}. ` : ''}${detail}${t.last_heard_at ? ` Last heard from ${when(t.last_heard_at)}.` : ''}`, {
        indent: 12,
      });
    for (const r of t.data_returned) doc.text(returnedText(r), { indent: 12 });
    doc.fillColor('black');
    doc.moveDown(0.3);
  }
}

/** A person's data a terminal uploaded again after the request, in words. */
function returnedText(r: Proof['terminals'][number]['data_returned'][number]): string {
  const part = r.type === 'fingerprint' ? `finger ${r.index}` : `${r.type.replaceAll('_', ' ')} ${r.index}`;
  const before = r.was_confirmed_at ? ` after it had confirmed its delete on ${when(r.was_confirmed_at)}` : '';
  return `On ${when(r.at)} the terminal uploaded this person's ${part} again${before}: the service refused it and sent delete command #${r.command}; the terminal counts as confirmed only once it has answered that delete.`;
}

function signature(doc: PDFKit.PDFDocument, proof: Proof, keyUrl: string): void {
  heading(doc, 'Signature');
  doc
    .fontSize(9)
    .text(
      'This proof is signed by the attendance service (JWS, ES256). The JSON version of this document carries the same signature; its payload is the document itself.',
    );
  doc.moveDown(0.3).font('Courier').fontSize(6.5).text(proof.signature, { lineBreak: true }).font('Helvetica');
  heading(doc, 'How to verify it');
  doc
    .fontSize(9)
    .list(
      [
        `Fetch the service's public keys: ${keyUrl} (a JSON Web Key Set; keep a copy, it can be used offline).`,
        'Verify the signature above as a compact JWS with that key set, for example with the jose library: compactVerify(signature, createLocalJWKSet(keys)).',
        'The verified payload is this proof (without the signature): compare it with what this page shows.',
      ],
      { bulletRadius: 1.5 },
    );
}

function heading(doc: PDFKit.PDFDocument, text: string): void {
  doc.moveDown().fontSize(13).text(text).moveDown(0.2);
}

function line(doc: PDFKit.PDFDocument, label: string, value: string): void {
  doc.fontSize(10).text(`${label}: `, { continued: true }).text(value);
}
