/** Areas: the scope of terminals and enrollees, and `areas/` to manage them. */
export { AreaCatalog } from './catalog';
export { Area, AreaDetail, AreaMember } from './model';
export {
  anyAreaZoned,
  areaIdOf,
  areaIdsNamed,
  areaNames,
  areasAfterSetting,
  areasOutside,
  areasToSet,
  areasWithin,
  areaZones,
  assertWhollyWithin,
  closeAreaName,
  knownAreaIds,
  namesByMember,
  resolveAreas,
  scopeAreaIds,
} from './names';
export { areaRoutes } from './routes';
export { AREA_SETTINGS } from './runtime';
