/** Punches: ingestion from terminals, corrections, the feed (`punches/latest/`), lists and the live stream. */
export { PunchCorrections } from './corrections';
export {
  addPunchFlags,
  byInstant,
  countFromDevice,
  countPerDateFromDevice,
  employeeKeysOf,
  type NearbyPunch,
  newestFromDeviceAt,
  punchesAt,
  punchesByIds,
  punchesNear,
  setPunchFlag,
  storedOfDevice,
} from './device-counts';
export type { LoggedPunchEvents, PunchEvents, PunchPayload } from './events';
export { Punch, type PunchImport } from './model';
export { holderAt } from './owners';
export { punchRoutes } from './routes';
export { PUNCH_SETTINGS } from './runtime';
export { type IncomingPunch, type IngestResult, type PunchFlagger, PunchService, type UploadListener } from './service';
export { punchStreamRoutes, punchStreamSource } from './stream';
export type { PunchView } from './view';
