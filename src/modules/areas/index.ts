/** Areas: the scope of terminals and enrollees. */
export { DEFAULT_AREA, areaNames, namesByMember, resolveAreas } from './service';
