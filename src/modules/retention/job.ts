/** Registers the daily purge-retention job (same code as `bun run fpa:purge-retention`). */
import type { Core } from '../../app/core';
import { purgeRetention } from './service';

export function registerRetentionJob(core: Core): void {
  core.jobs.register({
    name: 'purge-retention',
    schedule: '0 30 3 * * *',
    description: 'Purges punches, attendance days, finished commands, deliveries, device events and templates of long-deactivated enrollees past their RETENTION_* limits.',
    run: () => purgeRetention(core),
  });
}
