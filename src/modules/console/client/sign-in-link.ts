/**
 * The page of a one-time console sign-in link (`/console/sign-in#token=fpc_…`, what
 * `npm run fpa:console-link` prints). The token rides after `#`: a browser never sends that part
 * to the server, so it is in no proxy's access log, and the page sends no Referer either. This
 * script reads it, asks whom it signs in (which does not spend it: a chat app previewing the link
 * cannot burn it), and spends it when the person presses *Sign in*; the server then sets the
 * session cookie and the console opens.
 *
 * The page's policy is `no-referrer`, under which a browser would send `Origin: null` with a post;
 * each post here asks for `same-origin` instead, so it carries the page's own origin (which the
 * check of where a sign-in comes from needs), and sends no Referer.
 */

const GONE = 'This sign-in link is no longer valid: it has been used, it has expired, or whoever made it can no longer sign in.';
const MISSING = 'This sign-in link is incomplete: copy the whole link, up to its end, into the address bar.';
const UNREACHABLE = 'The server could not be reached. Check your connection and try again.';

const post = (path: string, body: BodyInit, contentType: string) =>
  fetch(path, {
    method: 'POST',
    headers: { 'content-type': contentType },
    body,
    credentials: 'same-origin',
    // No Referer; but `Origin` is sent as under `same-origin` (see above).
    referrer: '',
    referrerPolicy: 'same-origin',
    redirect: 'manual',
    cache: 'no-store',
  });

function byId<T extends HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`the sign-in page has no #${id}`);
  return found as T;
}

/** Says what went wrong in place of the form, with the way back to the sign-in page. */
function refuse(status: HTMLElement, form: HTMLElement, text: string): void {
  form.hidden = true;
  status.className = 'error';
  status.setAttribute('role', 'alert');
  status.textContent = text;
  const back = document.createElement('p');
  const link = document.createElement('a');
  link.href = './';
  link.textContent = 'Sign in';
  back.append(link, ' with your account, or ask whoever gave you the link for a new one: a link works once, for a few minutes.');
  status.after(back);
}

async function start(): Promise<void> {
  const status = byId('link-status');
  const form = byId<HTMLFormElement>('link-form');
  const token = new URLSearchParams(location.hash.slice(1)).get('token') ?? '';
  if (!token) return refuse(status, form, MISSING);
  let checked: Response;
  try {
    checked = await post('sign-in/check', JSON.stringify({ token }), 'application/json');
  } catch {
    return refuse(status, form, UNREACHABLE);
  }
  if (checked.status !== 200) return refuse(status, form, GONE);
  const { actor } = (await checked.json()) as { actor: string };
  byId('link-actor').textContent = actor;
  status.textContent = '';
  form.hidden = false;
  form.querySelector('button')?.focus();
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const button = form.querySelector('button');
    if (button) button.disabled = true;
    try {
      // 303 to the console with the session cookie set: the redirect is not followed here.
      const spent = await post('sign-in', new URLSearchParams({ token }).toString(), 'application/x-www-form-urlencoded');
      if (spent.type !== 'opaqueredirect') return refuse(status, form, GONE);
    } catch {
      if (button) button.disabled = false;
      status.textContent = UNREACHABLE;
      return;
    }
    // The spent link leaves the address bar and the history.
    location.replace('./');
  });
}

void start();
