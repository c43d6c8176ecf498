/** Areas: the scope of terminals and enrollees, and `areas/` to manage them. */
export { AreaCatalog } from './catalog';
export { Area, AreaDetail, AreaMember } from './model';
export { areaRoutes } from './routes';
export { areaIdOf, areaNames, closeAreaName, namesByMember, resolveAreas } from './service';
