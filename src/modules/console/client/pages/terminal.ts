/**
 * One terminal: approve, disable, edit, the command console, its command queue, its users (adopt
 * or remove), how far it agrees with the server, recent events, communication keys, removal; what
 * needs attention there (its diagnostics, with their fix).
 */

import type { CommandView } from '../../../commands';
import type { DeviceDetailView, DeviceKeyView } from '../../../devices';
import type { DiagnosticView } from '../../../diagnostics';
import type { TerminalUserView } from '../../../fleet';
import { api, can, type List, query } from '../api';
import { areasPicker } from '../area-picker';
import { announce, badge, button, confirmAction, definitionList, field, h, input, navigate, replace, section, select, showOnce, table } from '../dom';
import { onSubmit } from '../form-errors';
import { ago, commandKind, count, dateTime, words } from '../format';
import { completenessSection } from './completeness';
import { diagnosticItem } from './diagnostics';
import { deviceBadge } from './terminals';

const commandTone = (status: string) =>
  status === 'succeeded' ? 'ok' : status === 'failed' || status === 'expired' ? 'bad' : status === 'cancelled' ? 'muted' : 'info';

export async function terminalPage(main: HTMLElement, params: string[]): Promise<undefined> {
  const serial = params[0] ?? '';
  const base = `devices/${encodeURIComponent(serial)}/`;
  const redraw = () => terminalPage(main, params).then(() => undefined);
  const [device, waiting, sent, commands, users, keys, diagnostics] = await Promise.all([
    api.get<DeviceDetailView>(base),
    // Waiting commands first, all of them (deletes a terminal owes among them), then the newest.
    api.get<List<CommandView>>(`${base}commands/?status=pending&limit=1000`),
    api.get<List<CommandView>>(`${base}commands/?status=sent&limit=1000`),
    api.get<List<CommandView>>(`${base}commands/?order=newest&limit=50`),
    api.get<List<TerminalUserView>>(`${base}users/`).catch(() => ({ results: [], next_cursor: null }) as List<TerminalUserView>),
    // Keys are for those who run terminals: other roles do not ask.
    can('GET devices/{sn}/keys/')
      ? api.get<List<DeviceKeyView>>(`${base}keys/`).catch(() => ({ results: [], next_cursor: null }) as List<DeviceKeyView>)
      : null,
    can('GET diagnostics/')
      ? api.get<{ results: DiagnosticView[] }>('diagnostics/').catch(() => ({ results: [] as DiagnosticView[] }))
      : { results: [] as DiagnosticView[] },
  ]);
  const attention = diagnostics.results.filter((d) => d.device === serial);
  const title = device.name ? `${device.name} (${device.serial_number})` : device.serial_number;

  const actions = h('div', { class: 'actions' });
  let approveForm: HTMLElement | null = null;
  if ((device.status === 'pending_approval' || device.status === 'disabled') && can('POST devices/{sn}/approve/')) {
    // Approval chooses the areas whose people the terminal is sent.
    const areas = await areasPicker('Areas of this terminal', device.areas, 'It is sent the people of these areas.');
    approveForm = onSubmit(
      h(
        'form',
        { class: 'inline-form approve' },
        areas.element,
        h('button', { type: 'submit', class: 'primary' }, device.status === 'pending_approval' ? 'Approve' : 'Enable again'),
      ),
      { areas: areas.control },
      async () => {
        const chosen = areas.value();
        await api.post(`${base}approve/`, chosen.length > 0 ? { areas: chosen } : {});
        await redraw();
        announce(`${title} approved: the people of its areas are being sent to it.`);
      },
    );
  }
  if (device.status === 'approved' && can('POST devices/{sn}/disable/')) {
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
  if (device.unconfirmed_address && can('POST devices/{sn}/confirm-address/')) {
    const address = device.unconfirmed_address;
    actions.append(
      button(`Confirm address ${address}`, async () => {
        if (
          !(await confirmAction(`Trust ${title} at ${address}?`, {
            action: 'Confirm address',
            detail: `Requests for this serial came from ${address}, not from ${device.pinned_address ?? 'its address'}. Confirm only if the terminal really moved there: it will be sent people's records and templates there, and no longer at its old address.`,
          }))
        )
          return;
        await api.post(`${base}confirm-address/`);
        await redraw();
        announce(`${title} is now trusted at ${address}.`);
      }),
    );
  }
  if (can('DELETE devices/{sn}/')) {
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

  replace(
    main,
    h('p', { class: 'crumbs' }, h('a', { href: '#/terminals' }, 'Terminals'), ' › ', device.serial_number),
    h('h1', {}, title, ' ', deviceBadge(device)),
    approveForm ? section(device.status === 'pending_approval' ? 'Approve this terminal' : 'Enable this terminal again', approveForm) : null,
    actions,
    attention.length > 0 ? section('Needs attention', h('ul', { class: 'attention' }, ...attention.map(diagnosticItem))) : null,
    h(
      'div',
      { class: 'columns' },
      section(
        'About',
        definitionList([
          ['Status', words(device.status)],
          ['Last heard', `${ago(device.last_seen_at)} (${dateTime(device.last_seen_at)})`],
          ['Areas', device.areas.join(', ')],
          ['Time zone', device.time_zone],
          ['Enrollment station', device.enrollment_station ? 'Yes: accepts fingerprints of anyone' : 'No'],
          ['Firmware', device.firmware],
          ['Fingerprint algorithm', device.algorithm_version],
          ['Address', device.ip_address],
          ['Trusted address', device.pinned_address],
          [
            'Unconfirmed address',
            device.unconfirmed_address
              ? h(
                  'span',
                  {},
                  badge(device.unconfirmed_address, 'bad'),
                  ` since ${dateTime(device.unconfirmed_address_at)}: nothing is sent there until confirmed`,
                )
              : 'None',
          ],
          ['Clock', device.clock_drifting ? badge(`Off by ${device.clock_drift_seconds ?? '?'} s`, 'bad') : 'In time'],
          ['Commands waiting', String(device.pending_commands)],
        ]),
      ),
      syncSection(device, users.results.length, base, redraw),
    ),
    device.status === 'approved' ? completenessSection(device.serial_number) : null,
    can('PATCH devices/{sn}/') && (await editSection(device, base, redraw)),
    can('POST devices/{sn}/commands/') && commandConsole(device, base, redraw),
    commandList([...waiting.results, ...sent.results], commands, base, redraw),
    usersSection(users.results, base, redraw),
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

function syncSection(device: DeviceDetailView, listed: number, base: string, redraw: () => Promise<void>): HTMLElement {
  const { users, fingerprints, in_sync } = device.sync_check;
  // The list below is the terminal's last full answer: the figure says the same as the list.
  const onTerminal = listed > 0 ? listed : users.reported;
  const state = in_sync === null ? badge('Not reported yet', 'muted') : in_sync ? badge('In agreement', 'ok') : badge('Differs', 'bad');
  return section(
    'Agreement with the server',
    h('p', {}, state),
    definitionList([
      [
        'People',
        onTerminal === null || onTerminal === undefined
          ? `Not reported yet; ${users.expected} expected`
          : `${onTerminal} on the terminal, ${users.expected} expected`,
      ],
      [
        'Fingerprints',
        fingerprints.reported === null || fingerprints.reported === undefined
          ? `Not reported yet; ${fingerprints.expected} expected`
          : `${fingerprints.reported} on the terminal, ${fingerprints.expected} expected`,
      ],
    ]),
    can('POST devices/{sn}/resync/') &&
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

async function editSection(device: DeviceDetailView, base: string, redraw: () => Promise<void>): Promise<HTMLElement> {
  const name = input({ value: device.name ?? '', autocomplete: 'off' });
  const areas = await areasPicker('Areas', device.areas, 'It is sent the people of these areas.');
  const zone = input({ value: device.time_zone, autocomplete: 'off', spellcheck: 'false' });
  const station = h('input', { type: 'checkbox', checked: device.enrollment_station });
  if (!station.id) station.id = `station-${device.serial_number}`;
  const form = h(
    'form',
    { class: 'inline-form' },
    field('Name', name),
    areas.element,
    field('Time zone', zone, 'IANA name, e.g. Europe/Berlin.'),
    h('div', { class: 'field check' }, station, h('label', { for: station.id }, 'Enrollment station (accepts anyone’s fingerprints)')),
    h('button', { type: 'submit' }, 'Save'),
  );
  onSubmit(form, { name, areas: areas.control, time_zone: zone, enrollment_station: station }, async () => {
    await api.patch(base, { name: name.value.trim() || null, areas: areas.value(), time_zone: zone.value.trim() || null, enrollment_station: station.checked });
    await redraw();
    announce('Saved.');
  });
  return section('Settings', form);
}

function commandConsole(device: DeviceDetailView, base: string, redraw: () => Promise<void>): HTMLElement {
  const kind = select([
    ['reboot', 'Restart'],
    ['set_time', 'Set the clock'],
    ['info', 'Read terminal information'],
    ['query_users', 'List its users'],
    ['reupload_logs', 'Send punches again (dates below)'],
    ['clear_logs', 'Delete its punches'],
    ['clear_data', 'Delete all its data'],
  ]);
  const from = input({ type: 'date' });
  const to = input({ type: 'date' });
  const dates = h('div', { class: 'inline-form', hidden: true }, field('From', from), field('To', to));
  kind.addEventListener('change', () => {
    dates.hidden = kind.value !== 'reupload_logs';
  });
  const form = h('form', { class: 'inline-form' }, field('Command', kind), dates, h('button', { type: 'submit' }, 'Send'));
  onSubmit(form, { kind, from, to }, async () => {
    const body: Record<string, unknown> = { kind: kind.value };
    if (kind.value === 'reupload_logs') {
      if (!from.value) throw new Error('Choose the first date to send again.');
      body.from = from.value;
      if (to.value) body.to = to.value;
    }
    if (kind.value === 'clear_logs' || kind.value === 'clear_data') {
      const what = kind.value === 'clear_logs' ? 'every punch stored on the terminal' : 'every user, fingerprint and punch on the terminal';
      if (
        !(await confirmAction(`${commandKind(kind.value)}?`, { action: commandKind(kind.value), typed: device.serial_number, detail: `This deletes ${what}.` }))
      )
        return;
      body.confirm = device.serial_number;
    }
    await api.post(`${base}commands/`, body);
    announce(`“${commandKind(kind.value)}” queued; the terminal gets it at its next poll.`);
    await redraw();
  });
  return section('Send a command', form);
}

function commandRows(commands: CommandView[], base: string, redraw: () => Promise<void>): HTMLElement[][] {
  return commands.map((c) => {
    const act = h('div', { class: 'actions' });
    if ((c.status === 'pending' || c.status === 'sent') && can('POST devices/{sn}/commands/{id}/cancel/')) {
      act.append(
        button(
          'Cancel',
          async () => {
            await api.post(`${base}commands/${c.id}/cancel/`);
            await redraw();
            announce('Command cancelled.');
          },
          { 'aria-label': `Cancel ${commandKind(c.kind)} (command ${c.id})` },
        ),
      );
    }
    if ((c.status === 'failed' || c.status === 'expired') && can('POST devices/{sn}/commands/{id}/retry/')) {
      act.append(
        button(
          'Retry',
          async () => {
            await api.post(`${base}commands/${c.id}/retry/`);
            await redraw();
            announce('Command queued again.');
          },
          { 'aria-label': `Retry ${commandKind(c.kind)} (command ${c.id})` },
        ),
      );
    }
    const status = badge(words(c.status), commandTone(c.status));
    return [
      h('span', {}, commandKind(c.kind)),
      c.return_code !== null && c.status === 'failed' ? h('span', {}, status, ` (code ${c.return_code})`) : status,
      h('span', {}, String(c.attempts)),
      h('span', {}, dateTime(c.created_at)),
      h('span', {}, dateTime(c.completed_at)),
      act,
    ];
  });
}

/** Waiting commands (all of them, oldest first: the order the terminal gets them), then the others, newest first, a page at a time. */
function commandList(waiting: CommandView[], recent: List<CommandView>, base: string, redraw: () => Promise<void>): HTMLElement {
  const headers = ['Command', 'Status', 'Tries', 'Queued', 'Finished', ''];
  const done = recent.results.filter((c) => c.status !== 'pending' && c.status !== 'sent');
  const older = h('div');
  let cursor = recent.next_cursor;
  const more = button('Show older commands', async () => {
    if (!cursor) return;
    const page = await api.get<List<CommandView>>(`${base}commands/${query({ order: 'newest', limit: 50, cursor })}`);
    cursor = page.next_cursor;
    older.append(
      table(
        headers,
        commandRows(
          page.results.filter((c) => c.status !== 'pending' && c.status !== 'sent'),
          base,
          redraw,
        ),
        'No older finished commands.',
      ),
    );
    more.style.display = cursor ? '' : 'none';
  });
  more.style.display = cursor ? '' : 'none';
  return section(
    'Commands',
    h('h3', {}, waiting.length > 0 ? `Waiting (${waiting.length})` : 'Waiting'),
    table(
      headers,
      commandRows(
        waiting.sort((x, y) => x.id - y.id),
        base,
        redraw,
      ),
      'Nothing is waiting for this terminal.',
    ),
    h('h3', {}, 'Finished, newest first'),
    table(headers, commandRows(done, base, redraw), 'No commands yet.'),
    older,
    more,
  );
}

function usersSection(users: TerminalUserView[], base: string, redraw: () => Promise<void>): HTMLElement {
  return section(
    'People on the terminal',
    h('p', { class: 'muted' }, 'As the terminal last reported them. Its own users (made at the terminal) can be adopted as people of the service, or removed.'),
    table(
      ['PIN', 'Name', 'Who', 'Fingerprints', ''],
      users.map((u) => {
        const act = h('div', { class: 'actions' });
        if (!u.enrollee && can('POST devices/{sn}/users/{pin}/adopt/')) {
          const employee = input({ autocomplete: 'off', 'aria-label': `Employee ID for PIN ${u.pin}`, placeholder: 'Employee ID' });
          const adopt = h('form', { class: 'mini-form' }, employee, h('button', { type: 'submit' }, 'Adopt'));
          onSubmit(adopt, { employee, enrollee: employee }, async () => {
            const body = u.conflict && !employee.value.trim() ? { enrollee: u.conflict.enrollee } : { employee: employee.value.trim() };
            await api.post(`${base}users/${encodeURIComponent(u.pin)}/adopt/`, body);
            await redraw();
            announce(`PIN ${u.pin} adopted.`);
          });
          act.append(adopt);
        }
        if (can('DELETE devices/{sn}/users/{pin}/'))
          act.append(
            button(
              'Remove',
              async () => {
                if (
                  !(await confirmAction(`Remove PIN ${u.pin} from the terminal?`, {
                    action: 'Remove',
                    detail: 'The user and their fingerprints are deleted from this terminal.',
                  }))
                )
                  return;
                await api.delete(`${base}users/${encodeURIComponent(u.pin)}/`);
                await redraw();
                announce(`Removal of PIN ${u.pin} queued.`);
              },
              { 'aria-label': `Remove PIN ${u.pin} from the terminal` },
            ),
          );
        const who = u.enrollee
          ? h('a', { href: `#/people/${u.enrollee}` }, 'A person of the service')
          : u.conflict
            ? badge(`Conflict: the service’s ${u.conflict.employee} has this PIN`, 'bad')
            : badge('Terminal’s own user', 'warn');
        return [u.pin, u.name ?? '—', who, String(u.biometrics.fingerprint ?? 0), act];
      }),
      'The terminal has not reported any users.',
    ),
  );
}

function keysSection(keys: DeviceKeyView[], pinnedAddress: string | null, base: string, redraw: () => Promise<void>): HTMLElement {
  const slot = h('div');
  const issue = button('Issue a key', async () => {
    const issued = await api.post<DeviceKeyView & { key: string }>(`${base}keys/`);
    replace(
      slot,
      showOnce(
        'Communication key',
        issued.key,
        'Enter it as the terminal’s Comm Key now: it is shown this once. From now on only requests with a key are accepted.',
      ),
    );
  });
  return section(
    'Communication keys',
    table(
      ['Key', 'Issued', 'By', 'State', ''],
      keys.map((k) => [
        k.legacy ? `${k.id.slice(0, 8)} (legacy: issue a new one)` : k.id.slice(0, 8),
        dateTime(k.created_at),
        k.created_by,
        k.revoked_at ? badge('Revoked', 'muted') : badge('Active', 'ok'),
        k.revoked_at
          ? ''
          : button(
              'Revoke',
              async () => {
                if (!(await confirmAction('Revoke this key?', { action: 'Revoke', detail: 'A terminal using it is refused until it has another key.' })))
                  return;
                await api.delete(`${base}keys/${encodeURIComponent(k.id)}/`);
                await redraw();
                announce('Key revoked.');
              },
              { 'aria-label': `Revoke the key ${k.id.slice(0, 8)} issued ${dateTime(k.created_at)}` },
            ),
      ]),
      pinnedAddress ? `No keys: the terminal is trusted at its address, ${pinnedAddress}.` : 'No keys: the terminal is known by its serial number only.',
    ),
    issue,
    slot,
  );
}
