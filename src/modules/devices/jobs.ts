import type { JobDefinition } from '../jobs';
import type { DeviceService } from './service';

export function deviceJobs(devices: DeviceService): JobDefinition[] {
  return [
    {
      name: 'check-devices',
      schedule: '0 * * * * *',
      description: 'Marks terminals silent for DEVICE_OFFLINE_AFTER offline.',
      run: () => devices.checkDevices(),
    },
  ];
}
