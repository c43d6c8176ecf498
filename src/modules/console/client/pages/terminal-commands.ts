/** A terminal's commands: the console that sends one, and its queue (waiting, then finished), with cancel and retry. */
import type { CommandView } from '../../../commands';
import type { DeviceDetailView } from '../../../devices';
import { api, can, type List, outsideMine, pager, query } from '../api';
import { announce, badge, button, confirmAction, field, h, input, section, select, table } from '../dom';
import { onSubmit } from '../form-errors';
import { commandKind, dateTime, figure, words } from '../format';

const commandTone = (status: string) =>
  status === 'succeeded' ? 'ok' : status === 'failed' || status === 'expired' ? 'bad' : status === 'cancelled' ? 'muted' : 'info';

export function commandConsole(device: DeviceDetailView, base: string, redraw: () => Promise<void>): HTMLElement {
  const kind = select([
    ['reboot', 'Restart'],
    ['set_time', 'Set the clock'],
    ['info', 'Read terminal information'],
    ['query_users', 'List its users'],
    ['reupload_logs', 'Send punches again (dates below)'],
    // Wiping a terminal also in another area is that area's administrators' to do (403).
    ...(outsideMine(device.areas).length > 0
      ? []
      : ([
          ['clear_logs', 'Delete its punches'],
          ['clear_data', 'Delete all its data'],
        ] as [string, string][])),
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
    // A delete a deletion proof waits for cannot be cancelled (the server says why): no button, the reason instead.
    if (c.cancel_refused) act.append(h('span', { class: 'muted', title: c.cancel_refused }, 'Kept: a deletion proof waits for it'));
    else if ((c.status === 'pending' || c.status === 'sent') && can('POST devices/{sn}/commands/{id}/cancel/')) {
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
      h('span', {}, dateTime(c.finished_at)),
      act,
    ];
  });
}

/** How many waiting commands are read at a time: a page of the API. */
const WAITING_PAGE = 1000;

/**
 * The commands waiting for a terminal, oldest first (the order it gets them): those sent and not
 * answered yet, then those pending, a page at a time. After an approval backfill a terminal owes
 * 20,000 and more: the first page is shown and the rest is a "Show more" away, never cut off.
 */
export interface WaitingCommands {
  readonly rows: CommandView[];
  readonly more: boolean;
  next(): Promise<CommandView[]>;
}

export async function waitingCommands(base: string): Promise<WaitingCommands> {
  const sent = pager<CommandView>(`${base}commands/`, { status: 'sent' }, WAITING_PAGE);
  const pending = pager<CommandView>(`${base}commands/`, { status: 'pending' }, WAITING_PAGE);
  await Promise.all([sent.next(), pending.next()]);
  return {
    get rows() {
      return [...sent.rows, ...pending.rows];
    },
    get more() {
      return sent.more || pending.more;
    },
    next: () => (sent.more ? sent.next() : pending.next()),
  };
}

/**
 * What the waiting list says of itself: how many wait (the terminal's own count,
 * `pending_commands`), and how many of them are shown when not all are.
 */
function waitingSaid(shown: number, total: number, more: boolean): string {
  const all = Math.max(total, shown);
  if (!more) return '';
  return all > shown ? `${figure(shown)} of ${figure(all)} shown, oldest first.` : `${figure(shown)} shown, more waiting.`;
}

/** The waiting commands' table, with "Show more" while the server has more of them. */
function waitingTable(waiting: WaitingCommands, total: number, base: string, redraw: () => Promise<void>): HTMLElement[] {
  const headers = ['Command', 'Status', 'Tries', 'Queued', 'Finished', ''];
  const first = [...waiting.rows].sort((x, y) => x.id - y.id);
  const list = table(headers, commandRows(first, base, redraw), 'Nothing is waiting for this terminal.');
  const said = h('p', { class: 'muted', role: 'status' }, waitingSaid(first.length, total, waiting.more));
  const more = button('Show more waiting commands', async () => {
    const page = await waiting.next();
    list.querySelector('tbody')?.append(...commandRows(page, base, redraw).map((cells) => h('tr', {}, ...cells.map((c) => h('td', {}, c)))));
    said.textContent = waitingSaid(waiting.rows.length, total, waiting.more) || `All ${figure(waiting.rows.length)} shown.`;
    more.hidden = !waiting.more;
  });
  more.hidden = !waiting.more;
  return [list, said, more];
}

/** Waiting commands (oldest first: the order the terminal gets them; `total` of them), then the others, newest first, a page at a time. */
export function commandList(waiting: WaitingCommands, total: number, recent: List<CommandView>, base: string, redraw: () => Promise<void>): HTMLElement {
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
  const count = Math.max(total, waiting.rows.length);
  return section(
    'Commands',
    h('h3', {}, count > 0 ? `Waiting (${figure(count)})` : 'Waiting'),
    ...waitingTable(waiting, total, base, redraw),
    h('h3', {}, 'Finished, newest first'),
    table(headers, commandRows(done, base, redraw), 'No commands yet.'),
    older,
    more,
  );
}
