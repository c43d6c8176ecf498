import type { JobDefinition } from '../jobs';
import type { DeviceService } from './service';

export function deviceJobs(devices: DeviceService): JobDefinition[] {
  return [
    {
      name: 'check-devices',
      schedule: '0 * * * * *',
      description: 'Marks terminals silent for DEVICE_OFFLINE_AFTER offline.',
      run: () => devices.registration.checkDevices(),
    },
    {
      name: 'expire-pending-devices',
      schedule: '0 23 * * * *',
      description: 'Forgets terminals that registered themselves and were not approved within ADMS_PENDING_EXPIRY.',
      run: () => devices.registration.expirePending(),
    },
  ];
}
