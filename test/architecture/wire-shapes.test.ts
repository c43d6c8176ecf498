/**
 * One source for every wire shape (issue 22): what the API answers is described once, by the
 * TypeBox model its route validates with, and the TypeScript type of it is `Static<typeof Model>`.
 * A hand-written `interface …View` beside the model drifts (the console's old copy of `Device`
 * lacked two fields), so none may exist in the modules, and the console client has no type file
 * of its own copies: it imports the server's view types (`import type`, erased in the bundle).
 */
import { describe, expect, test } from 'bun:test';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const MODULES = resolve(import.meta.dir, '../../src/modules');

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/**
 * Modules of the server the console's client runs as well: the name key (one order by name
 * everywhere), the name of the cookie that says a download has begun (one name on both sides).
 */
const SHARED_WITH_BROWSER = [resolve(MODULES, '../platform/name-key.ts'), resolve(MODULES, '../platform/http/download-started.ts')];

describe('wire shapes', () => {
  test('no hand-written *View interface in src/modules: views are Static<typeof Model>', () => {
    const handWritten = filesUnder(MODULES).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/^\s*(?:export\s+)?interface\s+(\w+View)\b/gm)].map((m) => `${relative(MODULES, file)}: ${m[1]}`),
    );
    expect(handWritten).toEqual([]);
  });

  test('the console client keeps no copies of the server types, and imports server modules as types only', () => {
    expect(existsSync(join(MODULES, 'console/client/types.ts'))).toBe(false);
    const clientDir = join(MODULES, 'console/client');
    const valueImports = filesUnder(clientDir).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/^import\s+(?!type\b)[^;]*?from\s+'([^']+)'/gm)]
        .filter((m) => m[1]!.startsWith('.') && !resolve(dirname(file), m[1]!).startsWith(clientDir))
        .filter((m) => !SHARED_WITH_BROWSER.includes(resolve(dirname(file), `${m[1]!}.ts`)))
        .map((m) => `${relative(MODULES, file)}: ${m[1]}`),
    );
    // A value import would put server code in the browser bundle.
    expect(valueImports).toEqual([]);
    // But for the modules both run, which import nothing themselves.
    for (const shared of SHARED_WITH_BROWSER) expect({ shared, imports: /^import\s/m.test(readFileSync(shared, 'utf8')) }).toEqual({ shared, imports: false });
  });
});
