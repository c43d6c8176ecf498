/** What the calendar module announces. */

/** A change of the working calendar: attendance recomputes the days it touches. */
export type CalendarChange = {
  kind: 'holiday' | 'weekend' | 'leave' | 'schedule' | 'assignment' | 'host' | 'area_zone';
  /** The row that changed (an area's id for `area_zone`; null for a host's `calendarChanged`). */
  id: string | null;
  /** Whose days: these enrollees, the members of these areas (ids), or everyone (neither given). */
  enrollees?: string[];
  areas?: string[];
  /** The dates it touches, inclusive; `to` null: every date from `from` on. */
  ranges: { from: string; to: string | null }[];
  by: string;
};

export interface CalendarEvents {
  calendar_changed: CalendarChange;
}
