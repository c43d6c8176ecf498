/**
 * Locking a pay period, with its days complete first. Every punch recorded so far counts
 * (AttendanceService.lockPeriod), and every date of the period has its day: the absences that
 * generate-absences writes at 00:15 for the day before are written now for the whole period.
 * Without them, a period locked in the minutes after its last date (or after a night the job did
 * not run) froze those dates with no day at all: absent people missing from the timesheet.
 */
import type { Absences } from './absences';
import type { PayPeriodView } from './model';
import type { AttendanceService } from './service';

export class PayPeriodLocks {
  constructor(
    private readonly attendance: AttendanceService,
    private readonly absences: Absences,
  ) {}

  /** `POST pay-periods/{id}/lock/`: 409 when it is locked already or its last date is not over (periods.ts). */
  async lock(id: string, by: string): Promise<PayPeriodView> {
    const period = await this.attendance.periods.get(id);
    if (!period.locked && period.to < (await this.attendance.zones.todays()).earliest) await this.absences.generate(this.absences.runOver(period));
    return this.attendance.lockPeriod(id, by);
  }
}
