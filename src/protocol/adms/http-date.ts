const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/** The last formatted second (replies within one second share their Date text). */
let lastSecond = Number.NaN;
let lastText = '';

/**
 * RFC 1123 date in GMT (`Tue, 23 Jun 2020 05:20:09 GMT`). Mandatory on every reply: the device
 * sets its clock from it (§7). Built by hand so the format never depends on the runtime.
 */
export function formatHttpDate(d: Date): string {
  const ms = d.getTime();
  if (Number.isNaN(ms)) throw new RangeError('formatHttpDate: invalid Date');
  // Every terminal reply carries one; at thousands of polls a second most share their second.
  const second = Math.floor(ms / 1000);
  if (second === lastSecond) return lastText;
  lastText = `${DAYS[d.getUTCDay()]}, ${pad(d.getUTCDate())} ${MONTHS[d.getUTCMonth()]} ${pad(d.getUTCFullYear(), 4)} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} GMT`;
  lastSecond = second;
  return lastText;
}
