import type { JobDefinition } from '../jobs';
import type { CommandService } from './service';

export function commandJobs(commands: CommandService): JobDefinition[] {
  return [
    {
      name: 'expire-commands',
      schedule: '30 */5 * * * *',
      description: 'Expires device commands past their expiry time.',
      run: () => commands.expireOverdue(),
    },
    {
      name: 'retry-commands',
      schedule: '15 */2 * * * *',
      description: 'Resends (or fails) commands whose result never came.',
      run: () => commands.retryUnacknowledged(),
    },
  ];
}
