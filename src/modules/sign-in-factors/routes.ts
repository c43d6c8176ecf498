/**
 * A signed-in user's own second factors (`users/me/…`: authenticator app, passkeys, recovery
 * codes) and the owner's choice of roles that must have one (`users/second-factor-policy/`).
 * Only a user has second factors: an API key, a token or a console link is refused (403).
 */
import { Elysia, t } from 'elysia';
import { FpaError } from '../../platform/errors';
import type { Caller } from '../../platform/http/caller';
import { clientAddress } from '../../platform/http/client-address';
import { errors } from '../../platform/http/model';
import { adminRouter, type Http } from '../../platform/http/router';
import {
  AddFactorBody,
  CodeBody,
  CurrentPasswordBody,
  FactorPolicyBody,
  FactorPolicyView,
  PasskeyAdded,
  PasskeyCreate,
  PasskeyParams,
  RecoveryCodesView,
  SecondFactorsView,
  TotpSetupView,
  WebAuthnOptions,
} from './model';
import { requestOrigin } from './origin';
import type { PasskeySummary } from './passkey-factor';
import type { FactorUser, FactorUserDirectory } from './ports';
import type { SecondFactors } from './service';

const tags = ['users'];
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export const passkeyView = (p: PasskeySummary) => ({
  id: p.id,
  name: p.name,
  created_at: new Date(p.createdAt).toISOString(),
  last_used_at: iso(p.lastUsedAt),
  backed_up: p.backedUp,
});

type Deps = { factors: SecondFactors; users: FactorUserDirectory };
type Ctx = { request: Request; server: Parameters<typeof clientAddress>[0] };

/** What every part needs: the signed-in user behind the caller (403 `not_a_user` otherwise), and the console's origin. */
function helpers(http: Http, users: FactorUserDirectory) {
  const settings = http.runtime.settings;
  return {
    me: async (admin: Caller): Promise<FactorUser> => {
      const user = admin.actor.kind === 'user' ? await users.byId(admin.actor.id) : null;
      if (!user)
        throw new FpaError('forbidden', 'second factors belong to a signed-in user (not an API key, a token or a sign-in link)', { reason: 'not_a_user' });
      return user;
    },
    originOf: (c: Ctx) => requestOrigin(c.request, settings, clientAddress(c.server, c.request, settings.CONSOLE_TRUST_PROXY) ?? ''),
  };
}

export function factorRoutes(http: Http, deps: Deps) {
  return new Elysia({ name: 'fpa-sign-in-factors', seed: http.runtime.instanceId })
    .use(overviewRoutes(http, deps))
    .use(totpRoutes(http, deps))
    .use(passkeyRoutes(http, deps))
    .use(policyRoutes(http, deps));
}

function overviewRoutes(http: Http, { factors, users }: Deps) {
  const { me } = helpers(http, users);
  return adminRouter(http, 'second-factors').get(
    '/users/me/second-factors',
    async ({ admin }) => {
      // Another kind of caller (a token, a sign-in link) has none, as `users/me/` says.
      if (admin.actor.kind !== 'user')
        return { second_factor: 'none' as const, totp: { confirmed_at: null }, passkeys: [], recovery_codes_left: 0, required: false, password_set: false };
      const o = await factors.overview(await me(admin));
      return {
        second_factor: o.secondFactor,
        totp: { confirmed_at: iso(o.totpConfirmedAt) },
        passkeys: o.passkeys.map(passkeyView),
        recovery_codes_left: o.recoveryCodesLeft,
        required: o.required,
        password_set: o.passwordSet,
      };
    },
    { response: { 200: SecondFactorsView, ...errors() }, detail: { summary: 'Your second factors: authenticator app, passkeys, recovery codes left', tags } },
  );
}

function totpRoutes(http: Http, { factors, users }: Deps) {
  const { me, originOf } = helpers(http, users);
  return adminRouter(http, 'second-factor-totp')
    .post(
      '/users/me/totp',
      async (context) => {
        const setup = await factors.startTotp(await me(context.admin), context.body.current_password, originOf(context).rpId);
        context.set.status = 201;
        return { secret: setup.secret, otpauth_uri: setup.uri, qr_svg: setup.qrSvg };
      },
      {
        body: AddFactorBody,
        response: { 201: TotpSetupView, ...errors('conflict', 'rate_limited') },
        detail: {
          summary: 'Start setting up an authenticator app (your current password asked again): its secret, shown once (it counts once confirmed)',
          tags,
        },
      },
    )
    .post('/users/me/totp/confirm', async ({ admin, body }) => ({ recovery_codes: await factors.totp.confirm(await me(admin), body.code) }), {
      body: CodeBody,
      response: { 200: RecoveryCodesView, ...errors('conflict') },
      detail: { summary: 'Confirm the authenticator app with its first code; answers the recovery codes when new ones were made', tags },
    })
    .post(
      '/users/me/totp/remove',
      async ({ admin, body, set }) => {
        await factors.removeTotp(await me(admin), body.current_password);
        set.status = 204;
      },
      {
        body: CurrentPasswordBody,
        response: { 204: t.Void(), ...errors('not_found', 'conflict', 'rate_limited') },
        detail: { summary: 'Remove your authenticator app (your current password asked again); with your last factor go your recovery codes', tags },
      },
    )
    .post('/users/me/recovery-codes', async ({ admin, body }) => ({ recovery_codes: await factors.newRecoveryCodes(await me(admin), body.current_password) }), {
      body: CurrentPasswordBody,
      response: { 200: RecoveryCodesView, ...errors('conflict', 'rate_limited') },
      detail: { summary: 'Ten new recovery codes, shown once (your current password asked again); the old ones stop working', tags },
    });
}

function passkeyRoutes(http: Http, { factors, users }: Deps) {
  const { me, originOf } = helpers(http, users);
  return adminRouter(http, 'second-factor-passkeys')
    .post(
      '/users/me/passkeys/options',
      // A plain copy of the options: their type is an interface, which the record model does not take.
      async (context) => ({ ...(await factors.passkeyOptions(await me(context.admin), context.body.current_password, originOf(context))) }),
      {
        body: AddFactorBody,
        response: { 200: WebAuthnOptions, ...errors('rate_limited') },
        detail: { summary: 'Options for the browser’s passkey prompt (`navigator.credentials.create`; your current password asked again)', tags },
      },
    )
    .post(
      '/users/me/passkeys',
      async (context) => {
        const { body } = context;
        // The library checks the browser's answer itself; the model only bounds it.
        const added = await factors.addPasskey(await me(context.admin), body.response, body.name ?? '', originOf(context));
        context.set.status = 201;
        return { ...passkeyView(added.passkey), recovery_codes: added.recoveryCodes };
      },
      { body: PasskeyCreate, response: { 201: PasskeyAdded, ...errors('conflict') }, detail: { summary: 'Add the passkey the browser just made', tags } },
    )
    .post(
      '/users/me/passkeys/:id/remove',
      async ({ admin, params, body, set }) => {
        await factors.removePasskey(await me(admin), params.id, body.current_password);
        set.status = 204;
      },
      {
        params: PasskeyParams,
        body: CurrentPasswordBody,
        response: { 204: t.Void(), ...errors('not_found', 'conflict', 'rate_limited') },
        detail: { summary: 'Remove one of your passkeys (your current password asked again); with your last factor go your recovery codes', tags },
      },
    );
}

function policyRoutes(http: Http, { factors }: Deps) {
  return adminRouter(http, 'second-factor-policy')
    .get('/users/second-factor-policy', async () => ({ roles: await factors.requiredRoles() }), {
      response: { 200: FactorPolicyView, ...errors() },
      detail: { summary: 'The roles whose users must have a second factor', tags },
    })
    .put(
      '/users/second-factor-policy',
      async ({ admin, body }) => {
        if (admin.role !== 'owner') throw new FpaError('forbidden', 'only an owner decides which roles need a second factor', { role: admin.role });
        return { roles: await factors.setRequiredRoles(body.roles, admin.by) };
      },
      {
        body: FactorPolicyBody,
        response: { 200: FactorPolicyView, ...errors() },
        detail: { summary: 'Choose the roles that must have a second factor (owner)', tags },
      },
    );
}
