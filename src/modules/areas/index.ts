/** Areas: the scope of terminals and enrollees, and `areas/` to manage them. */
export { AreaCatalog } from './catalog';
export { areaNames, knownAreaIds, namesByMember, resolveAreas } from './names';
export { areaRoutes } from './routes';
