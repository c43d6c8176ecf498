/**
 * Areas: where people and terminals belong (a terminal is sent the people of its areas). The
 * list with what is in each, creating one; per area: rename and describe, its people, its
 * terminals, the schedules assigned to it, deletion once nothing is in it.
 */
import type { Static } from '@sinclair/typebox';
import type { AreaDetail, AreaMember } from '../../../areas';
import { api, can, currentSession, type List, query } from '../api';
import { type AreaView, createAreaDialog, loadAreas } from '../area-picker';
import { announce, badge, button, confirmAction, field, h, input, navigate, replace, section, table } from '../dom';
import { onSubmit } from '../form-errors';
import { count, localDay } from '../format';
import { timeZoneInput } from '../time-zones';

type Detail = Static<typeof AreaDetail>;
type Member = Static<typeof AreaMember>;

const areaLink = (name: string) => `#/areas/${encodeURIComponent(name)}`;

export async function areasPage(main: HTMLElement): Promise<undefined> {
  const areas = await loadAreas(true);
  const create = button(
    'Create an area',
    async () => {
      const name = await createAreaDialog();
      if (!name) return;
      announce(`Area ${name} created.`);
      navigate(areaLink(name));
    },
    { class: 'primary' },
  );
  replace(
    main,
    h('h1', {}, 'Areas'),
    h(
      'p',
      { class: 'muted' },
      'People and terminals belong to areas: a terminal is sent the people of its areas, and schedules, holidays and weekends can be set per area.',
    ),
    can('POST areas/') ? h('div', { class: 'actions' }, create) : null,
    section(
      'All areas',
      table(
        ['Area', 'Description', 'Time zone', 'People', 'Terminals'],
        areas.map((a: AreaView) => [
          h('a', { href: areaLink(a.name) }, a.name),
          a.description ?? '—',
          a.time_zone ?? `${currentSession().time_zone} (attendance)`,
          count(a.usage.enrollees ?? 0, 'person', 'people'),
          count(a.usage.devices ?? 0, 'terminal', 'terminals'),
        ]),
        'No areas yet.',
      ),
    ),
  );
  return undefined;
}

export async function areaPage(main: HTMLElement, params: string[]): Promise<undefined> {
  const name = params[0] ?? '';
  const base = `areas/${encodeURIComponent(name)}/`;
  const redraw = () => areaPage(main, params).then(() => undefined);
  const [area, members] = await Promise.all([api.get<Detail>(base), api.get<List<Member>>(`${base}members/?limit=200`)]);
  replace(
    main,
    h('p', { class: 'crumbs' }, h('a', { href: '#/areas' }, 'Areas'), ' › ', area.name),
    h('h1', {}, area.name),
    area.description ? h('p', {}, area.description) : null,
    h('p', { class: 'muted' }, `Attendance is judged in ${area.time_zone ?? `${currentSession().time_zone}, the attendance time zone`}.`),
    can('PATCH areas/{name}/') ? section('Name, description and time zone', renameForm(area, base, redraw)) : null,
    membersSection(area, members),
    section(
      `Terminals (${area.terminals.length})`,
      table(
        ['Terminal', 'Serial number'],
        area.terminals.map((t) => [h('a', { href: `#/terminals/${encodeURIComponent(t.serial_number)}` }, t.name ?? t.serial_number), t.serial_number]),
        'No terminal is in this area.',
      ),
    ),
    section(
      'Schedules',
      table(
        ['Schedule', 'From', 'To'],
        area.schedules.map((s) => [s.schedule, localDay(s.from), s.to ? localDay(s.to) : 'Open-ended']),
        'No schedule is assigned to this area.',
      ),
      h(
        'p',
        {},
        h('a', { href: `#/shifts${query({ area: area.name })}` }, 'Assign a schedule'),
        ' · ',
        h('a', { href: `#/shifts${query({ roster: area.name })}` }, 'Who works when'),
      ),
    ),
    can('DELETE areas/{name}/') ? deleteSection(area, base) : null,
  );
  return undefined;
}

function renameForm(area: Detail, base: string, redraw: () => Promise<void>): HTMLFormElement {
  const newName = input({ value: area.name, required: true, autocomplete: 'off', maxlength: 100 });
  const description = input({ value: area.description ?? '', autocomplete: 'off', maxlength: 500 });
  const zone = timeZoneInput({ value: area.time_zone ?? '', maxlength: 64 });
  return onSubmit(
    h(
      'form',
      { class: 'inline-form' },
      field('Name', newName, 'Renaming keeps its people, terminals and schedules.'),
      field('Description', description),
      field(
        'Time zone',
        zone,
        `Where its people work, e.g. Asia/Kolkata: their shifts, dates, lateness and holidays are read in it. Empty: the attendance time zone, ${currentSession().time_zone}. A change recomputes their days outside locked pay periods.`,
      ),
      h('button', { type: 'submit' }, 'Save'),
    ),
    { name: newName, description, time_zone: zone },
    async () => {
      const saved = await api.patch<Detail & { people_in_several_zones: number }>(base, {
        name: newName.value.trim(),
        description: description.value.trim() || null,
        time_zone: zone.value.trim() || null,
      });
      await loadAreas(true);
      announce(`Area saved.${severalZones(saved.name, saved.people_in_several_zones)}`);
      if (saved.name !== area.name) navigate(areaLink(saved.name));
      else await redraw();
    },
  );
}

/** What to tell when some of an area's people are also in an area of another zone: each is judged in the zone of the first by name. */
function severalZones(area: string, people: number): string {
  if (people === 0) return '';
  const who = people === 1 ? '1 person' : `${people} people`;
  return ` ${who} of ${area} ${people === 1 ? 'is' : 'are'} also in an area of another time zone: ${people === 1 ? 'they are' : 'each is'} judged in the zone of the first of those areas by name. Give them one area, or the areas one zone.`;
}

function membersSection(area: Detail, members: List<Member>): HTMLElement {
  return section(
    `People (${area.usage.enrollees ?? 0})`,
    table(
      ['Name', 'Employee ID', 'PIN', 'Status'],
      members.results.map((m) => [
        h('a', { href: `#/people/${encodeURIComponent(m.id)}` }, m.display_name),
        m.employee,
        m.device_pin,
        m.status === 'active' ? badge('Active', 'ok') : badge('Deactivated', 'muted'),
      ]),
      'Nobody is in this area.',
    ),
    members.next_cursor ? h('p', { class: 'muted' }, `The first ${members.results.length} by name are shown.`) : null,
  );
}

function deleteSection(area: Detail, base: string): HTMLElement {
  const inUse = (area.usage.enrollees ?? 0) + (area.usage.devices ?? 0) > 0;
  const remove = button('Delete area', async () => {
    if (!(await confirmAction(`Delete the area ${area.name}?`, { action: 'Delete' }))) return;
    await api.delete(base);
    await loadAreas(true);
    announce(`Area ${area.name} deleted.`);
    navigate('#/areas');
  });
  remove.disabled = inUse;
  return section(
    'Delete',
    h('p', { class: 'muted' }, inUse ? 'An area can be deleted once no person and no terminal is in it.' : 'Nothing is in this area.'),
    remove,
  );
}
