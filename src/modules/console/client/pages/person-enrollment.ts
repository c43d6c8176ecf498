/** Enrolling a person: on a terminal of their areas (or an enrollment station), or at a desktop agent. */
import type { DeviceView } from '../../../devices';
import type { EnrolleeView } from '../../../enrollees';
import type { AgentView } from '../../../enrollment';
import { api, currentSession } from '../api';
import { announce, field, h, section, select } from '../dom';
import { onSubmit } from '../form-errors';
import { FINGERS } from '../format';

function fingerPicker(): { element: HTMLElement; chosen: () => number[] } {
  const boxes = FINGERS.map((label, index) => {
    const box = h('input', { type: 'checkbox', value: index, id: `finger-${index}`, checked: index === 6 });
    return { box, element: h('div', { class: 'check' }, box, h('label', { for: box.id }, label)) };
  });
  return {
    element: h('fieldset', { class: 'fingers' }, h('legend', {}, 'Fingers'), ...boxes.map((b) => b.element)),
    chosen: () => boxes.filter((b) => b.box.checked).map((b) => Number(b.box.value)),
  };
}

export function enrollSection(person: EnrolleeView, base: string, devices: DeviceView[], agents: AgentView[], redraw: () => Promise<void>): HTMLElement {
  if (person.status !== 'active') return section('Enroll fingerprints', h('p', {}, 'Reactivate this person first.'));
  // Only terminals that may take this person's fingerprints: those of their areas, and enrollment stations.
  const inScope = devices.filter((d) => d.enrollment_station || d.areas.some((a) => person.areas.includes(a)));
  const fingers = fingerPicker();
  // Terminals that declare them also enroll faces, palms and finger veins (ENROLL_BIO); agents only fingerprints.
  const what = select([
    ['fingerprint', 'Fingerprints'],
    ['face', 'Face'],
    ['palm', 'Both palms'],
    ['finger_vein', 'Finger veins'],
  ]);
  const where = select([
    ...inScope.map((d): [string, string] => [
      `device:${d.serial_number}`,
      `At terminal ${d.name ?? d.serial_number}${d.enrollment_station ? ' (enrollment station)' : ''}`,
    ]),
    ...agents.map((a): [string, string] => [`agent:${a.id}`, `At desktop agent ${a.name}`]),
  ]);
  // Without consent on a server that requires it, the server refuses: say so, and offer no start.
  const blocked = !person.consent && currentSession().consent_required;
  const form = h(
    'form',
    { class: 'stack' },
    blocked ? h('p', { class: 'error' }, 'Record consent first (above): until then enrollment cannot start.') : null,
    field('Where', where, 'A terminal asks the person to place each finger; a desktop agent uses its USB reader.'),
    field('What', what),
    fingers.element,
    h('button', { type: 'submit', class: 'primary', disabled: blocked }, 'Start enrollment'),
  );
  what.addEventListener('change', () => {
    fingers.element.hidden = what.value === 'face' || what.value === 'palm';
  });
  onSubmit(form, { device: where, agent: where, fingers: fingers.element, type: what }, async () => {
    const type = what.value;
    const chosen = type === 'face' ? [0] : type === 'palm' ? [0, 1] : fingers.chosen();
    if (chosen.length === 0) throw new Error('Choose at least one finger.');
    const [kind, target] = where.value.split(/:(.*)/s);
    if (kind === 'device')
      await api.post(`${base}remote-enrollment/`, type === 'fingerprint' ? { device: target, fingers: chosen } : { device: target, type, fingers: chosen });
    else if (type !== 'fingerprint') throw new Error('A desktop agent enrolls fingerprints only: choose a terminal for faces, palms or veins.');
    else await api.post('enrollment-sessions/', { enrollee: person.id, agent: target, fingers: chosen });
    await redraw();
    announce(kind === 'device' ? 'Enrollment started: the terminal asks the person for each finger now.' : 'Session started: the agent shows it in its list.');
  });
  if (inScope.length === 0 && agents.length === 0) {
    return section(
      'Enroll fingerprints',
      h(
        'p',
        {},
        devices.length === 0
          ? 'Approve a terminal or create a desktop agent first.'
          : `No terminal of this person’s areas (${person.areas.join(', ')}) is approved. Add one of its areas to a terminal, make a terminal an enrollment station, or create a desktop agent.`,
      ),
    );
  }
  return section('Enroll fingerprints', form);
}
