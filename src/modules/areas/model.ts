/** The areas module's HTTP model. */
import { t } from 'elysia';
import { Body, Instant, Int, LocalDate, Nullable, Page, PageQuery, Text, Uuid } from '../../platform/http/model';

const Name = Text({ maxLength: 100, description: 'The area’s name (terminals and enrollees are placed in areas by name).' });
const Description = Nullable(Text({ minLength: 0, maxLength: 500 }));

export const AreaParams = t.Object({ name: Name });

const areaFields = {
  name: t.String(),
  description: Nullable(t.String()),
  created_at: Instant(),
  usage: t.Record(t.String(), Int(), { description: 'What is in the area, by kind (`devices`, `enrollees`…).' }),
};

export const Area = t.Object(areaFields, { title: 'Area' });

export const AreaList = { query: t.Object(PageQuery), response: Page(Area) };

export const AreaCreate = Body({ name: Name, description: t.Optional(Description) }, { title: 'AreaCreate' });

export const AreaPatch = Body({ name: t.Optional(Name), description: t.Optional(Description) }, { title: 'AreaPatch' });

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
