import type { JobDefinition } from '../jobs';
import type { Completeness } from './service';

export function completenessJobs(completeness: Completeness): JobDefinition[] {
  return [
    {
      name: 'check-completeness',
      schedule: '30 * * * * *',
      description:
        'Compares each terminal’s reported record count with the punches stored from it: a lasting difference is a gap (`punch_gap_found`) and a re-upload of the range is queued; finishes answered re-uploads.',
      run: () => completeness.check(),
    },
  ];
}
