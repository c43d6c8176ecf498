/** Areas: the scope of terminals and enrollees, and `areas/` to manage them. */
export { AreaCatalog, type UsageCounter } from './catalog';
export { areaRoutes } from './routes';
export { areaNames, DEFAULT_AREA, namesByMember, resolveAreas } from './service';
