import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import type { Role } from '../../platform/http/caller';

/**
 * People who sign in. `username_key` (the username in lower case) is unique, so `Ada` and `ada`
 * are one account; `email_key` likewise when an email is given. `password_hash` is an Argon2id
 * PHC string from `Bun.password` (null until the invite is completed); `disabled_at` set means
 * the account may not sign in and its sessions and API keys have been ended.
 */
export const users = sqliteTable(
  'fpa_users',
  {
    id: text('id').primaryKey(),
    username: text('username').notNull(),
    usernameKey: text('username_key').notNull(),
    name: text('name').notNull(),
    email: text('email'),
    emailKey: text('email_key'),
    role: text('role').$type<Role>().notNull(),
    passwordHash: text('password_hash'),
    passwordChangedAt: integer('password_changed_at'),
    disabledAt: integer('disabled_at'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    createdBy: text('created_by').notNull(),
  },
  (t) => [uniqueIndex('fpa_users_username').on(t.usernameKey), uniqueIndex('fpa_users_email').on(t.emailKey), index('fpa_users_role').on(t.role)],
);

/** The areas a user is limited to (by area id, so a renamed area keeps its people); none: everywhere. */
export const userAreas = sqliteTable(
  'fpa_user_areas',
  {
    userId: text('user_id').notNull(),
    areaId: text('area_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.areaId] }), index('fpa_user_areas_area').on(t.areaId)],
);

/**
 * One-time links that set a password: an invite, or a reset by an administrator. Only the
 * SHA-256 of the token is kept; `used_at` makes it single-use; a newer link for the same user
 * replaces the older ones (they are deleted).
 */
export const userInvites = sqliteTable(
  'fpa_user_invites',
  {
    tokenHash: text('token_hash').primaryKey(),
    userId: text('user_id').notNull(),
    purpose: text('purpose', { enum: ['invite', 'reset'] }).notNull(),
    createdBy: text('created_by').notNull(),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    usedAt: integer('used_at'),
  },
  (t) => [index('fpa_user_invites_user').on(t.userId)],
);

/**
 * API keys of integrators: the key's HMAC-SHA256 under a secret derived from the template key
 * ring (`hmac1:<ring key id>:<hex>`), never the key. `user_id` is the user who made it (their
 * keys end with their account); `last_used_at` is written at most once a minute per key.
 */
export const apiKeys = sqliteTable(
  'fpa_api_keys',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    role: text('role').$type<Role>().notNull(),
    digest: text('digest').notNull(),
    prefix: text('prefix').notNull(),
    userId: text('user_id'),
    createdBy: text('created_by').notNull(),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at'),
    revokedAt: integer('revoked_at'),
    lastUsedAt: integer('last_used_at'),
  },
  (t) => [uniqueIndex('fpa_api_keys_digest').on(t.digest), index('fpa_api_keys_user').on(t.userId)],
);

export const apiKeyAreas = sqliteTable(
  'fpa_api_key_areas',
  {
    keyId: text('key_id').notNull(),
    areaId: text('area_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.keyId, t.areaId] }), index('fpa_api_key_areas_area').on(t.areaId)],
);

/**
 * Failed sign-ins per key (`user:<username>` or `address:<ip>`), in fixed windows aligned to the
 * epoch: counted in the database so the limit holds across instances.
 */
export const signInFailures = sqliteTable(
  'fpa_sign_in_failures',
  {
    key: text('key').primaryKey(),
    windowStart: integer('window_start').notNull(),
    count: integer('count').notNull(),
  },
  (t) => [index('fpa_sign_in_failures_window').on(t.windowStart)],
);

export type UserRow = typeof users.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;
