/**
 * The names of the people a page shows (a punch list, anomalies, the grid), asked for by id:
 * `enrollees/?ids=`, up to 100 a request, each id once per page. Never everyone's list: past
 * the API's page of 1,000 people the rest would be nameless, or taken for deleted.
 */
import { api, type List, query } from './api';
import { h } from './dom';
import { isolated } from './format';
import type { Person } from './person-picker';

const PER_REQUEST = 100;

export interface PeopleNames {
  /** Asks for the people of these ids not asked for yet. */
  load(ids: Iterable<string | null | undefined>): Promise<void>;
  /** The person of an id asked for; undefined when nobody is listed by it (deleted since). */
  get(id: string | null | undefined): Person | undefined;
  /** Their name, with their employee id when another person asked for has the same name; undefined as `get`. */
  label(id: string | null | undefined): string | undefined;
}

/**
 * People's names, each with its employee id where two of them share a name (“Kira Díaz (E253)”),
 * so namesakes are told apart; a right-to-left name is isolated from its id (format.ts `isolated`).
 */
export function toldApart<P extends Pick<Person, 'display_name' | 'employee'>>(people: readonly P[]): P[] {
  const count = new Map<string, number>();
  for (const p of people) count.set(p.display_name, (count.get(p.display_name) ?? 0) + 1);
  return people.map((p) => ((count.get(p.display_name) ?? 0) > 1 ? { ...p, display_name: `${isolated(p.display_name)} (${p.employee})` } : p));
}

export function peopleNames(): PeopleNames {
  const known = new Map<string, Person>();
  const asked = new Set<string>();
  return {
    async load(ids) {
      const fresh = [...new Set([...ids].filter((id): id is string => !!id && !asked.has(id)))];
      for (const id of fresh) asked.add(id);
      const batches: string[][] = [];
      for (let i = 0; i < fresh.length; i += PER_REQUEST) batches.push(fresh.slice(i, i + PER_REQUEST));
      const pages = await Promise.all(batches.map((batch) => api.get<List<Person>>(`enrollees/${query({ ids: batch.join(','), limit: PER_REQUEST })}`))).catch(
        (error: unknown) => {
          // Not answered: asked again next time.
          for (const id of fresh) asked.delete(id);
          throw error;
        },
      );
      for (const page of pages) for (const p of page.results) known.set(p.id, p);
    },
    get: (id) => (id ? known.get(id) : undefined),
    label(id) {
      const p = id ? known.get(id) : undefined;
      if (!p) return undefined;
      const namesake = [...known.values()].some((other) => other.id !== p.id && other.display_name === p.display_name);
      // Isolated: a right-to-left name would take the id (or a date after it, in the logs) into its run.
      return namesake ? `${isolated(p.display_name)} (${p.employee})` : isolated(p.display_name);
    },
  };
}

/**
 * A person's name as a row header that must not grow past its column (the attendance grid's, the
 * roster's): one line, cut with an ellipsis past 16rem (under half a phone's width), so the days
 * stay in view beside it; a 110-character name took the whole screen. The whole name is still the
 * link's text (what a screen reader says) and its title (shown on hover). `href` null: no link (a
 * deleted person). Its direction is its own (`dir="auto"`), as names are everywhere.
 */
export function clippedName(name: string, href: string | null): HTMLElement {
  const attrs = { class: 'name-clip', title: name, dir: 'auto' };
  return href === null ? h('span', attrs, name) : h('a', { ...attrs, href }, name);
}
