/** Terminals: the fleet at a glance (waiting ones first), and registering a terminal before it connects. */

import type { DeviceView } from '../../../devices';
import { api, can, currentSession, everyRow } from '../api';
import { areasPicker, noneChosen } from '../area-picker';
import { announce, badge, button, field, h, input, keepFresh, navigate, replace, section, table } from '../dom';
import { onSubmit } from '../form-errors';
import { ago } from '../format';

export function deviceBadge(d: DeviceView): HTMLElement {
  if (d.status === 'pending_approval') return badge('Waiting for approval', 'warn');
  if (d.status === 'disabled') return badge('Disabled', 'muted');
  return d.online ? badge('Online', 'ok') : badge('Offline', 'bad');
}

const ORDER: Record<string, number> = { pending_approval: 0, approved: 1, disabled: 2 };

export async function terminalsPage(main: HTMLElement): Promise<() => void> {
  await drawTerminalsPage(main);
  // Terminals come online, register and punch on their own: the page follows.
  return keepFresh(() => drawTerminalsPage(main), 15_000);
}

async function drawTerminalsPage(main: HTMLElement): Promise<void> {
  // Every terminal, page after page: a fleet of 1,000 or more does not fit in one page.
  const devices = (await everyRow<DeviceView>('devices/')).sort(
    (a, b) => (ORDER[a.status] ?? 9) - (ORDER[b.status] ?? 9) || a.serial_number.localeCompare(b.serial_number),
  );
  const serial = input({ required: true, pattern: '[A-Za-z0-9_.\\-]{1,64}', autocomplete: 'off' });
  const name = input({ autocomplete: 'off' });
  const areas = await areasPicker('Areas', [], `People in these areas are sent to it; none chosen: ${noneChosen('default')}.`);
  const form = h(
    'form',
    { class: 'inline-form' },
    field('Serial number', serial, 'As printed on the terminal (Menu › System info).'),
    field('Name', name, 'Where it hangs, e.g. “Front door”.'),
    areas.element,
    h('button', { type: 'submit', class: 'primary' }, 'Register'),
  );
  onSubmit(form, { serial_number: serial, name, areas: areas.control }, async () => {
    const body: Record<string, unknown> = { serial_number: serial.value.trim() };
    if (name.value.trim()) body.name = name.value.trim();
    const areaList = areas.value();
    if (areaList.length > 0) body.areas = areaList;
    await api.post('devices/', body);
    announce(`Terminal ${body.serial_number} registered and approved: it is served as soon as it connects.`);
    navigate(`#/terminals/${encodeURIComponent(String(body.serial_number))}`);
  });
  const adms = `${location.protocol}//${location.host}${currentSession().adms_path}`;
  replace(
    main,
    h('h1', {}, 'Terminals'),
    h(
      'p',
      { class: 'muted' },
      `Point a terminal’s cloud server (ADMS) setting at ${location.hostname}, port ${location.port || (location.protocol === 'https:' ? '443' : '80')} (${adms}). A new terminal appears here, waiting for approval.`,
    ),
    section(
      'All terminals',
      table(
        ['Terminal', 'Status', 'Areas', 'Last heard', 'People', 'Fingerprints'],
        devices.map((d) => [
          h('a', { href: `#/terminals/${encodeURIComponent(d.serial_number)}` }, d.name ? `${d.name} (${d.serial_number})` : d.serial_number),
          deviceBadge(d),
          d.areas.join(', '),
          ago(d.last_seen_at),
          d.user_count ?? '—',
          d.fingerprint_count ?? '—',
        ]),
        'No terminal has connected yet.',
      ),
      button('Refresh', () => drawTerminalsPage(main)),
    ),
    can('POST devices/')
      ? section(
          'Register a terminal before it connects',
          h('p', {}, 'A registered terminal is approved already: when it first connects it is served at once.'),
          form,
        )
      : null,
  );
}
