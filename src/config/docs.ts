/**
 * The README's configuration table and list of check codes, generated from the schema so
 * the documentation cannot drift (`bun src/cli.ts readme` rewrites them; a test compares).
 */
import { CHECK_CODES } from './check';
import { SETTING_KEYS, SETTINGS_SCHEMA } from './settings';

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
