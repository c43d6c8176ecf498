/**
 * One terminal: approve, disable, edit, the command console, its command queue, its users (adopt
 * or remove), how far it agrees with the server, recent events, communication keys, removal; what
 * needs attention there (its diagnostics, with their fix).
 */

import type { CommandView } from '../../../commands';
import type { DeviceDetailView, DeviceKeyView } from '../../../devices';
import type { DiagnosticView } from '../../../diagnostics';
import type { TerminalUserView } from '../../../fleet';
import { ApiError, api, can, type List, ofEveryArea, outsideMine } from '../api';
import { areasPicker } from '../area-picker';
import { announce, badge, button, confirmAction, definitionList, field, h, headingWithStatus, input, navigate, replace, section, table } from '../dom';
import { FieldError, onSubmit } from '../form-errors';
import { ago, count, dateTime, words } from '../format';
import { timeZoneInput } from '../time-zones';
import { completenessSection } from './completeness';
import { diagnosticItem } from './diagnostics';
import { commandConsole, commandList, waitingCommands } from './terminal-commands';
import { keysSection } from './terminal-keys';
import { usbImportSection } from './terminal-usb-import';
import { allTerminalUsers, usersSection } from './terminal-users';
import { deviceBadge } from './terminals';

type Redraw = () => Promise<void>;

export async function terminalPage(main: HTMLElement, params: string[]): Promise<undefined> {
  const serial = params[0] ?? '';
  const base = `devices/${encodeURIComponent(serial)}/`;
  const redraw = () => terminalPage(main, params).then(() => undefined);
  const [device, waiting, commands, users, keys, diagnostics] = await loadTerminal(base);
  const attention = diagnostics.results.filter((d) => d.device === serial);
  const title = device.name ? `${device.name} (${device.serial_number})` : device.serial_number;
  const approveForm = await approvalForm(device, title, base, redraw);
  const actions = actionButtons(device, title, base, redraw);

  replace(
    main,
    h('p', { class: 'crumbs' }, h('a', { href: '#/terminals' }, 'Terminals'), ' › ', device.serial_number),
    headingWithStatus(title, deviceBadge(device)),
    approveForm ? section(device.status === 'pending_approval' ? 'Approve this terminal' : 'Enable this terminal again', approveForm) : null,
    actions,
    attention.length > 0 ? section('Needs attention', h('ul', { class: 'attention' }, ...attention.map(diagnosticItem))) : null,
    h('div', { class: 'columns' }, aboutSection(device), syncSection(device, users.length, base, redraw)),
    device.status === 'approved' ? completenessSection(device.serial_number) : null,
    usbImportSection(device),
    can('PATCH devices/{sn}/') && (await editSection(device, base, redraw, approveForm !== null)),
    can('POST devices/{sn}/commands/') &&
      (device.status === 'approved' ? commandConsole(device, base, redraw) : section('Send a command', h('p', { class: 'muted' }, untilApproved(device)))),
    commandList(waiting, device.pending_commands, commands, base, redraw),
    usersSection(users, base, redraw),
    section(
      'Recent events',
      table(
        ['When', 'What'],
        device.recent_events.map((e) => [dateTime(e.at), e.message]),
        'Nothing recorded yet.',
      ),
    ),
    keys && keysSection(keys.results, device.pinned_address, base, redraw),
  );
  return undefined;
}

function loadTerminal(base: string) {
  return Promise.all([
    api.get<DeviceDetailView>(base),
    // Waiting commands first, a page at a time (deletes a terminal owes among them), then the newest.
    waitingCommands(base),
    api.get<List<CommandView>>(`${base}commands/?order=newest&limit=50`),
    allTerminalUsers(base).catch(() => [] as TerminalUserView[]),
    // Keys are for those who run terminals: other roles do not ask.
    can('GET devices/{sn}/keys/')
      ? api.get<List<DeviceKeyView>>(`${base}keys/`).catch(() => ({ results: [], next_cursor: null }) as List<DeviceKeyView>)
      : null,
    can('GET diagnostics/')
      ? api.get<{ results: DiagnosticView[] }>('diagnostics/').catch(() => ({ results: [] as DiagnosticView[] }))
      : { results: [] as DiagnosticView[] },
  ]);
}

/** A terminal waiting for approval (or disabled): the form that approves it (or enables it again); null otherwise. */
async function approvalForm(device: DeviceDetailView, title: string, base: string, redraw: Redraw): Promise<HTMLElement | null> {
  if (!((device.status === 'pending_approval' || device.status === 'disabled') && can('POST devices/{sn}/approve/'))) return null;
  // Approval chooses the areas whose people the terminal is sent: none ticked for a new terminal
  // (the area it registered in, `default`, ticked for it was easy to miss: ticking North approved
  // it into North and default); a disabled one's, chosen when it was approved, stay ticked.
  const waiting = device.status === 'pending_approval';
  const areas = await areasPicker('Areas of this terminal', waiting ? [] : device.areas, 'Choose at least one: it is sent the people of these areas.');
  return onSubmit(
    h(
      'form',
      { class: 'inline-form approve' },
      areas.element,
      h('button', { type: 'submit', class: 'primary' }, device.status === 'pending_approval' ? 'Approve' : 'Enable again'),
    ),
    { areas: areas.control },
    async () => {
      const chosen = areas.value();
      if (chosen.length === 0) throw new FieldError('areas', 'Choose at least one area for this terminal.');
      await api.post(`${base}approve/`, { areas: chosen });
      await redraw();
      announce(`${title} approved: the people of its areas are being sent to it.`);
    },
  );
}

/** Disable, confirm a new address, remove: each where the terminal's state and the caller's role allow it. */
function actionButtons(device: DeviceDetailView, title: string, base: string, redraw: Redraw): HTMLElement {
  const actions = h('div', { class: 'actions' });
  // One also in another area is disabled or removed by an administrator of those areas (403).
  const outside = outsideMine(device.areas);
  if (outside.length > 0 && (can('POST devices/{sn}/disable/') || can('DELETE devices/{sn}/')))
    actions.append(h('span', { class: 'muted' }, `Also in ${outside.join(', ')}: disabled or removed by an administrator of those areas.`));
  if (device.status === 'approved' && can('POST devices/{sn}/disable/') && outside.length === 0) {
    actions.append(
      button('Disable', async () => {
        if (
          !(await confirmAction(`Disable ${title}?`, {
            action: 'Disable',
            detail: 'Its punches will be refused (it keeps them and sends them once enabled again).',
          }))
        )
          return;
        await api.post(`${base}disable/`);
        await redraw();
        announce(`${title} disabled.`);
      }),
    );
  }
  if (device.unconfirmed_address && can('POST devices/{sn}/confirm-address/'))
    actions.append(confirmAddressButton(device, device.unconfirmed_address, title, base, redraw));
  if (can('DELETE devices/{sn}/') && outside.length === 0) {
    actions.append(
      button('Remove', async () => {
        if (
          !(await confirmAction(`Remove ${title}?`, {
            action: 'Remove terminal',
            typed: device.serial_number,
            detail: 'Its unfinished commands are cancelled, except the deletes it owes: they are sent if it comes back. Its punches stay.',
          }))
        )
          return;
        await api.delete(base);
        announce(`${title} removed.`);
        navigate('#/terminals');
      }),
    );
  }
  return actions;
}

function confirmAddressButton(device: DeviceDetailView, address: string, title: string, base: string, redraw: Redraw): HTMLElement {
  return button(`Confirm address ${address}`, async () => {
    if (
      !(await confirmAction(`Trust ${title} at ${address}?`, {
        action: 'Confirm address',
        detail: `Requests for this serial came from ${address}, not from ${device.pinned_address ?? 'its address'}. Confirm only if the terminal really moved there: it will be sent people's records and templates there, and no longer at its old address.`,
      }))
    )
      return;
    try {
      // The address shown, the one checked: another request since may have replaced it (409).
      await api.post(`${base}confirm-address/`, { address });
    } catch (error) {
      if (!(error instanceof ApiError && error.code === 'conflict')) throw error;
      await redraw();
      const now = error.details.unconfirmed_address;
      announce(
        typeof now === 'string'
          ? `Not confirmed: requests for ${title} now come from ${now}, not ${address}. Check that address before you confirm it.`
          : `Not confirmed: ${title} has no unconfirmed address any more.`,
        'bad',
      );
      return;
    }
    await redraw();
    announce(`${title} is now trusted at ${address}.`);
  });
}

function aboutSection(device: DeviceDetailView): HTMLElement {
  return section(
    'About',
    definitionList([
      ['Status', words(device.status)],
      ['Last heard', `${ago(device.last_seen_at)} (${dateTime(device.last_seen_at)})`],
      ['Areas', device.areas.join(', ')],
      ['Time zone', device.time_zone],
      ['Enrollment station', device.enrollment_station ? 'Yes: accepts fingerprints of anyone' : 'No'],
      ['Firmware', device.firmware],
      ['Fingerprint algorithm', device.algorithm_version],
      // Three addresses that may all differ: each says which it is (behind NAT the reported one is private).
      ['Address seen', addressFact(device.ip_address, 'Where its requests come from, as the server sees them')],
      ['Reported address', addressFact(device.reported_address, 'What the terminal says its own address is; behind NAT it differs')],
      [
        'Trusted address',
        addressFact(device.pinned_address, 'Under the default address trust, people’s records and templates go only to requests from here (or with its key)'),
      ],
      [
        'Unconfirmed address',
        device.unconfirmed_address
          ? h('span', {}, badge(device.unconfirmed_address, 'bad'), ` since ${dateTime(device.unconfirmed_address_at)}: nothing is sent there until confirmed`)
          : 'None',
      ],
      ['Clock', device.clock_drifting ? badge(`Off by ${device.clock_drift_seconds ?? '?'} s`, 'bad') : 'In time'],
      ['Commands waiting', String(device.pending_commands)],
    ]),
  );
}

/** An address with a line under it saying which address it is. */
function addressFact(address: string | null, hint: string): HTMLElement {
  return h('span', {}, address ?? '—', h('span', { class: 'hint fact-hint' }, hint));
}

/**
 * Why a terminal that is not approved offers no commands: until it is (again), its polls get
 * the deletes it owes and nothing else, so anything sent now would only wait.
 */
function untilApproved(device: DeviceDetailView): string {
  const when = device.status === 'pending_approval' ? 'once it is approved' : 'once it is enabled again';
  return `Commands and resyncs can be sent ${when}. Until then it is sent only the deletes it owes.`;
}

/** One count of the agreement: the terminal's own figure against what the service expects. */
function countLine(c: { expected: number; reported: number | null }): string {
  return c.reported === null || c.reported === undefined
    ? `Not reported yet; ${c.expected} expected`
    : `${c.reported} by the terminal's last count, ${c.expected} expected`;
}

function syncSection(device: DeviceDetailView, listed: number, base: string, redraw: Redraw): HTMLElement {
  const { users, fingerprints, faces, palms, finger_veins, in_sync } = device.sync_check;
  // The agreement compares the count the terminal last reported; the list below is what it and
  // the service said it holds, which may be newer or older. Both are shown when they differ, so
  // that "Differs" never sits beside two equal figures.
  const listedBelow = listed > 0 && listed !== users.reported ? `; ${listed} listed below` : '';
  const state = in_sync === null ? badge('Not reported yet', 'muted') : in_sync ? badge('In agreement', 'ok') : badge('Differs', 'bad');
  return section(
    'Agreement with the server',
    h('p', {}, state),
    definitionList([
      [
        'People',
        users.reported === null || users.reported === undefined
          ? `Not reported yet; ${users.expected} expected${listedBelow}`
          : `${users.reported} by the terminal's last count, ${users.expected} expected${listedBelow}`,
      ],
      [
        'Fingerprints',
        // Users whose fingers the terminal never said (its own, from before the rollout): counted by it only.
        `${countLine(fingerprints)}${fingerprints.unknown_users > 0 ? `, besides the fingers of ${count(fingerprints.unknown_users, 'user', 'users')} it has not said` : ''}`,
      ],
      // The other kinds where the terminal has or should have some: each against its own count.
      ...(
        [
          ['Faces', faces],
          ['Palms', palms],
          ['Finger veins', finger_veins],
        ] as const
      )
        .filter(([, c]) => c.expected > 0 || (c.reported ?? 0) > 0)
        .map(([label, c]): [string, string] => [label, countLine(c)]),
    ]),
    can('POST devices/{sn}/resync/') && device.status !== 'approved' && h('p', { class: 'muted' }, untilApproved(device)),
    can('POST devices/{sn}/resync/') &&
      device.status === 'approved' &&
      h(
        'div',
        { class: 'actions' },
        button('Resync', async () => {
          const r = await api.post<{ queued: number }>(`${base}resync/`, { full: false });
          await redraw();
          announce(`${count(r.queued, 'command', 'commands')} queued to bring the terminal in line.`);
        }),
        button('Full resync', async () => {
          if (
            !(await confirmAction('Full resync?', {
              action: 'Full resync',
              typed: device.serial_number,
              detail: 'Also removes from the terminal every user outside its areas, its own users included.',
            }))
          )
            return;
          const r = await api.post<{ queued: number }>(`${base}resync/`, { full: true });
          await redraw();
          announce(`${count(r.queued, 'command', 'commands')} queued.`);
        }),
      ),
  );
}

async function editSection(device: DeviceDetailView, base: string, redraw: Redraw, approving: boolean): Promise<HTMLElement> {
  const name = input({ value: device.name ?? '', autocomplete: 'off' });
  // While the approval form above chooses the areas, a second picker here would disagree with it.
  const areas = approving ? null : await areasPicker('Areas', device.areas, 'It is sent the people of these areas.');
  // How a shared terminal's punches are read is every area's concern: a caller limited to some of
  // its areas sees the zone and leaves it alone (403 from the API).
  const zoneFixed = outsideMine(device.areas).length > 0;
  const zone = timeZoneInput({ value: device.time_zone, readonly: zoneFixed });
  // A station takes anyone's fingerprints, every area's: turned on or off only by a caller of
  // every area (403 to one limited to areas), who is told so beside the box.
  const mayStation = ofEveryArea();
  const station = h('input', { type: 'checkbox', checked: device.enrollment_station, disabled: !mayStation });
  if (!station.id) station.id = `station-${device.serial_number}`;
  const stationHint = mayStation
    ? null
    : h(
        'small',
        { id: `${station.id}-hint`, class: 'hint' },
        'Only an administrator of every area turns this on or off: a station takes fingerprints of anyone, of every area.',
      );
  if (stationHint) station.setAttribute('aria-describedby', stationHint.id);
  const form = h(
    'form',
    { class: 'inline-form' },
    field('Name', name),
    areas?.element,
    field(
      'Time zone',
      zone,
      zoneFixed ? `Also in ${outsideMine(device.areas).join(', ')}: changed by an administrator of every area it serves.` : 'IANA name, e.g. Europe/Berlin.',
    ),
    h('div', { class: 'field check' }, station, h('label', { for: station.id }, 'Enrollment station (accepts anyone’s fingerprints)'), stationHint),
    h('button', { type: 'submit' }, 'Save'),
  );
  onSubmit(form, { name, ...(areas ? { areas: areas.control } : {}), time_zone: zone, enrollment_station: station }, async () => {
    const changes = {
      name: name.value.trim() || null,
      ...(zoneFixed ? {} : { time_zone: zone.value.trim() || null }),
      ...(mayStation ? { enrollment_station: station.checked } : {}),
    };
    await api.patch(base, areas ? { ...changes, areas: areas.value() } : changes);
    await redraw();
    announce('Saved.');
  });
  return section('Settings', form);
}
