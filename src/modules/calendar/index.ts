/** The working calendar: holidays, weekends, leaves, work schedules and assignments; the plan of a day. */
export type { CalendarChange, CalendarEvents } from './events';
export { DAY_TYPES, type DayPlan, type DayType, type Person, type Planner, type Shift } from './plan';
export { calendarRoutes } from './routes';
export { scheduleRoutes } from './schedule-routes';
export { type CalendarProvider, CalendarService, type HostCalendarEntries } from './service';
