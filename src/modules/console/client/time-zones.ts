/**
 * A time zone field (a terminal's, an area's): IANA names typed as before, with the browser's own
 * list of zones offered as the person types (a datalist, one per page), so "Kolkata" finds
 * Asia/Kolkata and a misspelt name is rarer. The server still checks what is sent.
 */
import { type Attrs, h, input } from './dom';

const LIST_ID = 'time-zone-names';

export function timeZoneInput(attrs: Attrs = {}): HTMLInputElement {
  if (!document.getElementById(LIST_ID)) document.body.append(h('datalist', { id: LIST_ID }, ...zoneNames().map((zone) => h('option', { value: zone }))));
  return input({ autocomplete: 'off', spellcheck: 'false', ...attrs, list: LIST_ID });
}

/**
 * The present names of zones renamed since the browser's list (CLDR's) took its names: Chromium
 * offers Asia/Calcutta where the tz database and the people of Kolkata say Asia/Kolkata. The old
 * names still work; the list offers the names people know.
 */
const RENAMED: Record<string, string> = {
  'Africa/Asmera': 'Africa/Asmara',
  'America/Buenos_Aires': 'America/Argentina/Buenos_Aires',
  'America/Godthab': 'America/Nuuk',
  'America/Indianapolis': 'America/Indiana/Indianapolis',
  'America/Louisville': 'America/Kentucky/Louisville',
  'Asia/Calcutta': 'Asia/Kolkata',
  'Asia/Katmandu': 'Asia/Kathmandu',
  'Asia/Rangoon': 'Asia/Yangon',
  'Asia/Saigon': 'Asia/Ho_Chi_Minh',
  'Atlantic/Faeroe': 'Atlantic/Faroe',
  'Europe/Kiev': 'Europe/Kyiv',
};

/** Every zone the browser knows, by its present name (an older browser without the list: none offered, typing works). */
function zoneNames(): string[] {
  if (typeof Intl.supportedValuesOf !== 'function') return [];
  return [...new Set(Intl.supportedValuesOf('timeZone').map((zone) => RENAMED[zone] ?? zone))].sort();
}
