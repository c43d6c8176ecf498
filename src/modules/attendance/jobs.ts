import type { JobDefinition } from '../jobs';
import type { AttendanceService } from './service';

export function attendanceJobs(attendance: AttendanceService): JobDefinition[] {
  return [
    {
      name: 'generate-absences',
      schedule: '0 15 0 * * *',
      description:
        'Writes absent (or non_working_day) days for active enrollees without punches on a date (params.date, default yesterday in ATTENDANCE_TIME_ZONE).',
      run: (params) => attendance.generateAbsences({ date: params.date }),
    },
  ];
}
