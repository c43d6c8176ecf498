/**
 * The shape of the code, checked: who may import whom (docs/architecture.md). Reads every
 * import of src/ (type imports included) and fails on a layer crossed, a module reached into
 * past its public entry, a cycle between modules, or a route file that can see the database.
 */
import { describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const SRC = resolve(import.meta.dir, '../../src');

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** Repository-relative source file → the source files it imports (relative specifiers only). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const specifier = /(?:from\s+|import\s*\(\s*|import\s+)['"](\.[^'"]+)['"]/g;
  for (const file of filesUnder(SRC)) {
    const text = readFileSync(file, 'utf8');
    const targets: string[] = [];
    for (const match of text.matchAll(specifier)) {
      const base = resolve(dirname(file), match[1]!);
      const target = [`${base}.ts`, join(base, 'index.ts'), base].find((c) => c.endsWith('.ts') && safeIsFile(c));
      if (target) targets.push(relative(SRC, target));
    }
    graph.set(relative(SRC, file), targets);
  }
  return graph;
}

function safeIsFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

const graph = importGraph();
/**
 * The console's client (src/modules/console/client/) is a program of its own, bundled for the
 * browser: it counts as its own module here, so it may `import type` the wire types of any
 * module's model (through the module's index) without the console's server side depending on it.
 */
const moduleOf = (file: string) => (file.startsWith('modules/console/client/') ? 'console-client' : (/^modules\/([^/]+)\//.exec(file)?.[1] ?? null));
const edges = [...graph].flatMap(([from, targets]) => targets.map((to) => ({ from, to })));

describe('architecture', () => {
  test('the platform imports no module, no protocol and no composition', () => {
    const crossing = edges.filter((e) => e.from.startsWith('platform/') && !e.to.startsWith('platform/'));
    expect(crossing).toEqual([]);
  });

  test('the ADMS protocol is pure: it imports only itself and the platform’s time arithmetic', () => {
    const crossing = edges.filter((e) => e.from.startsWith('protocol/') && !e.to.startsWith('protocol/') && !e.to.startsWith('platform/time/'));
    expect(crossing).toEqual([]);
  });

  test('modules import other modules only through their public entry (index.ts)', () => {
    const reaching = edges.filter((e) => {
      const from = moduleOf(e.from);
      const to = moduleOf(e.to);
      return from !== null && to !== null && from !== to && e.to !== `modules/${to}/index.ts`;
    });
    expect(reaching).toEqual([]);
  });

  test('modules never import the composition, the CLI or the simulator', () => {
    const upward = edges.filter((e) => e.from.startsWith('modules/') && /^(app|cli|simulator)\//.test(e.to));
    expect(upward).toEqual([]);
  });

  test('no cycle between modules', () => {
    const deps = new Map<string, Set<string>>();
    for (const { from, to } of edges) {
      const a = moduleOf(from);
      const b = moduleOf(to);
      if (a && b && a !== b) deps.set(a, (deps.get(a) ?? new Set()).add(b));
    }
    const cycles: string[] = [];
    const visit = (node: string, path: string[]) => {
      if (path.includes(node)) {
        cycles.push([...path.slice(path.indexOf(node)), node].join(' → '));
        return;
      }
      for (const next of deps.get(node) ?? []) visit(next, [...path, node]);
    };
    for (const node of deps.keys()) visit(node, []);
    expect(cycles).toEqual([]);
  });

  test('no cycle between files', () => {
    const cycles: string[] = [];
    const done = new Set<string>();
    const visit = (file: string, path: string[]) => {
      if (path.includes(file)) {
        cycles.push([...path.slice(path.indexOf(file)), file].join(' → '));
        return;
      }
      if (done.has(file)) return;
      for (const next of graph.get(file) ?? []) visit(next, [...path, file]);
      done.add(file);
    };
    for (const file of graph.keys()) visit(file, []);
    expect(cycles).toEqual([]);
  });

  test('route files cannot reach the database: no db layer, no tables, no query builder', () => {
    const routeFiles = [...graph.keys()].filter((f) => /(^|\/)(routes|[a-z-]+-routes)\.ts$/.test(f));
    expect(routeFiles.length).toBeGreaterThan(5);
    const leaking = routeFiles.flatMap((file) => {
      const text = readFileSync(join(SRC, file), 'utf8');
      const bad = (graph.get(file) ?? []).filter((to) => to.startsWith('platform/db/') || to.endsWith('/tables.ts'));
      if (/from\s+['"](drizzle-orm|@libsql\/client)/.test(text)) bad.push('drizzle-orm or @libsql/client');
      return bad.map((b) => `${file} → ${b}`);
    });
    expect(leaking).toEqual([]);
  });

  test('the production graph never imports the terminal simulator', () => {
    const fromProduction = edges.filter((e) => e.to.startsWith('simulator/') && !e.from.startsWith('simulator/') && !e.from.startsWith('cli/'));
    expect(fromProduction).toEqual([]);
  });
});
