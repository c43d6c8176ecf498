/**
 * A host that embeds the package type-checks it as it is: the package ships TypeScript source, so
 * every library its source imports must bring its types into the host. A library without types of
 * its own needs its `@types/…` among `dependencies` (devDependencies are not installed into a
 * host). Elysia and Bun are the host's own (README, "Embedding in a host application"). And the
 * README's example compiles under the tsconfig `bun init` gives a host: no DOM library, strict.
 */
import { describe, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { embeddingExample, HOST_STAND_INS } from '../support/embedding-example';

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

/**
 * What a host writes beside the example with the names the package entry exports for it: the
 * types of its own parts (`authorizeAdmin`, `logger`, a calendar provider), the errors it catches
 * at start, and the proofs' call as `fpa.service.proofs` documents it.
 */
const HOST_EXTRAS = `
import { type AuthorizeAdmin, type CalendarProvider, ConfigurationError, createFingerprintAttendance, DatabaseLockedError, type HostCalendarEntries, type HostIdentity, type Logger, type Role, type ServedAt } from 'fingerprint-attendance';

const role: Role = 'viewer';
const identity: HostIdentity = { by: 'host-admin', role, areas: ['north'] };
const authorizeAdmin: AuthorizeAdmin = (req) => (req.headers.has('cookie') ? identity : null);
const logger: Logger = { debug: () => {}, info: () => {}, warn: (m) => console.warn(m), error: (m) => console.error(m) };
const entries: HostCalendarEntries = { leaves: [] };
const provider: CalendarProvider = () => entries;
const at: ServedAt = { hostname: '127.0.0.1', port: 3000 };
try {
  const fpa = await createFingerprintAttendance({ authorizeAdmin, logger });
  fpa.service.addCalendarProvider(provider);
  fpa.servedAt(at);
  const proof = await fpa.service.proofs.document('7c1e4a52-0d3b-4f7e-9a61-2b8f5c3d9e01', { areas: [], by: 'hr' }, 'json');
  console.log(proof.signature);
} catch (error) {
  if (error instanceof DatabaseLockedError) console.error(error.holder?.apiUrl);
  else if (error instanceof ConfigurationError) console.error(error.issues.map((i) => i.code));
  else throw error;
}
export {};
`;

/** `bun init`'s tsconfig (Bun 1.x): ESNext without DOM, strict, unchecked index access, libraries' own declarations skipped. */
const BUN_INIT_OPTIONS = {
  lib: ['ESNext'],
  target: 'ESNext',
  module: 'Preserve',
  moduleDetection: 'force',
  moduleResolution: 'bundler',
  allowImportingTsExtensions: true,
  verbatimModuleSyntax: true,
  noEmit: true,
  strict: true,
  skipLibCheck: true,
  noFallthroughCasesInSwitch: true,
  noUncheckedIndexedAccess: true,
  noImplicitOverride: true,
};

describe('the README’s embedding example in a host made with bun init', () => {
  test('compiles with strict tsc and no DOM library (what a host’s own tsconfig has), and so do the types and errors the entry exports for a host', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fpa-host-tsc-'));
    try {
      // The host's node_modules: the package's own (its dependencies, elysia and @types/bun as the host installs them).
      symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
      writeFileSync(join(dir, 'index.ts'), `${HOST_STAND_INS}\n${embeddingExample()}\nexport {};\n`);
      const compilerOptions = { ...BUN_INIT_OPTIONS, paths: { 'fingerprint-attendance': [join(ROOT, 'src/index.ts')] } };
      writeFileSync(join(dir, 'extras.ts'), HOST_EXTRAS);
      writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['index.ts', 'extras.ts'] }));
      const tsc = Bun.spawnSync([process.execPath, join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json')], { cwd: dir });
      const out = `${tsc.stdout.toString()}${tsc.stderr.toString()}`.trim();
      expect({ code: tsc.exitCode, out }).toEqual({ code: 0, out: '' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
