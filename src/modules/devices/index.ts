/** Terminals as records: registration, approval, settings, health, the device log. */
export type { DeviceChanges, DeviceEvents, DeviceRef } from './events';
export { deviceJobs } from './jobs';
export { AreaNames, SerialParams } from './model';
export { nextParameters, type ParameterMode, sameParameters } from './parameters';
export { deviceRoutes } from './routes';
export {
  type DetailPart,
  type DeviceContact,
  type DeviceDetail,
  type DeviceReport,
  type DeviceRow,
  DeviceService,
  type DeviceView,
  deviceRef,
  noteOnDevice,
  takesBiodata,
} from './service';
export { DEVICE_STATUSES, type DeviceStatus } from './tables';
export type { DeviceUserRow, DeviceUsers, ReportedUser } from './users';
