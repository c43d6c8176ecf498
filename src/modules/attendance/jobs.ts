import type { JobDefinition } from '../jobs';
import { ABSENCE_PARAMS, type Absences } from './absences';

export function attendanceJobs(absences: Absences): JobDefinition[] {
  return [
    {
      name: 'generate-absences',
      schedule: '0 15 0 * * *',
      description:
        'Writes the day its plan says (absent, non_working_day, holiday, on_leave) for active enrollees without a record on a date (params.date, default yesterday in ATTENDANCE_TIME_ZONE; or params.from and params.to).',
      params: ABSENCE_PARAMS,
      checkParams: (params) => void absences.range(params),
      run: (params) => absences.generate({ date: params.date, from: params.from, to: params.to }),
    },
  ];
}
