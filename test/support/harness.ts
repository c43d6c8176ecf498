/**
 * Test harness: a real libSQL database file per test, the real server on a random port,
 * real administrator JWTs signed with jose. Nothing is mocked.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import type { CreateOptions } from '../../src/app/create';
import { type ListenOptions, type RunningServer, startServer } from '../../src/app/server';
import type { SettingsInput } from '../../src/platform/config/settings';
import { generateEncryptionKey } from '../../src/platform/crypto/template-cipher';
import { silentLogger } from '../../src/platform/log';

export const JWT_SECRET = 'test-secret-that-is-at-least-32-bytes-long!!';
export const TEST_KEY = generateEncryptionKey();

export function tempDir(prefix = 'fpa-test-'): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function testSettings(dir: string, overrides: SettingsInput = {}): SettingsInput {
  return {
    DATABASE_URL: `file:${join(dir, 'fpa.db')}`,
    TEMPLATE_ENCRYPTION_KEYS: [TEST_KEY],
    ADMIN_JWT_SECRET: JWT_SECRET,
    TASK_BACKEND: 'external',
    // The suite's fixtures name areas freely (as the first releases allowed); the tests of
    // areas, the import and the console's pickers turn this off to check the default refusal.
    AREAS_CREATED_ON_USE: true,
    ...overrides,
  };
}

export interface TestServer extends RunningServer {
  dir: string;
  admin: ApiClient;
  close(): Promise<void>;
}

export async function startTestServer(
  overrides: SettingsInput = {},
  options: Partial<CreateOptions> & ListenOptions & { dir?: string } = {},
): Promise<TestServer> {
  const own = options.dir ? null : tempDir();
  const dir = options.dir ?? own!.dir;
  const server = await startServer({
    settings: testSettings(dir, overrides),
    env: {},
    logger: silentLogger,
    port: 0,
    hostname: '127.0.0.1',
    ...options,
  });
  const token = await adminToken();
  return {
    ...server,
    dir,
    admin: new ApiClient(`${server.url}/api/fingerprint/v1`, { authorization: `Bearer ${token}` }),
    async close() {
      await server.stop();
      own?.cleanup();
    },
  };
}

export async function adminToken(
  options: {
    sub?: string;
    scope?: string;
    /** A duration from now (`1h`), an `exp` in seconds since the epoch as it is, or none. */
    expiresIn?: string | number | null;
    secret?: string;
    audience?: string;
    issuer?: string;
    /** The `fpa_role` claim (API.md's roles); without it the token is an owner. */
    role?: string;
    /** The `fpa_areas` claim: area names the caller is limited to. */
    areas?: string[];
  } = {},
): Promise<string> {
  const claims: Record<string, unknown> = { scope: options.scope ?? 'fpa:admin' };
  if (options.role !== undefined) claims.fpa_role = options.role;
  if (options.areas !== undefined) claims.fpa_areas = options.areas;
  let jwt = new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(options.sub ?? 'admin@example.com')
    .setIssuedAt();
  if (options.expiresIn !== null) jwt = jwt.setExpirationTime(options.expiresIn ?? '1h');
  if (options.audience) jwt = jwt.setAudience(options.audience);
  if (options.issuer) jwt = jwt.setIssuer(options.issuer);
  return jwt.sign(new TextEncoder().encode(options.secret ?? JWT_SECRET));
}

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** A small JSON client over real HTTP. */
export class ApiClient {
  constructor(
    readonly base: string,
    readonly headers: Record<string, string> = {},
  ) {}

  async request<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<T>> {
    const response = await fetch(`${this.base}${path}`, {
      method,
      headers: { ...this.headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // plain text
    }
    return { status: response.status, body: parsed as T, headers: response.headers };
  }

  get<T = any>(path: string) {
    return this.request<T>('GET', path);
  }
  post<T = any>(path: string, body?: unknown) {
    return this.request<T>('POST', path, body ?? {});
  }
  patch<T = any>(path: string, body: unknown) {
    return this.request<T>('PATCH', path, body);
  }
  delete<T = any>(path: string) {
    return this.request<T>('DELETE', path);
  }
}

/** A client of the server's API holding a token of this role (and areas). */
export async function clientAs(server: { url: string }, role: string, areas?: string[], sub = `${role}@example.com`): Promise<ApiClient> {
  const token = await adminToken({ sub, role, ...(areas ? { areas } : {}) });
  return new ApiClient(`${server.url}/api/fingerprint/v1`, { authorization: `Bearer ${token}` });
}

/** A TCP port nobody listens on right now (the kernel's choice, released at once). */
export function freePort(): number {
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}
