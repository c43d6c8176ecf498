import type { JobDefinition } from '../jobs';
import type { Retention } from './service';

export function retentionJobs(retention: Retention): JobDefinition[] {
  return [
    {
      name: 'purge-retention',
      schedule: '0 30 3 * * *',
      description:
        'Purges punches, attendance days, finished commands, deliveries, device events and templates of long-deactivated enrollees past their RETENTION_* limits, redacts personal data from the event and audit logs and erases long-inactive employees of the built-in directory past RETENTION_PUNCHES_DAYS, and deletes the databases a restore replaced once RESTORE_KEEP_REPLACED has passed.',
      run: () => retention.purge(),
      // A server off at 03:30 every night would never purge: a missed night is run at start.
      catchUp: {},
    },
  ];
}
