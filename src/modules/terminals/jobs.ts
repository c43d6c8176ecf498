import type { JobDefinition } from '../jobs';
import type { Terminals } from './module';

export function terminalJobs(terminals: Terminals): JobDefinition[] {
  return [
    {
      name: 'sync-device-clocks',
      schedule: '0 5 * * * *',
      description: 'Queues CHECK to terminals whose zone changed its UTC offset (DST) since their last handshake.',
      run: () => terminals.clock.syncDeviceClocks(),
    },
  ];
}
