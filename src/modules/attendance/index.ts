/**
 * Attendance: days recomputed in the punch transaction and when earlier punches are linked to a
 * new enrollee, the `attendance-days/` endpoint, and the daily jobs generate-absences and
 * purge-retention (the retention purge also covers attendance days, so it is installed here).
 */
import type { Core } from '../../app/core';
import type { Signals } from '../../app/context';
import type { FeatureParts } from '../../app/features';
import { registerRetentionJob } from '../retention/job';
import { purgeRetention } from '../retention/service';
import { AttendanceService } from './service';
import { attendanceRoutes } from './routes';

export function installAttendance(core: Core, onSignals: (handlers: Partial<Signals>) => void) {
  void onSignals;
  const attendance = new AttendanceService(core.ctx);
  core.punches.onInsert((tx, rows) => attendance.recomputeForPunches(tx, rows));
  core.enrollees.onCreated(async (tx, enrollee) => {
    await attendance.recomputeEnrollee(tx, enrollee);
  });
  core.jobs.register({
    name: 'generate-absences',
    schedule: '0 15 0 * * *',
    description: 'Writes absent (or non_working_day) days for active enrollees without punches on a date (params.date, default yesterday in ATTENDANCE_TIME_ZONE).',
    run: (params) => attendance.generateAbsences({ date: params.date }),
  });
  registerRetentionJob(core);
  const parts: FeatureParts<{ attendance: AttendanceService; purgeRetention: () => ReturnType<typeof purgeRetention> }> = {
    routes: [attendanceRoutes(core, attendance)],
    service: { attendance, purgeRetention: () => purgeRetention(core) },
  };
  return parts;
}
