/** The areas module's HTTP model. */
import { t } from 'elysia';
import { Body, Instant, Int, Nullable, Text } from '../../platform/http/model';

const Name = Text({ maxLength: 100, description: 'The area’s name (terminals and enrollees are placed in areas by name).' });
const Description = Nullable(Text({ minLength: 0, maxLength: 500 }));

export const AreaParams = t.Object({ name: Name });

export const Area = t.Object(
  {
    name: t.String(),
    description: Nullable(t.String()),
    created_at: Instant(),
    usage: t.Record(t.String(), Int(), { description: 'What is in the area, by kind (`devices`, `enrollees`…).' }),
  },
  { title: 'Area' },
);

export const AreaList = t.Object({ results: t.Array(Area), next_cursor: t.Null() });

export const AreaCreate = Body({ name: Name, description: t.Optional(Description) }, { title: 'AreaCreate' });

export const AreaPatch = Body({ name: t.Optional(Name), description: t.Optional(Description) }, { title: 'AreaPatch' });
