/** Areas: the scope of terminals and enrollees, and `areas/` to manage them. */
export { AreaCatalog } from './catalog';
export { areaRoutes } from './routes';
export { areaNames, knownAreaIds, namesByMember, resolveAreas } from './service';
