/** Console helpers for tests: a sign-in link from the service, and signing in over HTTP (no browser). */
import { signInPath } from '../../src/modules/console';
import type { TestServer } from './harness';

export async function consoleLink(server: TestServer, actor = 'ada@example.com'): Promise<string> {
  const link = await server.fpa.service.createConsoleLink(actor, { by: 'test' });
  return `${server.url}${signInPath(link.token)}`;
}

/** The token of a sign-in link (`…/console/sign-in#token=fpc_…`). */
export const linkToken = (link: string) => new URLSearchParams(new URL(link).hash.slice(1)).get('token') ?? '';

export interface ConsoleCookie {
  cookie: string;
  csrf: string;
}

/** Spends a link as the sign-in form would, and reads the session's CSRF token. */
export async function signInOverHttp(server: TestServer, actor?: string): Promise<ConsoleCookie> {
  const token = linkToken(await consoleLink(server, actor));
  const res = await fetch(`${server.url}/console/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: server.url },
    body: new URLSearchParams({ token }).toString(),
  });
  if (res.status !== 303) throw new Error(`sign-in answered ${res.status}`);
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const session = await fetch(`${server.url}/console/session`, { headers: { cookie } });
  const body = (await session.json()) as { csrf_token: string };
  return { cookie, csrf: body.csrf_token };
}
