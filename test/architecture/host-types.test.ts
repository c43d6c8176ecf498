/**
 * A host that embeds the package type-checks it as it is: the package ships TypeScript source, so
 * every library its source imports must bring its types into the host. A library without types of
 * its own needs its `@types/…` among `dependencies` (devDependencies are not installed into a
 * host). Elysia and Bun are the host's own (README, "Embedding in a host application").
 */
import { describe, expect, test } from 'bun:test';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dir, '../..');
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
};
const HOSTS_OWN = new Set(['elysia', 'bun']);

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** The packages src/ imports by name (`pdfkit`, `@libsql/client`), not node: or bun: built-ins. */
function importedPackages(): Set<string> {
  // Statements only (a line that starts with import/export … from, or a dynamic import): not prose.
  const specifier = /(?:^\s*(?:import|export)\b[^;]*?\bfrom\s+|^\s*import\s+|\bimport\(\s*)'([^'.][^']*)'/gm;
  const names = new Set<string>();
  for (const file of filesUnder(join(ROOT, 'src'))) {
    for (const match of readFileSync(file, 'utf8').matchAll(specifier)) {
      const spec = match[1]!;
      if (spec.includes(':')) continue;
      const parts = spec.split('/');
      names.add(spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!);
    }
  }
  return names;
}

/** Whether a package carries its own declarations (types/typings/typesVersions, typed exports, declarations beside the entry file). */
function bringsOwnTypes(name: string): boolean {
  const dir = join(ROOT, 'node_modules', name);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
  if (typeof pkg.types === 'string' || typeof pkg.typings === 'string' || pkg.typesVersions !== undefined) return true;
  if (JSON.stringify(pkg.exports ?? {}).includes('.d.ts') || JSON.stringify(pkg.exports ?? {}).includes('"types"')) return true;
  // TypeScript also finds the declarations beside the entry file (esm/index.js → esm/index.d.ts).
  const entries = [pkg.module, pkg.main, 'index.js'].filter((e): e is string => typeof e === 'string');
  return entries.some((e) => existsSync(join(dir, e.replace(/\.[cm]?js$/, '.d.ts'))));
}

function typesPackage(name: string): string {
  return `@types/${name.startsWith('@') ? name.slice(1).replace('/', '__') : name}`;
}

describe('a host type-checks the package', () => {
  test('every library src/ imports is a dependency, and brings its types or has them among dependencies', () => {
    const missing: string[] = [];
    for (const name of importedPackages()) {
      if (HOSTS_OWN.has(name)) continue;
      if (!(name in manifest.dependencies)) missing.push(`${name}: not among dependencies`);
      else if (!bringsOwnTypes(name) && !(typesPackage(name) in manifest.dependencies)) missing.push(`${name}: ${typesPackage(name)} not among dependencies`);
    }
    expect(missing).toEqual([]);
  });
});
