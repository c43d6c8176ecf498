import type { JobDefinition } from '../jobs';
import type { Fleet } from './service';

export function fleetJobs(fleet: Fleet): JobDefinition[] {
  return [
    {
      name: 'reconcile-devices',
      schedule: '0 17 * * * *',
      description: 'Sends again to each approved terminal the users and templates that failed or were incompatible there.',
      run: () => fleet.reconciler.retryAll(),
    },
    {
      name: 'follow-area-moves',
      schedule: '50 */5 * * * *',
      description:
        'Takes people moved to other areas off the terminals of the areas they left, once the move takes effect (its date has begun in ATTENDANCE_TIME_ZONE).',
      run: () => fleet.areaMoves.followDue(),
    },
  ];
}
