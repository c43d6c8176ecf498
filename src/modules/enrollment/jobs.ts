import type { JobDefinition } from '../jobs';
import type { Enrollment } from './module';

export function enrollmentJobs(enrollment: Enrollment): JobDefinition[] {
  return [
    {
      name: 'expire-sessions',
      schedule: '45 * * * * *',
      description: 'Expires enrollment sessions past ENROLLMENT_SESSION_TTL.',
      run: () => enrollment.sessions.expireDue(),
    },
  ];
}
