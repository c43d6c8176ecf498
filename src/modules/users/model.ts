/** The users module's HTTP model: users, invites, sign-in, API keys. */
import type { Static } from '@sinclair/typebox';
import { t } from 'elysia';
import { ROLES } from '../../platform/http/caller';
import { Body, Instant, InstantInput, Nullable, OneOf, Page, PageQuery, saidAs, Text } from '../../platform/http/model';

/** Passwords are at least this long (API.md): length, not character classes, makes them strong. */
export const PASSWORD_MIN = 12;
/** Longer passwords are refused (Argon2 takes any length, but a megabyte password is an attack). */
export const PASSWORD_MAX = 256;

const RoleField = OneOf(ROLES, 'owner, admin, hr, manager, installer or viewer (API.md "People who sign in").');
const Areas = t.Array(Text({ maxLength: 100 }), {
  maxItems: 100,
  description: 'Area names from `areas/` the account is limited to; empty: every area. An unknown name is 422.',
});
const Username = t.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$',
  description: 'Letters, digits, `.`, `_`, `@`, `-`; unique whatever the case.',
});
const Email = saidAs(
  t.String({
    minLength: 3,
    maxLength: 254,
    pattern: '^[^\\s@]+@[^\\s@]+$',
    description: 'Unique whatever the case; single sign-on matches users by it.',
  }),
  'an e-mail address',
);
/** The length is in the pattern too (no control characters, 12 to 256 of them), so generators of examples honour it. */
const Password = t.String({
  minLength: PASSWORD_MIN,
  maxLength: PASSWORD_MAX,
  pattern: `^[^\\u0000-\\u001f\\u007f]{${PASSWORD_MIN},${PASSWORD_MAX}}$`,
  description: `At least ${PASSWORD_MIN} characters.`,
});

export const UserParams = t.Object({ id: Text({ maxLength: 64 }) });

export const User = t.Object(
  {
    id: t.String(),
    username: t.String(),
    name: t.String(),
    email: Nullable(t.String()),
    role: RoleField,
    areas: t.Array(t.String()),
    disabled: t.Boolean(),
    status: OneOf(['invited', 'active', 'disabled'] as const, '`invited` until a password is chosen.'),
    second_factor: OneOf(['none', 'totp', 'passkey'] as const),
    created_at: Instant(),
    updated_at: Instant(),
    created_by: t.String(),
  },
  { title: 'User' },
);
export type UserView = Static<typeof User>;

const InviteFields = {
  invite_url: t.String({ description: 'The one-time link that sets the password; shown this once.' }),
  invite_expires_at: Instant(),
};

export const UserCreated = t.Composite([User, t.Object(InviteFields)], { title: 'UserCreated' });
export const InviteLink = t.Object({ user: User, ...InviteFields }, { title: 'InviteLink' });
export type InviteLinkView = Static<typeof InviteLink>;

export const UserList = { query: t.Object({ ...PageQuery }), response: Page(User) };

export const UserCreate = Body(
  { name: Text({ maxLength: 200 }), username: Username, email: t.Optional(Nullable(Email)), role: RoleField, areas: t.Optional(Areas) },
  { title: 'UserCreate' },
);
export type UserCreateInput = Static<typeof UserCreate>;

export const UserPatch = Body(
  {
    name: t.Optional(Text({ maxLength: 200 })),
    email: t.Optional(Nullable(Email)),
    role: t.Optional(RoleField),
    areas: t.Optional(Areas),
    disabled: t.Optional(t.Boolean({ description: '`true` ends the user’s sessions and API keys at once.' })),
  },
  { title: 'UserPatch' },
);
export type UserPatchInput = Static<typeof UserPatch>;

export const Me = t.Object(
  {
    id: t.String(),
    kind: t.String({ description: 'What the caller is: `user`, `api_key`, `token`, `host`, `operator`.' }),
    name: t.String(),
    username: t.String(),
    email: Nullable(t.String()),
    role: RoleField,
    areas: t.Array(t.String()),
    second_factor: OneOf(['none', 'totp', 'passkey'] as const),
    expires_at: Nullable(Instant()),
  },
  { title: 'Me' },
);
export type MeView = Static<typeof Me>;

export const PasswordChange = Body({ current_password: Text({ maxLength: PASSWORD_MAX }), new_password: Password }, { title: 'PasswordChange' });

export const PasswordSignIn = Body({ username: t.String({ maxLength: 254 }), password: t.String({ maxLength: PASSWORD_MAX }) }, { title: 'PasswordSignIn' });
export const InviteToken = Body({ token: t.String({ maxLength: 200 }) }, { title: 'InviteToken' });
export const InviteComplete = Body({ token: t.String({ maxLength: 200 }), password: Password }, { title: 'InviteComplete' });
export const InviteInfo = t.Object({
  username: t.String(),
  name: t.String(),
  purpose: OneOf(['invite', 'reset'] as const),
  expires_at: Instant(),
  password_min_length: t.Integer(),
});
export type InviteInfoView = Static<typeof InviteInfo>;

export const ApiKeyParams = t.Object({ id: Text({ maxLength: 64 }) });

export const ApiKey = t.Object(
  {
    id: t.String(),
    name: t.String(),
    role: RoleField,
    areas: t.Array(t.String()),
    prefix: t.String({ description: 'The first characters of the key, to tell keys apart (never enough to use it).' }),
    created_at: Instant(),
    created_by: t.String(),
    expires_at: Nullable(Instant()),
    revoked_at: Nullable(Instant()),
    last_used_at: Nullable(Instant('Recorded at most once a minute.')),
    status: OneOf(['active', 'expired', 'revoked'] as const),
  },
  { title: 'ApiKey' },
);
export type ApiKeyView = Static<typeof ApiKey>;

export const ApiKeyCreated = t.Composite(
  [ApiKey, t.Object({ key: t.String({ description: '`fpa_key_…`, shown this once: send it as `Authorization: Bearer <key>`.' }) })],
  {
    title: 'ApiKeyCreated',
  },
);
export type ApiKeyCreatedView = Static<typeof ApiKeyCreated>;

export const ApiKeyCreate = Body(
  {
    name: Text({ maxLength: 200 }),
    role: RoleField,
    areas: t.Optional(Areas),
    expires_at: t.Optional(Nullable(InstantInput('When the key stops working; none: never.'))),
  },
  { title: 'ApiKeyCreate' },
);
export type ApiKeyCreateInput = Static<typeof ApiKeyCreate>;

export const ApiKeyList = { query: t.Object({ ...PageQuery }), response: Page(ApiKey) };
