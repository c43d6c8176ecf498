/**
 * A file the browser downloads itself: a hidden frame opens the file's address (same origin, so
 * the session cookie goes with it, and a GET needs no CSRF token), and the file goes from the
 * server to the disk without being held in this page (a month's timesheets of 10,000 people is
 * 40 MB). A page cannot see such a download begin: the server's answer carries a cookie for it
 * (platform/http/download-started.ts), and until it arrives the caller says "Preparing the file…".
 * A refusal is no file: the frame shows the error body instead, which is read from it.
 */
import { DOWNLOAD_STARTED_COOKIE } from '../../../platform/http/download-started';
import { API, SERVER_PROBLEM } from './api';
import { h } from './dom';

/** How the download went: on its way (the file's name), or refused (the API's error code and message). */
export type DownloadOutcome = { started: string } | { refused: { code: string; message: string } };

/** How often the cookie is looked for. */
const WATCH_MS = 200;
/**
 * A download that neither starts nor is refused within this is no longer waited for (the browser
 * still saves it if it comes): a PDF of the most rows takes seconds, a CSV or Excel file starts at once.
 */
const GIVE_UP_MS = 2 * 60_000;

/**
 * The latest download: its frame, and the end of its wait. One wait at a time: a new download
 * ends the one before (a page left while its file was prepared, then another download begun), or
 * two watches would race for the one cookie and the new one could wait in vain, "Preparing the
 * file…" for minutes. Ending a wait that is over already does nothing.
 */
let waiting: { frame: HTMLIFrameElement; end: () => void } | null = null;

function startedCookie(): string | null {
  const found = document.cookie.split('; ').find((c) => c.startsWith(`${DOWNLOAD_STARTED_COOKIE}=`));
  if (found === undefined) return null;
  try {
    return decodeURIComponent(found.slice(DOWNLOAD_STARTED_COOKIE.length + 1));
  } catch {
    return '';
  }
}

const clearStarted = () => {
  // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is missing from older Safari and Firefox, which the console serves
  document.cookie = `${DOWNLOAD_STARTED_COOKIE}=; Path=/; Max-Age=0; SameSite=Strict`;
};

/** The error a frame shows: the API's error body, or words for a page that is not one. */
function refusalIn(shown: HTMLIFrameElement): { code: string; message: string } {
  try {
    const parsed = JSON.parse(shown.contentDocument?.body?.textContent ?? '') as { error?: { code?: string; message?: string } };
    if (parsed.error?.message) return { code: parsed.error.code ?? 'error', message: parsed.error.message };
  } catch {
    // not the API's error body (a proxy's page): said in general words below
  }
  return { code: 'error', message: SERVER_PROBLEM };
}

/** Downloads `path` of the API (`reports/timesheet.xlsx?…`) the browser's way; answers once it starts or is refused. */
export function downloadFile(path: string): Promise<DownloadOutcome> {
  // The download before ends, and its frame goes: its file is on its way (or was refused) by now.
  waiting?.end();
  waiting?.frame.remove();
  clearStarted();
  const opened = h('iframe', { src: `${API}/${path}`, hidden: true, title: 'Download', tabindex: '-1', 'aria-hidden': 'true' });
  return new Promise((resolve) => {
    const since = Date.now();
    const done = (outcome: DownloadOutcome) => {
      clearInterval(watch);
      opened.onload = null;
      clearStarted();
      resolve(outcome);
    };
    // Ended by the next download: no longer waited for, as after GIVE_UP_MS.
    waiting = { frame: opened, end: () => done({ started: '' }) };
    const watch = setInterval(() => {
      const started = startedCookie();
      if (started !== null) done({ started });
      else if (Date.now() - since > GIVE_UP_MS) done({ started: '' });
    }, WATCH_MS);
    // A file being saved loads nothing in the frame: a load is the page of a refusal, unless the
    // file's cookie came first (a browser that fires the frame's load for a download too).
    opened.onload = () => {
      const started = startedCookie();
      done(started === null ? { refused: refusalIn(opened) } : { started });
    };
    document.body.append(opened);
  });
}
