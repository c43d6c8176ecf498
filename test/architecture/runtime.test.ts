/**
 * Modules get what they use (issue 22), checked: every module declares the settings it reads
 * (`<NAME>_SETTINGS` in its runtime.ts) and is given a runtime holding only those
 * (`runtimeFor`), so it can neither name another setting (the type refuses it, below) nor read
 * one (it is not there); the template key ring reaches only the modules that encrypt or seal,
 * the upload-burst gate only punches (which mark uploads) and webhooks (which yield to them).
 * Checked on the source, on `runtimeFor` itself, and on the modules the composition root builds.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import * as ts from 'typescript';
import { buildModules, type Modules } from '../../src/app/modules';
import { BuiltinEmployeeDirectory } from '../../src/modules/employees';
import { loadSettings, type Settings } from '../../src/platform/config/settings';
import { DigestSecrets } from '../../src/platform/crypto/digest-secrets';
import { TemplateKeyRing } from '../../src/platform/crypto/template-cipher';
import { type Database, migrateDatabase, openDatabase } from '../../src/platform/db/client';
import { STREAM_SETTINGS } from '../../src/platform/http/stream';
import { silentLogger } from '../../src/platform/log';
import { Metrics } from '../../src/platform/metrics';
import { type Runtime, runtimeFor, sealingRuntimeFor, systemClock } from '../../src/platform/runtime';
import { UploadBurst } from '../../src/platform/upload-burst';
import { TEST_KEY, tempDir, testSettings } from '../support/harness';

const SRC = resolve(import.meta.dir, '../../src');
const MODULES = join(SRC, 'modules');

/** Modules that keep keyed digests (communication keys, API keys): secrets derived for them, not the keys. */
const DIGESTING = ['devices', 'users'];
/** The modules that encrypt or seal: templates, staged uploads, TOTP secrets, proof keys, webhook secrets, terminal users' passwords. */
const SEALING = ['devices', 'enrollment', 'proofs', 'sign-in-factors', 'webhooks'];
/** The modules that mark terminals' uploads (punches) or yield to a burst of them (webhooks). */
const UPLOAD_GATED = ['punches', 'webhooks'];

const moduleNames = readdirSync(MODULES).filter((name) => statSync(join(MODULES, name)).isDirectory());

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** Each module's declared settings, read from its public entry. */
async function declaredSettings(): Promise<Map<string, readonly string[]>> {
  const declared = new Map<string, readonly string[]>();
  for (const name of moduleNames) {
    const entry: Record<string, unknown> = await import(join(MODULES, name, 'index.ts'));
    const lists = Object.entries(entry).filter(([key]) => key.endsWith('_SETTINGS'));
    expect(
      lists.map(([key]) => key),
      `${name}/index.ts exports its settings list`,
    ).toHaveLength(1);
    declared.set(name, lists[0]![1] as readonly string[]);
  }
  return declared;
}

function fullRuntime(settings: Readonly<Settings>, db: Database, keyRing: TemplateKeyRing): Runtime {
  return {
    settings,
    db,
    keyRing,
    digestSecrets: (purpose) => new DigestSecrets(settings.TEMPLATE_ENCRYPTION_KEYS, purpose),
    clock: systemClock,
    log: silentLogger,
    instanceId: 'test',
    metrics: new Metrics(),
    uploads: new UploadBurst(settings.WEBHOOK_MAX_LAG),
  };
}

describe('each module declares its settings and holds only its means', () => {
  test('every module has a runtime.ts declaring `<NAME>_SETTINGS` as a typed list of setting names', () => {
    for (const name of moduleNames) {
      const text = readFileSync(join(MODULES, name, 'runtime.ts'), 'utf8');
      expect(text, name).toMatch(/export const [A-Z_]+_SETTINGS = \[[^\]]*\] as const satisfies readonly \(keyof Settings\)\[\];/);
    }
  });

  // Route files are built from the host's `Http` (platform/http/router.ts), whose runtime is the whole one.
  test('no module service takes the whole Runtime: each names its own (platform/runtime.ts ModuleRuntime)', () => {
    const whole = /import\s+(type\s+)?\{[^}]*\bRuntime\b[^}]*\}\s+from\s+'[./]*platform\/runtime'/;
    const services = filesUnder(MODULES).filter((file) => !/routes\.ts$/.test(file));
    const offenders = services.filter((file) => whole.test(readFileSync(file, 'utf8')));
    expect(offenders.map((file) => relative(SRC, file))).toEqual([]);
  });

  test('only the modules that encrypt or seal see the key ring (by value or by type)', () => {
    const offenders = filesUnder(MODULES)
      .filter((file) => /\bkeyRing\b|\bTemplateKeyRing\b|\bSealing\b/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(MODULES, file))
      .filter((file) => !SEALING.includes(file.split('/')[0]!));
    expect(offenders).toEqual([]);
  });

  test('the template keys themselves are a setting of no module: the others get secrets derived from them (Digesting)', async () => {
    const holders = [...(await declaredSettings())].filter(([, keys]) => keys.includes('TEMPLATE_ENCRYPTION_KEYS')).map(([name]) => name);
    expect(holders).toEqual([]);
    const digesting = filesUnder(MODULES)
      .filter((file) => /\bdigestSecrets\b|\bDigesting\b/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(MODULES, file).split('/')[0]!);
    expect([...new Set(digesting)].sort()).toEqual(DIGESTING);
  });

  test('only punches and webhooks see the upload-burst gate', () => {
    const offenders = filesUnder(MODULES)
      .filter((file) => /\bUploadGate\b|\bUploadBurst\b|\.uploads\.(mark|pause)\b/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(MODULES, file))
      .filter((file) => !UPLOAD_GATED.includes(file.split('/')[0]!));
    expect(offenders).toEqual([]);
  });

  test('the composition root hands no module the whole runtime: only runtimeFor and its own builders take it', () => {
    const path = join(SRC, 'app/modules.ts');
    const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
    const local = new Set(source.statements.filter(ts.isFunctionDeclaration).map((f) => f.name?.text));
    const allowed = new Set(['runtimeFor', 'sealingRuntimeFor', 'digestingRuntimeFor', 'wireReactions', ...local]);
    const offenders: string[] = [];
    const visit = (node: ts.Node): void => {
      if ((ts.isNewExpression(node) || ts.isCallExpression(node)) && node.arguments?.some((a) => ts.isIdentifier(a) && a.text === 'runtime')) {
        const callee = node.expression.getText(source);
        if (!allowed.has(callee)) offenders.push(callee);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    expect(offenders).toEqual([]);
  });
});

describe('runtimeFor', () => {
  const settings = loadSettings({ TEMPLATE_ENCRYPTION_KEYS: [TEST_KEY] }, {}).settings;
  const whole = fullRuntime(settings, {} as Database, {} as TemplateKeyRing);

  test('copies only the declared settings (frozen), and neither the key ring nor the upload gate', async () => {
    for (const [name, keys] of await declaredSettings()) {
      const given = runtimeFor(whole, keys as (keyof Settings)[]);
      expect(Object.keys(given.settings).sort(), name).toEqual([...keys].sort());
      for (const key of keys) expect(given.settings[key as keyof typeof given.settings], `${name} ${key}`).toBe(settings[key as keyof Settings] as never);
      expect(Object.isFrozen(given.settings)).toBe(true);
      expect('keyRing' in given || 'uploads' in given, name).toBe(false);
    }
  });

  test('a setting not declared is refused by the type and absent at run time', () => {
    const given = runtimeFor(whole, ['ADMS_POLL_DELAY']);
    expect(given.settings.ADMS_POLL_DELAY).toBe(settings.ADMS_POLL_DELAY);
    // @ts-expect-error: WEBHOOK_TIMEOUT is not among the settings this runtime was built for.
    expect(given.settings.WEBHOOK_TIMEOUT).toBeUndefined();
    // @ts-expect-error: a module runtime carries no key ring unless built to seal.
    expect(given.keyRing).toBeUndefined();
    expect(sealingRuntimeFor(whole, []).keyRing).toBe(whole.keyRing);
  });
});

describe('the modules the composition root builds', () => {
  const dir = tempDir();
  let db: Database;
  let whole: Runtime;
  let modules: Modules;

  beforeAll(async () => {
    const settings = loadSettings(testSettings(dir.dir), {}).settings;
    db = await openDatabase({ url: settings.DATABASE_URL });
    await migrateDatabase(db);
    whole = fullRuntime(settings, db, await TemplateKeyRing.fromKeys(settings.TEMPLATE_ENCRYPTION_KEYS));
    modules = buildModules(whole, new BuiltinEmployeeDirectory(db));
  });

  afterAll(async () => {
    await db.close();
    dir.cleanup();
  });

  /** Every runtime reachable from the modules' objects (their fields, their parts' fields). */
  function runtimesReached(): Set<Record<string, unknown>> {
    const found = new Set<Record<string, unknown>>();
    const seen = new Set<object>();
    const walk = (value: unknown, depth: number): void => {
      if (typeof value !== 'object' || value === null || seen.has(value) || depth > 8) return;
      seen.add(value);
      if (value === db) return;
      const fields = value as Record<string, unknown>;
      if ('settings' in fields && 'db' in fields && 'clock' in fields && 'instanceId' in fields) {
        found.add(fields);
        return;
      }
      const children = value instanceof Map ? [...value.values()] : value instanceof Set || Array.isArray(value) ? [...value] : Object.values(fields);
      for (const child of children) walk(child, depth + 1);
    };
    walk(modules, 0);
    return found;
  }

  test('each holds a runtime of exactly one module’s settings; only the sealing ones hold the key ring, only punches and webhooks the upload gate', async () => {
    const declared = await declaredSettings();
    const signature = (keys: readonly string[]) => [...keys].sort().join(',');
    const owners = new Map<string, string[]>();
    for (const [name, keys] of declared) owners.set(signature(keys), [...(owners.get(signature(keys)) ?? []), name]);
    owners.set(signature(STREAM_SETTINGS), ['streams']);

    const reached = runtimesReached();
    const matched = new Set<string>();
    for (const given of reached) {
      expect(given).not.toBe(whole as unknown as Record<string, unknown>);
      const names = owners.get(signature(Object.keys(given.settings as object)));
      expect(names, `a runtime with settings ${Object.keys(given.settings as object).join(', ')}`).toBeDefined();
      for (const name of names!) matched.add(name);
      if ('keyRing' in given)
        expect(
          names!.some((name) => SEALING.includes(name)),
          String(names),
        ).toBe(true);
      if ('uploads' in given)
        expect(
          names!.some((name) => UPLOAD_GATED.includes(name)),
          String(names),
        ).toBe(true);
    }
    // The walk found the runtime of every module (modules declaring no setting share one signature).
    expect([...matched].sort()).toEqual([...moduleNames, 'streams'].sort());
    const sealed = [...reached].filter((given) => 'keyRing' in given).map((given) => owners.get(signature(Object.keys(given.settings as object)))![0]);
    expect([...new Set(sealed)].sort()).toEqual([...SEALING].sort());
  });
});
