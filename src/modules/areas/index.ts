/** Areas: the scope of terminals and enrollees, and `areas/` to manage them. */
export { AreaCatalog } from './catalog';
export { areaIdsNamed, areaNames, areasWithin, knownAreaIds, namesByMember, resolveAreas, scopeAreaIds } from './names';
export { areaRoutes } from './routes';
