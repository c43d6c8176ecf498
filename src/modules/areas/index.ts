/** Areas: the scope of terminals and enrollees, and `areas/` to manage them. */
export { AreaCatalog } from './catalog';
export { areaRoutes } from './routes';
export { areaIdOf, areaNames, namesByMember, resolveAreas } from './service';
