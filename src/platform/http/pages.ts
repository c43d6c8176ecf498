/**
 * What the service's own web pages share (the API docs page, the console): a same-origin-only
 * Content-Security-Policy, asset names that carry a hash of their content (so they can be cached
 * for a year), and HTML escaping for the few values a page template holds.
 */
import { createHash } from 'node:crypto';

/** An asset whose URL changes with its content, so a year-long `immutable` cache is never stale. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * Scripts, styles, fonts and fetches from this origin only (`data:` images for icons), no
 * plugins, no framing; `formAction` says where the page's forms may post.
 */
export function selfOnlyPolicy(formAction: "'self'" | "'none'"): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    `form-action ${formAction}`,
  ].join('; ');
}

/** `stem-<12 hex of SHA-256>.extension`. */
export function hashedName(stem: string, extension: string, content: string | Uint8Array): string {
  return `${stem}-${createHash('sha256').update(content).digest('hex').slice(0, 12)}.${extension}`;
}

export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
