/** The areas module's HTTP model. */
import { t } from 'elysia';
import { Body, Instant, Int, LocalDate, Nullable, Page, PageQuery, Text, Uuid } from '../../platform/http/model';

const Name = Text({ maxLength: 100, description: 'The area’s name (terminals and enrollees are placed in areas by name).' });
const Description = Nullable(Text({ minLength: 0, maxLength: 500 }));
const TimeZone = Nullable(
  Text({
    maxLength: 64,
    description:
      'IANA time zone (`Asia/Kolkata`) its people’s attendance is judged in: their dates, shifts’ wall times, lateness, holidays, “today” (README “Time zones”); null: ATTENDANCE_TIME_ZONE. A fixed offset (`+05:30`) is refused.',
  }),
);

export const AreaParams = t.Object({ name: Name });

const areaFields = {
  id: Uuid('Stable, unlike the name: the events name areas by it (`calendar_changed`, `enrollee_updated`, `device_approved`…).'),
  name: t.String(),
  description: Nullable(t.String()),
  time_zone: Nullable(t.String({ description: 'The zone its people’s attendance is judged in; null: ATTENDANCE_TIME_ZONE.' })),
  created_at: Instant(),
  usage: t.Record(t.String(), Int(), { description: 'What is in the area, by kind (`devices`, `enrollees`…).' }),
};

export const Area = t.Object(areaFields, { title: 'Area' });

/** The answer of a create or a change: the area, and how many of its people its zone now disagrees with another of their areas' for. */
export const AreaSaved = t.Object(
  {
    ...areaFields,
    people_in_several_zones: Int({
      minimum: 0,
      description:
        'How many of its people are also in another area whose time zone differs from this one’s: each is judged in the zone of the first of their zoned areas by name (README “Time zones”). 0 when none.',
    }),
  },
  { title: 'AreaSaved' },
);

export const AreaList = { query: t.Object(PageQuery), response: Page(Area) };

export const AreaCreate = Body({ name: Name, description: t.Optional(Description), time_zone: t.Optional(TimeZone) }, { title: 'AreaCreate' });

export const AreaPatch = Body({ name: t.Optional(Name), description: t.Optional(Description), time_zone: t.Optional(TimeZone) }, { title: 'AreaPatch' });

const AreaTerminal = t.Object({ serial_number: t.String(), name: Nullable(t.String()), status: t.String() }, { title: 'AreaTerminal' });
const AreaSchedule = t.Object(
  { id: Uuid('The shift assignment.'), schedule: t.String({ description: 'The schedule’s name.' }), from: LocalDate(), to: Nullable(LocalDate()) },
  { title: 'AreaSchedule' },
);

/** One area with its terminals and the schedules assigned to it (its people: `areas/{name}/members/`). */
export const AreaDetail = t.Object({ ...areaFields, terminals: t.Array(AreaTerminal), schedules: t.Array(AreaSchedule) }, { title: 'AreaDetail' });

export const AreaMember = t.Object(
  { id: Uuid(), employee: t.String(), display_name: t.String(), device_pin: t.String(), status: t.String() },
  { title: 'AreaMember' },
);
export const AreaMemberList = { query: t.Object(PageQuery), response: Page(AreaMember) };
