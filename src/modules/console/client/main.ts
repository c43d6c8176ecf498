/**
 * The console's client: a shell (navigation, who is signed in, a live status region) and one
 * page per hash route (`#/terminals/CKJF…`). Hash routes keep every page on `/console/`, so the
 * server serves one HTML file and the back button works without a round trip.
 */

import type { MeView } from '../../users';
import { ApiError, api, can, loadSession, type SessionInfo, useSession } from './api';
import { forgetAreas } from './area-picker';
import { announce, button, closeMessageOnEscape, forgetAnnouncement, h, replace } from './dom';
import { plainMessage } from './form-errors';
import { anomaliesPage } from './pages/anomalies';
import { apiKeysPage } from './pages/api-keys';
import { areaPage, areasPage } from './pages/areas';
import { attendancePage } from './pages/attendance';
import { importPage } from './pages/import';
import { integrationsPage } from './pages/integrations';
import { operationsPage } from './pages/operations';
import { overviewPage } from './pages/overview';
import { peoplePage } from './pages/people';
import { personPage } from './pages/person';
import { profilePage } from './pages/profile';
import { punchImportPage } from './pages/punch-import';
import { punchesPage } from './pages/punches';
import { reportsPage } from './pages/reports';
import { shiftsPage } from './pages/shifts';
import { terminalPage } from './pages/terminal';
import { terminalsPage } from './pages/terminals';
import { todayPage } from './pages/today';
import { usersPage } from './pages/users';
import { ROLE_NAMES } from './roles';
import { drawSecondFactor, enrollmentNeeded, pendingSignIn } from './second-factor';
import { invitePage, signInForm } from './sign-in';

/** A page draws into `main` and may return a cleanup (close a stream, stop a timer). */
export type Page = (main: HTMLElement, params: string[]) => Promise<(() => void) | undefined>;

/**
 * The routes. `allowed` names the main action of a page below a navigation entry (a person, an
 * import form): a role that may not do it gets "Not available", as for a navigation entry it
 * does not have, rather than a form whose every answer would be 403.
 */
const ROUTES: { pattern: RegExp; page: Page; nav: string; allowed?: () => boolean }[] = [
  // The board for those who may read attendance; the overview for the others (an installer).
  { pattern: /^\/?$/, page: (main) => (can('GET attendance/today/') ? todayPage(main) : overviewPage(main)), nav: '' },
  { pattern: /^\/overview\/?$/, page: overviewPage, nav: 'overview' },
  { pattern: /^\/terminals\/?$/, page: terminalsPage, nav: 'terminals' },
  { pattern: /^\/terminals\/([^/]+)\/?$/, page: terminalPage, nav: 'terminals', allowed: () => can('GET devices/{sn}/') },
  { pattern: /^\/people\/?$/, page: peoplePage, nav: 'people' },
  { pattern: /^\/people\/import\/?$/, page: importPage, nav: 'people', allowed: () => can('POST employees/import/') },
  { pattern: /^\/people\/([^/]+)\/?$/, page: personPage, nav: 'people', allowed: () => can('GET enrollees/{id}/') },
  { pattern: /^\/areas\/?$/, page: areasPage, nav: 'areas' },
  { pattern: /^\/areas\/([^/]+)\/?$/, page: areaPage, nav: 'areas', allowed: () => can('GET areas/{name}/') },
  { pattern: /^\/shifts\/?$/, page: shiftsPage, nav: 'shifts' },
  { pattern: /^\/punches\/?$/, page: punchesPage, nav: 'punches' },
  { pattern: /^\/punches\/import\/?$/, page: punchImportPage, nav: 'punches', allowed: () => can('POST punches/import/') },
  { pattern: /^\/attendance\/?$/, page: attendancePage, nav: 'attendance' },
  { pattern: /^\/anomalies\/?$/, page: anomaliesPage, nav: 'anomalies' },
  { pattern: /^\/reports\/?$/, page: reportsPage, nav: 'reports' },
  { pattern: /^\/reports\/([^/]+)\/?$/, page: reportsPage, nav: 'reports', allowed: () => can('GET reports/*/preview/') },
  { pattern: /^\/integrations\/?$/, page: integrationsPage, nav: 'integrations' },
  // An endpoint's deliveries, for those who see webhooks; hr sees the agents' half, as on the page itself.
  { pattern: /^\/integrations\/([^/]+)\/?$/, page: integrationsPage, nav: 'integrations' },
  { pattern: /^\/operations\/?$/, page: operationsPage, nav: 'operations' },
  { pattern: /^\/users\/?$/, page: usersPage, nav: 'users' },
  { pattern: /^\/api-keys\/?$/, page: apiKeysPage, nav: 'api-keys' },
  { pattern: /^\/profile\/?$/, page: profilePage, nav: 'profile' },
];

/** The pages of the navigation, each shown only to a role that may read what it shows. */
const NAV: { path: string; label: string; shown: () => boolean }[] = [
  { path: '', label: 'Today', shown: () => can('GET attendance/today/') },
  { path: 'overview', label: 'Overview', shown: () => true },
  { path: 'terminals', label: 'Terminals', shown: () => can('GET devices/') },
  { path: 'people', label: 'People', shown: () => can('GET enrollees/') },
  { path: 'areas', label: 'Areas', shown: () => can('GET areas/') },
  { path: 'shifts', label: 'Shifts', shown: () => can('GET calendar/roster/') },
  { path: 'punches', label: 'Punches', shown: () => can('GET punches/') },
  { path: 'attendance', label: 'Attendance', shown: () => can('GET attendance-days/') },
  { path: 'anomalies', label: 'Anomalies', shown: () => can('GET anomalies/') },
  { path: 'reports', label: 'Reports', shown: () => can('GET reports/daily.*') },
  { path: 'integrations', label: 'Integrations', shown: () => can('GET webhooks/') || can('GET enrollment-agents/') },
  { path: 'operations', label: 'Operations', shown: () => can('GET jobs/') || can('GET audit-log/') || can('GET events/') },
  { path: 'users', label: 'Users', shown: () => can('GET users/') },
  { path: 'api-keys', label: 'API keys', shown: () => can('GET api-keys/') },
];

const app = document.getElementById('app') as HTMLElement;
let cleanup: (() => void) | undefined;

function signedOut(): void {
  cleanup?.();
  cleanup = undefined;
  current = null;
  signInForm(app, signedIn, 'You are not signed in, or your session has ended.');
}

/**
 * After signing in (password, second factor, an invite's password), the console's first page
 * takes focus: the sign-in form it was on is gone, and focus was left on <body>.
 */
const signedIn = () => void start({ focusFirstPage: true });

/** Who is signed in, as the header says it: the name, and a role limited to areas with them. */
function whoText(session: SessionInfo): string {
  const where = session.areas.length > 0 ? ` in ${session.areas.join(', ')}` : '';
  return `Signed in as ${session.actor} (${session.role}${where})`;
}

/** A user: their name, linking to their profile, and their role; any other credential: who and its role. */
function whoLabel(session: SessionInfo, me: MeView | null): HTMLElement {
  if (!me) return h('span', {}, whoText(session));
  const name = me.name;
  return h(
    'a',
    { href: '#/profile', class: 'who-name', title: 'Your profile' },
    `Signed in as ${name}`,
    h('span', { class: 'role' }, `${ROLE_NAMES[me.role] ?? me.role}${me.areas.length > 0 ? ` in ${me.areas.join(', ')}` : ''}`),
  );
}

function shell(session: SessionInfo, me: MeView | null): HTMLElement {
  const nav = h(
    'nav',
    { 'aria-label': 'Main' },
    h('ul', {}, ...NAV.filter((n) => n.shown()).map(({ path, label }) => h('li', {}, h('a', { href: `#/${path}`, 'data-nav': path }, label)))),
  );
  const signOut = button('Sign out', async () => {
    try {
      await api.post('/console/sign-out');
    } catch {
      // signed out either way
    }
    signedOut();
  });
  const main = h('main', { id: 'main', tabindex: -1 });
  replace(
    app,
    h('a', { class: 'skip', href: '#main' }, 'Skip to content'),
    h(
      'header',
      { class: 'top' },
      h('a', { class: 'brand', href: '#/' }, 'Attendance console'),
      enrolling ? null : nav,
      h('div', { class: 'who' }, whoLabel(session, me), signOut),
    ),
    h('div', { id: 'status', class: 'status', role: 'status', 'aria-live': 'polite' }),
    main,
  );
  // The skip link moves focus without changing the hash route.
  app.querySelector('.skip')?.addEventListener('click', (event) => {
    event.preventDefault();
    main.focus();
  });
  return main;
}

async function route(main: HTMLElement): Promise<void> {
  cleanup?.();
  cleanup = undefined;
  forgetAnnouncement();
  forgetAreas();
  const path = enrolling ? '/profile' : decodeURIComponent(location.hash.replace(/^#/, '').split('?')[0] ?? '');
  const found = ROUTES.map((r) => ({ r, m: r.pattern.exec(path) })).find((x) => x.m);
  // The home page is the board, or the overview for a role that reads no attendance (an installer).
  const nav = found?.r.nav === '' && !can('GET attendance/today/') ? 'overview' : (found?.r.nav ?? null);
  for (const link of Array.from(document.querySelectorAll<HTMLAnchorElement>('[data-nav]'))) {
    if (link.dataset.nav === nav) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  if (!found?.m) {
    replace(main, h('h1', {}, 'Not found'), h('p', {}, h('a', { href: '#/' }, 'Back to Today')));
    return;
  }
  // A page the role may not use is not drawn (its requests would answer 403): a page of the
  // navigation it does not have, or a page below one whose main action it may not do (a viewer
  // opening `#/people/import` by its address).
  if (NAV.some((n) => n.path === nav && !n.shown()) || found.r.allowed?.() === false) {
    replace(
      main,
      h('h1', {}, 'Not available'),
      h('p', {}, 'Your role does not include this page.'),
      h('p', {}, h('a', { href: '#/' }, 'Back to the overview')),
    );
    return;
  }
  // Each visit draws into its own container: an answer that arrives after the person has moved on
  // redraws a detached container, never the page they are on now.
  const view = h('div', { class: 'view' }, h('p', { class: 'loading' }, 'Loading…'));
  replace(main, view);
  try {
    cleanup = await found.r.page(view, found.m.slice(1));
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return;
    replace(view, h('h1', {}, failedHeading(error)), h('p', { class: 'error', role: 'alert' }, plainMessage(error)));
  }
  const heading = main.querySelector('h1');
  if (heading) {
    heading.setAttribute('tabindex', '-1');
    document.title = `${heading.textContent ?? ''}: Attendance console`;
  }
}

/** The heading of a page that could not be drawn: what happened, in a word (the message below says what to do). */
function failedHeading(error: unknown): string {
  if (!(error instanceof ApiError)) return 'Something went wrong';
  if (error.status === 0) return 'No connection';
  if (error.status === 403) return 'Not allowed';
  if (error.status === 404) return 'Not found';
  return 'Something went wrong';
}

/** `#/invite/<token>`: the page of an invite or reset link, shown signed in or not. */
const inviteToken = () => /^#\/invite\/([A-Za-z0-9_-]+)$/.exec(location.hash)?.[1] ?? null;

let listening = false;
/** The signed-in user must set up a second factor first (their role requires one): the shell shows their profile only. */
let enrolling = false;
/** The router of the shell on screen. */
let current: (() => Promise<void>) | null = null;

async function start(options: { focusFirstPage?: boolean } = {}): Promise<void> {
  const token = inviteToken();
  if (token) {
    await invitePage(app, token, signedIn);
    return;
  }
  let session: SessionInfo | null;
  try {
    session = await loadSession();
  } catch (error) {
    replace(
      app,
      h('main', { class: 'signin' }, h('h1', {}, 'Attendance console'), h('p', { class: 'error' }, error instanceof Error ? error.message : String(error))),
    );
    return;
  }
  if (!session) {
    // A right password whose second factor is still to come: that step again (a reload keeps it).
    const pending = await pendingSignIn();
    if (pending) drawSecondFactor(app, pending, () => signInForm(app, signedIn), signedIn);
    else signInForm(app, signedIn);
    return;
  }
  useSession(session, signedOut);
  const me = await api.get<MeView>('users/me/').catch(() => null);
  // A role that requires a second factor, and none set up: only the profile, to set one up.
  enrolling = me?.kind === 'user' && (await enrollmentNeeded());
  document.documentElement.dataset.enrolling = String(enrolling);
  const main = shell(session, me);
  // Focus follows navigation (not on the page's first load, where the skip link comes first; but
  // after signing in, whose form is gone), so keyboard and screen-reader users land on the new page.
  let focusNext = options.focusFirstPage === true;
  const go = async () => {
    await route(main);
    // Not when the person is already in the new page (typing in a field drawn before the rest of
    // it loaded): taking the focus then would drop what they type, and their search's answer.
    const active = document.activeElement;
    const inPage = active !== main && main.contains(active);
    if (focusNext && !inPage) (main.querySelector('h1') ?? main).focus();
    focusNext = true;
  };
  current = go;
  if (!listening) {
    // Listeners are added once: signing in again (after a session ended) starts a new shell.
    listening = true;
    closeMessageOnEscape();
    window.addEventListener('hashchange', () => (inviteToken() ? void start() : void current?.()));
    window.addEventListener('unhandledrejection', (event) => {
      const reason: unknown = event.reason;
      if (reason instanceof ApiError && reason.status !== 401) announce(plainMessage(reason), 'bad');
    });
  }
  await go();
}

void start();
