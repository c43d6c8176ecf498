import { blob, index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * A user's TOTP authenticator: the secret sealed under the key ring (`sealed1:…`, bound to the
 * user's id; never in clear), whether it was confirmed by a first code (until then it does not
 * count), and the step of the last code accepted (a code is never accepted twice).
 */
export const userTotp = sqliteTable('fpa_user_totp', {
  userId: text('user_id').primaryKey(),
  secret: text('secret').notNull(),
  createdAt: integer('created_at').notNull(),
  confirmedAt: integer('confirmed_at'),
  lastStep: integer('last_step'),
});

/** Single-use recovery codes: only the SHA-256 of each (recovery-codes.ts), spent once. */
export const recoveryCodes = sqliteTable(
  'fpa_recovery_codes',
  {
    codeHash: text('code_hash').primaryKey(),
    userId: text('user_id').notNull(),
    createdAt: integer('created_at').notNull(),
    usedAt: integer('used_at'),
  },
  (t) => [index('fpa_recovery_codes_user').on(t.userId)],
);

/**
 * Passkeys (WebAuthn credentials): the credential id (base64url), its public key (COSE), the
 * signature counter it last reported, the transports the browser named, and a name to tell
 * them apart. Nothing here can sign in: the private key never leaves the authenticator.
 */
export const passkeys = sqliteTable(
  'fpa_passkeys',
  {
    id: text('id').primaryKey(),
    userId: text('user_id').notNull(),
    name: text('name').notNull(),
    publicKey: blob('public_key', { mode: 'buffer' }).notNull(),
    counter: integer('counter').notNull(),
    transports: text('transports', { mode: 'json' }).$type<string[]>().notNull(),
    backedUp: integer('backed_up', { mode: 'boolean' }).notNull(),
    createdAt: integer('created_at').notNull(),
    lastUsedAt: integer('last_used_at'),
  },
  (t) => [index('fpa_passkeys_user').on(t.userId)],
);

/**
 * Short-lived sign-in states, each known by the SHA-256 of a random token the browser holds:
 * `second_factor` (a correct password awaiting the second factor: it grants nothing),
 * `passkey_setup` (a signed-in user registering a passkey) and `oidc` (a trip to the identity
 * provider: PKCE verifier and nonce). `challenge` is the WebAuthn challenge when one was asked.
 */
export const signInStates = sqliteTable(
  'fpa_sign_in_states',
  {
    idHash: text('id_hash').primaryKey(),
    kind: text('kind', { enum: ['second_factor', 'passkey_setup', 'oidc'] }).notNull(),
    userId: text('user_id'),
    challenge: text('challenge'),
    data: text('data', { mode: 'json' }).$type<Record<string, string>>(),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [index('fpa_sign_in_states_expires').on(t.expiresAt)],
);

/** The roles whose users must have a second factor (set by an owner). */
export const requiredFactorRoles = sqliteTable('fpa_required_factor_roles', {
  role: text('role').primaryKey(),
  setBy: text('set_by').notNull(),
  setAt: integer('set_at').notNull(),
});
