/** A person's consent to biometrics: as given (and its withdrawal), or recorded (again), and every consent of theirs so far. */
import type { EnrolleeView } from '../../../enrollees';
import type { ConsentRecordView } from '../../../enrollment';
import { api, can, currentSession } from '../api';
import { announce, badge, button, confirmAction, definitionList, field, h, input, section, table } from '../dom';
import { onSubmit } from '../form-errors';
import { count, dateTime } from '../format';

type Redraw = () => Promise<void>;

/**
 * Templates destroyed, of every kind: the server counts templates, not fingers (a face is one,
 * a palm five), so they are called what they are.
 */
const destroyedTemplates = (n: number) => count(n, 'biometric template', 'biometric templates');

export function consentSection(person: EnrolleeView, base: string, redraw: Redraw): HTMLElement {
  if (person.consent) return givenConsent(person.consent, base, redraw);
  const withdrawal = person.consent_withdrawn;
  const form = can('POST enrollees/{id}/consent/') ? recordConsentForm(base, redraw, withdrawal !== null) : null;
  if (withdrawal) return withdrawnConsent(withdrawal, form);
  if (!form) return section('Consent', h('p', {}, badge('Not recorded', 'warn')));
  // Whether enrollment waits for it is the server's setting (the console's session says which).
  const why = currentSession().consent_required ? ' Biometrics (fingerprints, faces, palms) can be enrolled only once consent is recorded.' : '';
  return section('Consent', h('p', {}, badge('Not recorded', 'warn'), why), form);
}

function givenConsent(c: NonNullable<EnrolleeView['consent']>, base: string, redraw: Redraw): HTMLElement {
  return section(
    'Consent',
    h('p', {}, badge('Given', 'ok')),
    definitionList([
      ['Consent text version', c.version],
      ['How', c.method],
      ['Recorded by', c.given_by],
      ['When', dateTime(c.given_at)],
    ]),
    can('DELETE enrollees/{id}/consent/') &&
      button('Withdraw consent', async () => {
        if (
          !(await confirmAction('Withdraw consent?', {
            action: 'Withdraw',
            detail: 'Every biometric template of this person (fingerprints, faces, palms) is destroyed here and deleted from every terminal.',
          }))
        )
          return;
        const r = await api.delete<{ templates_destroyed: number }>(`${base}consent/`);
        announce(`Consent withdrawn; ${destroyedTemplates(r.templates_destroyed)} destroyed and deleted from the terminals.`);
        await redraw();
      }),
  );
}

function recordConsentForm(base: string, redraw: Redraw, again: boolean): HTMLElement {
  const version = input({ required: true, autocomplete: 'off', placeholder: 'e.g. 2026-01' });
  const method = input({ required: true, autocomplete: 'off', value: 'signed form' });
  const form = h(
    'form',
    { class: 'inline-form' },
    field('Consent text version', version, 'The version of the text the person agreed to.'),
    field('How it was given', method),
    h('button', { type: 'submit', class: 'primary' }, again ? 'Record consent again' : 'Record consent'),
  );
  onSubmit(form, { version, method }, async () => {
    await api.post(`${base}consent/`, { version: version.value.trim(), method: method.value.trim() });
    await redraw();
    announce('Consent recorded.');
  });
  return form;
}

/** Consent withdrawn: when, by whom and what was deleted, then the form to record it again (for those who may). */
function withdrawnConsent(withdrawal: NonNullable<EnrolleeView['consent_withdrawn']>, form: HTMLElement | null): HTMLElement {
  const destroyed = withdrawal.templates_destroyed;
  return section(
    'Consent',
    h('p', {}, badge('Withdrawn', 'bad')),
    definitionList([
      ['Withdrawn', dateTime(withdrawal.withdrawn_at)],
      ['By', withdrawal.withdrawn_by],
      [
        'What was deleted',
        `${destroyed === null ? 'Every biometric template was' : destroyedTemplates(destroyed)} destroyed on the server; a delete was sent to every terminal that held them (see Biometrics below).`,
      ],
    ]),
    h('p', { class: 'muted' }, 'No biometric is taken until consent is recorded again.'),
    form,
  );
}

/** How a consent ended, in words: withdrawn (when, by whom), replaced by a newer one, or standing. */
function consentEnd(c: ConsentRecordView): HTMLElement | string {
  if (c.ended === null || c.withdrawn_at === null) return badge('Current', 'ok');
  if (c.ended === 'replaced') return `Replaced by a newer consent on ${dateTime(c.withdrawn_at)}`;
  const destroyed = c.templates_destroyed === null ? '' : `; ${destroyedTemplates(c.templates_destroyed)} destroyed`;
  return `Withdrawn on ${dateTime(c.withdrawn_at)} by ${c.withdrawn_by ?? 'someone'}${destroyed}`;
}

/**
 * Every consent of the person, oldest first (`enrollees/{id}/consents/`): what HR hands a person
 * who asks what they agreed to and when, where the Consent section shows only the current one.
 */
export function consentHistorySection(records: ConsentRecordView[]): HTMLElement {
  return section(
    'Consent history',
    table(
      ['Consent text version', 'How', 'Given', 'Ended'],
      records.map((c) => [c.version, c.method, `${dateTime(c.given_at)} by ${c.given_by}`, consentEnd(c)]),
      'No consent recorded yet.',
    ),
  );
}
