import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

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
  },
  (t) => [index('fpa_console_links_expires').on(t.expiresAt)],
);

/**
 * Console sessions: the SHA-256 of the cookie's session id (never the id itself), who it is,
 * how it began (`link` or `host`: the embedding host's own sign-in), and its two limits: an
 * absolute expiry and an idle timeout measured from `last_seen_at`.
 */
export const consoleSessions = sqliteTable(
  'fpa_console_sessions',
  {
    idHash: text('id_hash').primaryKey(),
    actor: text('actor').notNull(),
    origin: text('origin', { enum: ['link', 'host'] }).notNull(),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    idleTimeoutMs: integer('idle_timeout_ms').notNull(),
    lastSeenAt: integer('last_seen_at').notNull(),
    endedAt: integer('ended_at'),
  },
  (t) => [index('fpa_console_sessions_expires').on(t.expiresAt)],
);
