/**
 * The README's configuration table, check codes, route table and error statuses, generated
 * from the code so the documentation cannot drift (`bun src/cli.ts readme` rewrites them; a
 * test compares).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFingerprintAttendance } from '../app/create';
import { isJsonObject, type JsonObject } from '../app/docs/openapi';
import { EVENT_CATALOG, FPA_EVENT_TYPES } from '../app/event-catalog';
import { CHECK_CODES } from '../platform/config/check';
import { SETTING_KEYS, SETTINGS_SCHEMA } from '../platform/config/settings';
import { generateEncryptionKey } from '../platform/crypto/template-cipher';
import { ERROR_STATUS } from '../platform/errors';
import { SECURITY_SCHEMES } from '../platform/http/router';
import { silentLogger } from '../platform/log';

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

/** Every event type with what raises it and an example of its `data` (app/event-catalog.ts). */
export function eventsMarkdown(): string {
  return FPA_EVENT_TYPES.map((type) => {
    const { about, example } = EVENT_CATALOG[type];
    return [`#### \`${type}\``, '', about, '', '```json', JSON.stringify(example, null, 2), '```'].join('\n');
  }).join('\n\n');
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

/**
 * The OpenAPI document a real instance serves, built on a throwaway database with a fresh key:
 * the document depends on the routes only, not on the settings or the data.
 */
export async function servedOpenApiDocument(): Promise<JsonObject> {
  const dir = mkdtempSync(join(tmpdir(), 'fpa-readme-'));
  try {
    const fpa = await createFingerprintAttendance({
      settings: {
        DATABASE_URL: `file:${join(dir, 'fpa.db')}`,
        TEMPLATE_ENCRYPTION_KEYS: [generateEncryptionKey()],
        ADMIN_JWT_SECRET: crypto.randomUUID() + crypto.randomUUID(),
        TASK_BACKEND: 'external',
      },
      env: {},
      logger: silentLogger,
      startJobs: false,
    });
    try {
      return fpa.openapi();
    } finally {
      await fpa.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const AUTH_LABELS: Record<string, string> = {
  [SECURITY_SCHEMES.admin]: 'admin JWT',
  [SECURITY_SCHEMES.agent]: 'agent key',
  [SECURITY_SCHEMES.operator]: 'operator token',
};

/** The README's route table, from the OpenAPI document: method, path, auth, summary. */
export function routesTableMarkdown(document: JsonObject): string {
  const lines = ['| Method | Path | Auth | What it does |', '|---|---|---|---|'];
  const paths = isJsonObject(document.paths) ? document.paths : {};
  for (const [path, item] of Object.entries(paths)) {
    if (!isJsonObject(item)) continue;
    for (const [method, operation] of Object.entries(item)) {
      if (!isJsonObject(operation)) continue;
      const security = Array.isArray(operation.security) ? operation.security : [];
      const auth = security.flatMap((requirement) => (isJsonObject(requirement) ? Object.keys(requirement).map((name) => AUTH_LABELS[name] ?? name) : []));
      const shown = operation['x-websocket'] === true ? `${method.toUpperCase()} (WebSocket)` : method.toUpperCase();
      const summary = typeof operation.summary === 'string' ? operation.summary : '';
      lines.push(`| ${shown} | \`${path}\` | ${auth.length > 0 ? auth.join(' or ') : 'none'} | ${summary} |`);
    }
  }
  return lines.join('\n');
}

/** Every API error code with its HTTP status (the one table in src/platform/errors.ts). */
export function errorStatusMarkdown(): string {
  const lines = ['| Code | HTTP status |', '|---|---|'];
  for (const [code, status] of Object.entries(ERROR_STATUS)) lines.push(`| \`${code}\` | ${status} |`);
  return lines.join('\n');
}
