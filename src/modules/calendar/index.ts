/** The working calendar: holidays, weekends, leaves, work schedules and assignments; the plan of a day. */
export type { CalendarEvents } from './events';
export type { CalendarProvider, HostCalendarEntries } from './host-calendar';
export { RosterResponse } from './model';
export { ownScheduleStarts } from './own-schedules';
export { areasOn, type DayPlan, type Person, type Shift, zoneOfAreas } from './plan';
export { calendarRoutes } from './routes';
export { CALENDAR_SETTINGS } from './runtime';
export { scheduleRoutes } from './schedule-routes';
export { CalendarService } from './service';
export { type CalendarResume, type ChangeTouches, recomputeInSteps, type Touch } from './steps';
