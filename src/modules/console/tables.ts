import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import type { ActorKind, Role } from '../../platform/http/caller';

/**
 * Who a link or session stands for, besides its readable `actor`: the kind and role of the
 * credential that minted it (its areas as a JSON list of names), and the user when it is a
 * user's (whose CURRENT role and areas then apply on every request instead).
 */
const identity = () => ({
  actorKind: text('actor_kind').$type<ActorKind>().notNull().default('operator'),
  role: text('role').$type<Role>().notNull().default('owner'),
  areas: text('areas', { mode: 'json' }).$type<string[]>().notNull().default([]),
  userId: text('user_id'),
});

/**
 * One-time sign-in links (`bun run fpa:console-link`). Only the SHA-256 of the token is kept,
 * so a copy of the database signs nobody in; `used_at` makes a link single-use.
 */
export const consoleLinks = sqliteTable(
  'fpa_console_links',
  {
    tokenHash: text('token_hash').primaryKey(),
    actor: text('actor').notNull(),
    createdBy: text('created_by').notNull(),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    usedAt: integer('used_at'),
    /** When the credential that minted the link expires: the session never outlives it. */
    notAfter: integer('not_after'),
    ...identity(),
  },
  (t) => [index('fpa_console_links_expires').on(t.expiresAt)],
);

/**
 * Console sessions: the SHA-256 of the cookie's session id (never the id itself), who it is,
 * how it began (`link`, `host`: the embedding host's own sign-in, `password`, `invite`), and its two limits: an
 * absolute expiry and an idle timeout measured from `last_seen_at`.
 */
export const consoleSessions = sqliteTable(
  'fpa_console_sessions',
  {
    idHash: text('id_hash').primaryKey(),
    actor: text('actor').notNull(),
    origin: text('origin', { enum: ['link', 'host', 'password', 'invite', 'sso'] }).notNull(),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    idleTimeoutMs: integer('idle_timeout_ms').notNull(),
    lastSeenAt: integer('last_seen_at').notNull(),
    endedAt: integer('ended_at'),
    ...identity(),
  },
  (t) => [index('fpa_console_sessions_expires').on(t.expiresAt), index('fpa_console_sessions_user').on(t.userId)],
);
