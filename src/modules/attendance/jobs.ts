import type { JobDefinition } from '../jobs';
import { ABSENCE_PARAMS, type AbsenceParams, type Absences } from './absences';

const stringsOf = (params: AbsenceParams): Record<string, string> =>
  Object.fromEntries(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined));

export function attendanceJobs(absences: Absences): JobDefinition[] {
  return [
    {
      name: 'generate-absences',
      schedule: '0 15 0 * * *',
      description:
        'Writes the day its plan says (absent, non_working_day, holiday, on_leave) for active enrollees without a record on a date (params.date, default yesterday in each person’s time zone: their areas’, else ATTENDANCE_TIME_ZONE; or params.from and params.to). A scheduled run covers the nights since the one before it; one missed while no instance ran is run at start.',
      params: ABSENCE_PARAMS,
      checkParams: async (params) => void (await absences.range(params)),
      run: (params) => absences.generate({ date: params.date, from: params.from, to: params.to }),
      // A shop's PC is off at night: the nights it missed are covered at its start, and by the next night's run.
      catchUp: { params: async (previous) => stringsOf(await absences.scheduledParams(previous)) },
    },
  ];
}
