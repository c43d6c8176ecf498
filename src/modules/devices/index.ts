/** Terminals as records: registration, approval, settings, health, the device log. */

export { noteOnDevice } from './device-log';
export { speaksSecurityPush, takesBiodata } from './dialect';
export { type DeviceEvents, type DeviceRef, deviceRef } from './events';
export { NEW_ADDRESS_FLAG, type Trust } from './identity';
export { devicesInArea } from './in-area';
export { deviceJobs } from './jobs';
export { allTerminals, type LogEntry, newestLogEntries, newestLogEntryOf, terminalsByIds, terminalsWithKeys } from './lookup';
export { AreaNames, type DeviceDetailView, type DeviceKeyView, type DeviceView, SerialParams } from './model';
export { nextParameters, type ParameterMode, sameParameters } from './parameters';
export type { RegistrationRefusal } from './refusals';
export { noteRefused, usersRefusedFor } from './refused-parts';
export type { DeviceContact } from './registration';
export type { AttendanceCountListener, DeviceReport, UserCountListener } from './reports';
export { deviceRoutes } from './routes';
export { DEVICE_SETTINGS } from './runtime';
export { refuseIfSharedTerminal } from './scope';
export { DeviceService } from './service';
export type { DeviceRow } from './tables';
export { rotateTerminalPasswords, sealedTerminalPasswordSamples } from './user-passwords';
export type { DeviceUserRow, DeviceUsers, HeldUser, ReportedUser } from './users';
export type { DetailPart, DeviceDetail } from './views';
