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
  ];
}
