/**
 * The policy table (src/platform/http/policy.ts): every administrator route the app serves has a
 * row (a route without one would be refused to every role but owner and admin), the paths the
 * third release's other branches add are covered, the console asks only for actions the table
 * has, and the rules of owner, admin and the area-free rows.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { actionsOf, POLICY, permits, ruleFor } from '../../src/platform/http/policy';
import { startTestServer, type TestServer } from '../support/harness';

const API = '/api/fingerprint/v1';

describe('every served administrator route has a row', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.close();
  });

  test('read from the routes the way the OpenAPI document is', () => {
    const admin = server.app.routes.filter((r) => {
      const security = (r as { hooks?: { detail?: { security?: Record<string, unknown>[] } } }).hooks?.detail?.security ?? [];
      return security.some((s) => 'AdminJWT' in s);
    });
    expect(admin.length).toBeGreaterThan(90);
    const missing = admin.filter((r) => ruleFor(r.method === 'WS' ? 'GET' : r.method, r.path) === null).map((r) => `${r.method} ${r.path}`);
    expect(missing).toEqual([]);
    // And no row is left over that no route (of this branch or the others' named paths) uses.
    const used = new Set(admin.map((r) => ruleFor(r.method === 'WS' ? 'GET' : r.method, r.path)));
    const othersPaths =
      /^(users\/|api-keys\/|attendance\/today\/|employees\/import\/|reports\/|enrollees\/\{id\}\/deletion-proof\/|devices\/\{sn\}\/(completeness|confirm-address)\/|anomalies\/|diagnostics\/)/;
    const unused = POLICY.filter((r) => !used.has(r) && !othersPaths.test(r.path)).map((r) => `${r.method} ${r.path}`);
    expect(unused).toEqual([]);
  });
});

describe('rows for the paths the other branches add', () => {
  const cases: [string, string, string][] = [
    ['GET', `${API}/users`, 'users/'],
    ['POST', `${API}/users`, 'users/'],
    ['PATCH', `${API}/users/:id`, 'users/{id}/'],
    ['POST', `${API}/users/:id/reset`, 'users/{id}/reset/'],
    ['GET', `${API}/users/me`, 'users/me/**'],
    ['POST', `${API}/users/me/totp`, 'users/me/**'],
    ['DELETE', `${API}/api-keys/:id`, 'api-keys/{id}/'],
    ['GET', `${API}/attendance/today`, 'attendance/today/'],
    ['POST', `${API}/employees/import`, 'employees/import/'],
    ['GET', `${API}/reports/daily.csv`, 'reports/daily.*'],
    ['GET', `${API}/reports/timesheet.:format`, 'reports/timesheet.*'],
    ['GET', `${API}/reports/summary.xlsx`, 'reports/summary.*'],
    ['GET', `${API}/reports/exceptions.pdf`, 'reports/exceptions.*'],
    ['GET', `${API}/enrollees/:id/deletion-proof`, 'enrollees/{id}/deletion-proof/'],
    ['GET', `${API}/devices/:sn/completeness`, 'devices/{sn}/completeness/'],
    ['POST', `${API}/devices/:serial/confirm-address`, 'devices/{sn}/confirm-address/'],
    ['GET', `${API}/anomalies`, 'anomalies/'],
    ['GET', `${API}/diagnostics`, 'diagnostics/'],
    ['GET', `${API}/areas`, 'areas/'],
    ['GET', '/console/session', '/console/session'],
    ['GET', '/host/prefix/console/session', '/console/session'],
  ];
  for (const [method, route, path] of cases) {
    test(`${method} ${route} → ${path}`, () => {
      expect(ruleFor(method, route)?.path).toBe(path);
    });
  }

  test('a parameter never matches a literal segment, nor a literal a parameter', () => {
    expect(ruleFor('GET', `${API}/users/:id`)?.path).toBe('users/{id}/');
    expect(ruleFor('GET', `${API}/enrollees/search`)).toBeNull();
    expect(ruleFor('GET', `${API}/devices/:serial/nothing`)).toBeNull();
    expect(ruleFor('HEAD', `${API}/devices`)?.path).toBe('devices/');
  });
});

describe('who the rows let in', () => {
  const row = ruleFor('GET', `${API}/webhooks`);
  test('owner and admin may call every row; the area-free rows need a caller limited to no area', () => {
    for (const r of POLICY) {
      expect(permits({ role: 'owner', areas: [] }, r)).toBe(true);
      expect(permits({ role: 'admin', areas: [] }, r)).toBe(!r.ownersOnly);
    }
    // A console link signs in an owner, and the second-factor policy binds owners: an admin may do neither.
    expect(POLICY.filter((r) => r.ownersOnly).map((r) => r.path)).toEqual(['users/second-factor-policy/', 'console-links/']);
    expect(row?.everywhere).toBe(true);
    expect(permits({ role: 'admin', areas: ['north'] }, row)).toBe(false);
  });

  test('a route no row names is for owner and admin only', () => {
    expect(permits({ role: 'owner', areas: [] }, null)).toBe(true);
    expect(permits({ role: 'admin', areas: [] }, null)).toBe(true);
    for (const role of ['hr', 'manager', 'installer', 'viewer'] as const) expect(permits({ role, areas: [] }, null)).toBe(false);
  });

  test('a viewer may only read', () => {
    const changes = actionsOf({ role: 'viewer', areas: ['north'] }).filter((a) => !a.startsWith('GET '));
    // Its own profile and signing out of the console are its own business.
    expect(changes.filter((a) => !a.includes('users/me/') && a !== 'POST /console/sign-out')).toEqual([]);
  });
});

describe('the console asks only for actions the table has', () => {
  test("every can('…') of the client is a row", () => {
    const root = join(import.meta.dir, '../../src/modules/console/client');
    const files = [...readdirSync(root).filter((f) => f.endsWith('.ts')), ...readdirSync(join(root, 'pages')).map((f) => `pages/${f}`)];
    const rows = new Set(POLICY.map((r) => `${r.method} ${r.path}`));
    const asked: string[] = [];
    for (const file of files) {
      const text = readFileSync(join(root, file), 'utf8');
      for (const m of text.matchAll(/\bcan\(\s*'([^']+)'\s*\)/g)) asked.push(m[1]!);
    }
    expect(asked.length).toBeGreaterThan(10);
    expect(asked.filter((a) => !rows.has(a))).toEqual([]);
  });
});
