/**
 * The area filter of `events/` goes by whom an event names (events/subjects.ts). Every event type
 * of the catalog whose data names a person or a terminal anywhere must yield that subject, or a
 * caller limited to areas never sees it.
 */
import { describe, expect, test } from 'bun:test';
import { EVENT_CATALOG } from '../../../src/app/event-catalog';
import { subjectsOf } from '../../../src/modules/events/subjects';

/** Whether the data names a person or a terminal at any depth (outside lists, which name several). */
function namesSomeone(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  return Object.entries(value).some(([key, v]) => ((key === 'enrollee' || key === 'device') && v !== null && v !== '') || namesSomeone(v));
}

describe('subjectsOf', () => {
  for (const [type, doc] of Object.entries(EVENT_CATALOG)) {
    if (!namesSomeone(doc.example)) continue;
    test(`${type}: the person or terminal it names is found`, () => {
      const found = subjectsOf(doc.example);
      expect(found.enrollee ?? found.device ?? null).not.toBeNull();
    });
  }

  test('an anomaly names its person and terminal', () => {
    expect(subjectsOf(EVENT_CATALOG.anomaly_detected.example)).toEqual({ enrollee: '7c1e4a52-0d3b-4f7e-9a61-2b8f5c3d9e01', device: 'CQUZ233860018' });
  });
});
