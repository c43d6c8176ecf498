/** Terminals as records: registration, approval, settings, health, the device log. */
export type { DeviceChanges, DeviceEvents, DeviceRef } from './events';
export { nextParameters, sameParameters, type ParameterMode } from './parameters';
export {
  DeviceService,
  deviceRef,
  noteOnDevice,
  takesBiodata,
  type DetailPart,
  type DeviceDetail,
  type DeviceContact,
  type DeviceReport,
  type DeviceRow,
  type DeviceView,
} from './service';
export { DEVICE_STATUSES, type DeviceStatus } from './tables';
export { deviceJobs } from './jobs';
export { AreaNames, SerialParams } from './model';
export { deviceRoutes } from './routes';
