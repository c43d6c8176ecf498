/** `users/` and `api-keys/` (API.md "People who sign in"): thin over the services. */
import { Elysia, t } from 'elysia';
import type { Settings } from '../../platform/config/settings';
import { errors } from '../../platform/http/model';
import { adminRouter, type Http } from '../../platform/http/router';
import { reachableHost } from '../../platform/net/lan';
import { CONSOLE_PATH, type ConsoleService } from '../console';
import type { ApiKeys } from './api-keys';
import {
  ApiKeyCreate,
  ApiKeyCreated,
  ApiKeyList,
  ApiKeyParams,
  InviteLink,
  Me,
  PasswordChange,
  User,
  UserCreate,
  UserCreated,
  UserList,
  UserParams,
  UserPatch,
} from './model';
import type { UsersService } from './service';
import type { PasswordSignIn } from './sign-in';

const tags = ['users'];

/** The address a server listens on, as Bun's server says it (Elysia's `server`); null when none is known. */
type Listening = { hostname?: string; port?: number } | null;

/**
 * Where invite and reset links point: CONSOLE_URL's origin and path, else the address the server
 * listens on as people reach it (its LAN address when it listens on every interface), as the
 * scripts print it (app/console-base.ts), and failing that HOST and PORT. Never the request's
 * `Host` header: anyone can send one, and a link to an address of their choosing, handed to the
 * person invited, would take their new password there.
 */
export function consoleBase(settings: Readonly<Settings>, server: Listening): string {
  if (settings.CONSOLE_URL) return settings.CONSOLE_URL.replace(/\/+$/, '').replace(new RegExp(`${CONSOLE_PATH}$`), '');
  const host = server?.hostname || settings.HOST;
  const port = server?.port || settings.PORT;
  return `http://${reachableHost(host)}:${port}`;
}

/** Siblings, not parent and child: the other routes' administrator check must not run before the invite's. */
export function userRoutes(http: Http, deps: { users: UsersService; signIn: PasswordSignIn; sessions: ConsoleService }) {
  const { users } = deps;
  return new Elysia({ name: 'fpa-users-routes', seed: http.runtime.instanceId }).use(inviteRoute(http, users)).use(accountRoutes(http, deps));
}

/** `POST users/` also takes the lock file's operator token: `bun run fpa:create-user` asks a running server. */
function inviteRoute(http: Http, users: UsersService) {
  const settings = http.runtime.settings;
  return adminRouter(http, 'users-invite', { allowOperatorToken: true }).post(
    '/users',
    async ({ admin, body, server, set }) => {
      const created = await users.create(admin, body, consoleBase(settings, server ?? http.served?.at ?? null));
      set.status = 201;
      return created;
    },
    {
      body: UserCreate,
      response: { 201: UserCreated, ...errors('conflict', 'unknown_area') },
      detail: { summary: 'Invite someone: the account and its one-time `invite_url` (valid USER_INVITE_TTL), shown this once', tags },
    },
  );
}

function accountRoutes(http: Http, deps: { users: UsersService; signIn: PasswordSignIn; sessions: ConsoleService }) {
  const { users, signIn, sessions } = deps;
  const settings = http.runtime.settings;
  return adminRouter(http, 'users')
    .get('/users', ({ admin, query }) => users.list(admin, { ...query, limit: query.limit ?? 100 }), {
      query: UserList.query,
      response: { 200: UserList.response, ...errors('invalid_cursor') },
      detail: { summary: 'People who sign in (limited callers see those sharing an area)', tags },
    })
    .get('/users/me', ({ admin }) => users.me(admin), {
      response: { 200: Me },
      detail: { summary: 'The caller: user, API key or token, with role and areas', tags },
    })
    .post(
      '/users/me/password',
      async ({ admin, body, request, set }) => {
        await signIn.changePassword(admin, body.current_password, body.new_password, sessions.sessionIdOf(request));
        set.status = 204;
      },
      {
        body: PasswordChange,
        response: { 204: t.Void(), ...errors('rate_limited') },
        detail: { summary: 'Change your own password (your other sessions end)', tags },
      },
    )
    .get('/users/:id', ({ admin, params }) => users.get(admin, params.id), {
      params: UserParams,
      response: { 200: User, ...errors('not_found') },
      detail: { summary: 'One user', tags },
    })
    .patch('/users/:id', ({ admin, params, body }) => users.update(admin, params.id, body), {
      params: UserParams,
      body: UserPatch,
      response: { 200: User, ...errors('not_found', 'conflict', 'unknown_area') },
      detail: { summary: 'Change name, email, role, areas or `disabled` (disabling ends sessions and API keys at once)', tags },
    })
    .delete(
      '/users/:id',
      async ({ admin, params, set }) => {
        await users.remove(admin, params.id);
        set.status = 204;
      },
      {
        params: UserParams,
        response: { 204: t.Void(), ...errors('not_found', 'conflict') },
        detail: { summary: 'Remove a user: sessions end and API keys are revoked at once', tags },
      },
    )
    .post('/users/:id/reset', ({ admin, params, server }) => users.reset(admin, params.id, consoleBase(settings, server ?? http.served?.at ?? null)), {
      params: UserParams,
      response: { 200: InviteLink, ...errors('not_found', 'conflict') },
      detail: { summary: 'A new one-time `invite_url` that sets a new password; the old password and every session end now', tags },
    });
}

export function apiKeyRoutes(http: Http, keys: ApiKeys) {
  const keyTags = ['api-keys'];
  return adminRouter(http, 'api-keys')
    .get('/api-keys', ({ admin, query }) => keys.list(admin, { ...query, limit: query.limit ?? 100 }), {
      query: ApiKeyList.query,
      response: { 200: ApiKeyList.response, ...errors('invalid_cursor') },
      detail: { summary: 'API keys (never the keys themselves), with their last use', tags: keyTags },
    })
    .post(
      '/api-keys',
      async ({ admin, body, set }) => {
        const created = await keys.create(admin, body);
        set.status = 201;
        return created;
      },
      {
        body: ApiKeyCreate,
        response: { 201: ApiKeyCreated, ...errors('unknown_area') },
        detail: { summary: 'Create an API key `fpa_key_…` with a role and areas; the key is shown this once', tags: keyTags },
      },
    )
    .delete(
      '/api-keys/:id',
      async ({ admin, params, set }) => {
        await keys.revoke(admin, params.id);
        set.status = 204;
      },
      {
        params: ApiKeyParams,
        response: { 204: t.Void(), ...errors('not_found') },
        detail: { summary: 'Revoke an API key at once', tags: keyTags },
      },
    );
}
