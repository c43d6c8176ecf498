/** Accounts for tests: invite someone, complete the invite, sign in with a password (over HTTP, no browser). */
import type { ConsoleCookie } from './console';
import type { ApiClient, TestServer } from './harness';

export const PASSWORD = 'correct horse battery staple';

/** The token of an invite link (`…/console/#/invite/<token>`). */
export const inviteToken = (url: string) => url.split('#/invite/')[1] ?? '';

const json = (server: TestServer, path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: server.url, ...headers },
    body: JSON.stringify(body),
  });

/** The session a sign-in response set, with its CSRF token. */
async function sessionOf(server: TestServer, res: Response): Promise<ConsoleCookie> {
  if (res.status !== 204) throw new Error(`sign-in answered ${res.status}: ${await res.text()}`);
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const session = await fetch(`${server.url}/console/session`, { headers: { cookie } });
  const body = (await session.json()) as { csrf_token: string };
  return { cookie, csrf: body.csrf_token };
}

export const completeInviteRaw = (server: TestServer, token: string, password: string) => json(server, '/console/invite', { token, password });
export const passwordSignInRaw = (server: TestServer, username: string, password: string, headers: Record<string, string> = {}) =>
  json(server, '/console/password', { username, password }, headers);

export async function completeInvite(server: TestServer, url: string, password = PASSWORD): Promise<ConsoleCookie> {
  return sessionOf(server, await completeInviteRaw(server, inviteToken(url), password));
}

export async function passwordSignIn(server: TestServer, username: string, password = PASSWORD): Promise<ConsoleCookie> {
  return sessionOf(server, await passwordSignInRaw(server, username, password));
}

/** Invites `username` with `role` (as `by`, the server's admin token by default) and completes the invite. */
export async function makeUser(
  server: TestServer,
  username: string,
  role: string,
  options: { areas?: string[]; by?: ApiClient; password?: string } = {},
): Promise<{ id: string; session: ConsoleCookie }> {
  const created = await (options.by ?? server.admin).post('/users/', { name: username, username, role, areas: options.areas ?? [] });
  if (created.status !== 201) throw new Error(`invite answered ${created.status}: ${JSON.stringify(created.body)}`);
  return { id: created.body.id, session: await completeInvite(server, created.body.invite_url, options.password) };
}

/** An API client riding a console session (cookie + CSRF header). */
export function sessionClient(server: TestServer, session: ConsoleCookie): ApiClient {
  const Client = server.admin.constructor as new (base: string, headers: Record<string, string>) => ApiClient;
  return new Client(`${server.url}/api/fingerprint/v1`, { cookie: session.cookie, 'x-fpa-csrf': session.csrf });
}
