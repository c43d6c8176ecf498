/** Areas: the scope of terminals and enrollees. */
export { areaNames, DEFAULT_AREA, namesByMember, resolveAreas } from './service';
