/** Terminals as records: registration, approval, settings, health, the device log. */
export { speaksSecurityPush } from './dialect';
export type { DeviceEvents, DeviceRef } from './events';
export { NEW_ADDRESS_FLAG, type Trust } from './identity';
export { devicesInArea } from './in-area';
export { deviceJobs } from './jobs';
export { allTerminals, type LogEntry, newestLogEntries, terminalsByIds } from './lookup';
export { AreaNames, SerialParams } from './model';
export { nextParameters, type ParameterMode, sameParameters } from './parameters';
export { deviceRoutes } from './routes';
export { DEVICE_SETTINGS } from './runtime';
export {
  type AttendanceCountListener,
  type DetailPart,
  type DeviceDetail,
  type DeviceReport,
  DeviceService,
  deviceRef,
  noteOnDevice,
  takesBiodata,
} from './service';
export type { DeviceRow } from './tables';
export type { DeviceUserRow, DeviceUsers, ReportedUser } from './users';
