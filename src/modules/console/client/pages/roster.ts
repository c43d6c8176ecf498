/**
 * Who works when: a week of an area, one row per person, one column per day, each cell the
 * shift expected that day (name and hours), or the day off, holiday or leave. From
 * `calendar/roster/`, the plan attendance judges days by.
 */
import type { Static } from '@sinclair/typebox';
import type { RosterResponse } from '../../../calendar';
import { api, query } from '../api';
import { areaSelect, loadAreas } from '../area-picker';
import { button, field, h, input, replace, section, tableWrap } from '../dom';
import { onSubmit } from '../form-errors';
import { addDays, dayLabel, hourMinute, localDate, localDay } from '../format';
import { clippedName } from '../people-names';

type Roster = Static<typeof RosterResponse>;
type Day = Roster['results'][number]['days'][number];

/** The Monday of the week holding `date`. */
function monday(date: string): string {
  const weekday = new Date(`${date}T12:00:00Z`).getUTCDay();
  return addDays(date, -((weekday + 6) % 7));
}

function cell(day: Day): HTMLElement {
  if (day.day_type === 'holiday') return h('span', { class: 'shift off' }, `Holiday${day.holiday ? `: ${day.holiday}` : ''}`);
  if (day.day_type === 'leave') return h('span', { class: 'shift off' }, `Leave${day.leave ? `: ${day.leave}` : ''}`);
  if (day.day_type === 'weekend' || !day.schedule) return h('span', { class: 'shift off' }, day.day_type === 'weekend' ? 'Day off' : 'No shift');
  const s = day.schedule;
  return h('span', { class: 'shift on' }, h('strong', {}, s.name), h('br', {}), `${hourMinute(s.expected_start)}–${hourMinute(s.expected_end)}`);
}

/** One row per person, one column per date of the week. */
function rosterTable(area: string, from: string, roster: Roster): HTMLElement {
  const dates = Array.from({ length: 7 }, (_, i) => addDays(from, i));
  return tableWrap(
    h(
      'table',
      { class: 'roster-table' },
      h('caption', {}, `${area}, week of ${localDay(from)}`),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Person'), ...dates.map((d) => h('th', { scope: 'col' }, dayLabel(d))))),
      h(
        'tbody',
        {},
        ...roster.results.map((r) =>
          h(
            'tr',
            {},
            h('th', { scope: 'row' }, clippedName(r.display_name, `#/people/${encodeURIComponent(r.enrollee)}`)),
            ...r.days.map((d) => h('td', {}, cell(d))),
          ),
        ),
      ),
    ),
  );
}

export async function rosterSection(): Promise<HTMLElement> {
  const preset = new URLSearchParams(location.hash.split('?')[1] ?? '').get('roster') ?? undefined;
  // Without one asked for, the first area that has people (not an empty one, such as a fresh install's "default").
  const peopled = (await loadAreas()).find((a) => (a.usage.enrollees ?? 0) > 0)?.name;
  const area = await areaSelect({ selected: preset ?? peopled, create: false });
  const week = input({ type: 'date', value: monday(localDate()), required: true });
  const out = h('div', { class: 'roster' });
  // Reads may overlap (an area chosen while the last one loads, the page redrawn): the latest is drawn.
  let reads = 0;
  const show = async () => {
    if (!area.value) return replace(out, h('p', { class: 'empty' }, 'Create an area first.'));
    const from = monday(week.value || localDate());
    week.value = from;
    const to = addDays(from, 6);
    const asked = area.value;
    const read = ++reads;
    const roster = await api.get<Roster>(`calendar/roster/${query({ area: asked, from, to, limit: 500 })}`);
    if (read !== reads) return;
    if (roster.results.length === 0) return replace(out, h('p', { class: 'empty' }, `Nobody is in ${asked}.`));
    replace(
      out,
      rosterTable(asked, from, roster),
      roster.next_cursor ? h('p', { class: 'muted' }, `The first ${roster.results.length} people by name are shown.`) : null,
    );
  };
  const form = onSubmit(
    h(
      'form',
      { class: 'inline-form', role: 'search' },
      field('Area', area),
      field('Week of', week),
      button('Previous week', async () => {
        week.value = addDays(monday(week.value || localDate()), -7);
        await show();
      }),
      button('Next week', async () => {
        week.value = addDays(monday(week.value || localDate()), 7);
        await show();
      }),
      h('button', { type: 'submit' }, 'Show'),
    ),
    { area, from: week, to: week },
    show,
  );
  area.addEventListener('change', () => void show());
  await show();
  return section('Who works when', form, out);
}
