/**
 * The README's configuration table and list of check codes, generated from the schema so
 * the documentation cannot drift (`bun src/cli.ts readme` rewrites them; a test compares).
 */
import { type AuthKind, ROUTES } from '../app/docs/catalog';
import { CHECK_CODES } from '../platform/config/check';
import { SETTING_KEYS, SETTINGS_SCHEMA } from '../platform/config/settings';
import { ERROR_STATUS } from '../platform/errors';

export function settingsTableMarkdown(): string {
  const lines = ['| Setting (env `FPA_<KEY>`) | Default | Meaning |', '|---|---|---|'];
  for (const key of SETTING_KEYS) {
    const spec = SETTINGS_SCHEMA[key] as { default: unknown; description: string; show?: (v: unknown) => string };
    const def = spec.default;
    const shown =
      def === null || def === '' || (Array.isArray(def) && def.length === 0)
        ? null
        : spec.show
          ? spec.show(def)
          : Array.isArray(def)
            ? def.join(',')
            : typeof def === 'object'
              ? JSON.stringify(def)
              : String(def);
    lines.push(`| \`${key}\` | ${shown === null ? '—' : `\`${shown}\``} | ${spec.description} |`);
  }
  return lines.join('\n');
}

export function checkCodesMarkdown(): string {
  const lines = ['| Code | Severity | Meaning |', '|---|---|---|'];
  for (const [code, c] of Object.entries(CHECK_CODES)) lines.push(`| \`${code}\` | ${c.severity} | ${c.meaning} |`);
  return lines.join('\n');
}

/** Replaces the text between `<!-- name:start -->` and `<!-- name:end -->`. */
export function replaceBlock(document: string, name: string, content: string): string {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const from = document.indexOf(start);
  const to = document.indexOf(end);
  if (from < 0 || to < from) return document;
  return `${document.slice(0, from + start.length)}\n${content}\n${document.slice(to)}`;
}

export function readBlock(document: string, name: string): string | null {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const from = document.indexOf(start);
  const to = document.indexOf(end);
  if (from < 0 || to < from) return null;
  return document.slice(from + start.length, to).trim();
}

/** The README's route table, from the same catalog the OpenAPI document is built from. */
export function routesTableMarkdown(): string {
  const auth: Record<AuthKind, string> = { agent: 'agent key', admin: 'admin JWT', admin_or_operator: 'admin JWT or operator token', none: 'none' };
  const lines = ['| Method | Path | Auth | What it does |', '|---|---|---|---|'];
  for (const r of ROUTES) {
    lines.push(`| ${r.websocket ? 'GET (WebSocket)' : r.method.toUpperCase()} | \`${r.path}\` | ${auth[r.auth]} | ${r.summary} |`);
  }
  return lines.join('\n');
}

/** Every API error code with its HTTP status (the one table in src/shared/errors.ts). */
export function errorStatusMarkdown(): string {
  const lines = ['| Code | HTTP status |', '|---|---|'];
  for (const [code, status] of Object.entries(ERROR_STATUS)) lines.push(`| \`${code}\` | ${status} |`);
  return lines.join('\n');
}
