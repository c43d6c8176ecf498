/**
 * The console lets the browser download a report itself (a hidden frame opens the report's
 * address: the file goes to the disk, never through the page), and a page cannot see such a
 * download begin. So the answer to a signed-in user's download carries this cookie: the page
 * clears it, opens the address, and says "Preparing the file…" until the cookie arrives with the
 * file's first byte (a PDF's once it is built; a CSV's or an Excel file's at once, as they stream).
 * It holds the file's name, nothing secret: readable by the page, a minute long, this site only.
 * Shared by the server (the report routes) and the console's client, which is why it is here.
 */
export const DOWNLOAD_STARTED_COOKIE = 'fpa_download_started';

/** The `Set-Cookie` of a download that is starting: `filename` as sent in its Content-Disposition. */
export function downloadStartedCookie(filename: string): string {
  return `${DOWNLOAD_STARTED_COOKIE}=${encodeURIComponent(filename)}; Path=/; SameSite=Strict; Max-Age=60`;
}
