import { describe, expect, test } from 'bun:test';
import { CHECK_CODES, checkConfiguration } from '../../src/platform/config/check';
import { describeSettings, loadSettings } from '../../src/platform/config/settings';
import { generateEncryptionKey } from '../../src/platform/crypto/template-cipher';

const key = generateEncryptionKey();
const base = { TEMPLATE_ENCRYPTION_KEYS: [key], ADMIN_JWT_SECRET: 'x'.repeat(40) };

function codesOf(settings: Record<string, unknown>, env: Record<string, string> = {}, extra: Partial<Parameters<typeof checkConfiguration>[0]> = {}) {
  const loaded = loadSettings(settings as never, env);
  return checkConfiguration({ loaded, ...extra }).map((i) => i.code);
}

describe('settings', () => {
  test('defaults where the spec is silent', () => {
    const { settings, problems } = loadSettings({}, {});
    expect(problems).toEqual([]);
    expect(settings.ALLOWED_FINGER_INDEXES).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(settings.FINGERS_REQUIRED_MIN).toBe(1);
    expect(settings.FINGERS_ALLOWED_MAX).toBe(10);
    expect(settings.ENROLLMENT_SESSION_TTL).toBe(10 * 60_000);
    expect(settings.ENROLLMENT_REQUIRE_CONSENT).toBe(true);
    expect(settings.TEMPLATE_MAX_BYTES).toBe(65536);
    expect(settings.AGENT_RATE_LIMIT).toEqual({ limit: 120, windowMs: 60_000 });
    expect(settings.AGENT_CAN_START_SESSIONS).toBe(false);
    expect(settings.DELETE_REJECTED_DEVICE_TEMPLATES).toBe(true);
    expect(settings.ADMS_URL_PREFIX).toBe('/iclock/');
    expect(settings.TIME_ZONE).toBe('UTC');
    expect(settings.ATTENDANCE_TIME_ZONE).toBe('UTC');
    expect(settings.TASK_BACKEND).toBe('cron');
    expect(settings.DATABASE_URL).toBe('file:./data/fpa.db');
    expect(Object.isFrozen(settings)).toBe(true);
  });

  test('FPA_ environment variables override code settings, in their text forms', () => {
    const { settings, problems } = loadSettings(
      { TIME_ZONE: 'Europe/Berlin', FINGERS_ALLOWED_MAX: 4 },
      {
        FPA_TEMPLATE_ENCRYPTION_KEYS: `${key}, ${generateEncryptionKey()}`,
        FPA_ENROLLMENT_SESSION_TTL: '15m',
        FPA_AGENT_RATE_LIMIT: '10/s',
        FPA_ALLOWED_FINGER_INDEXES: '0-3,6',
        FPA_ALGORITHM_COMPATIBILITY_MAP: '{"10":["10","9"]}',
        FPA_AGENT_CAN_START_SESSIONS: 'yes',
        FPA_TIME_ZONE: 'Asia/Kolkata',
        PORT: '8081',
      },
    );
    expect(problems).toEqual([]);
    expect(settings.TEMPLATE_ENCRYPTION_KEYS).toHaveLength(2);
    expect(settings.ENROLLMENT_SESSION_TTL).toBe(15 * 60_000);
    expect(settings.AGENT_RATE_LIMIT).toEqual({ limit: 10, windowMs: 1000 });
    expect(settings.ALLOWED_FINGER_INDEXES).toEqual([0, 1, 2, 3, 6]);
    expect(settings.ALGORITHM_COMPATIBILITY_MAP).toEqual({ '10': ['10', '9'] });
    expect(settings.AGENT_CAN_START_SESSIONS).toBe(true);
    expect(settings.TIME_ZONE).toBe('Asia/Kolkata');
    expect(settings.FINGERS_ALLOWED_MAX).toBe(4);
    expect(settings.PORT).toBe(8081);
  });

  test('unparseable values become problems, never exceptions', () => {
    const { problems } = loadSettings({}, { FPA_ENROLLMENT_SESSION_TTL: 'soon', FPA_AGENT_RATE_LIMIT: 'lots', FPA_FINGERS_ALLOWED_MAX: 'ten' });
    expect(problems.map((p) => p.key).sort()).toEqual(['AGENT_RATE_LIMIT', 'ENROLLMENT_SESSION_TTL', 'FINGERS_ALLOWED_MAX']);
  });
});

describe('configuration check', () => {
  test('a range error reads a duration as it is written', () => {
    const loaded = loadSettings({ ...base, ATTENDANCE_SHIFT_SLACK: 13 * 3_600_000 } as never, {});
    const said = checkConfiguration({ loaded }).find((i) => i.code === 'fpa.E013');
    expect(said?.message).toBe('ATTENDANCE_SHIFT_SLACK is 13h; it must be from 0s to 12h.');
  });

  test('a good configuration has no errors', () => {
    expect(codesOf(base).filter((c) => c.startsWith('fpa.E'))).toEqual([]);
  });

  test('ENROLLEE_PIN_START up to the last 9-digit PIN is fine; above it is E013 naming the range', () => {
    expect(codesOf({ ...base, ENROLLEE_PIN_START: 999_999_999 })).not.toContain('fpa.E013');
    const loaded = loadSettings({ ...base, ENROLLEE_PIN_START: 1_000_000_000 } as never, {});
    const said = checkConfiguration({ loaded }).find((i) => i.code === 'fpa.E013');
    expect(said?.message).toBe('ENROLLEE_PIN_START is 1000000000; it must be an integer from 0 to 999999999.');
  });

  test.each([
    ['fpa.E001', { ...base, TEMPLATE_ENCRYPTION_KEYS: [] }],
    ['fpa.E002', { ...base, TEMPLATE_ENCRYPTION_KEYS: ['not-a-key'] }],
    ['fpa.E002', { ...base, TEMPLATE_ENCRYPTION_KEYS: [key, key.slice(0, -2) + 'AA'] }],
    ['fpa.E003', { ...base, ADMS_URL_PREFIX: '/iclock' }],
    ['fpa.E004', { ...base, FINGERS_REQUIRED_MIN: 5, FINGERS_ALLOWED_MAX: 2 }],
    ['fpa.E005', { ...base, ALLOWED_FINGER_INDEXES: [0, 12] }],
    ['fpa.E005', { ...base, ALLOWED_FINGER_INDEXES: [] }],
    ['fpa.E006', { ...base, TIME_ZONE: 'Mars/Olympus' }],
    // Intl takes a fixed offset as a zone; it is no IANA name and has no DST rules: warned, for an upgrade to start.
    ['fpa.W009', { ...base, TIME_ZONE: '+02:00' }],
    ['fpa.W009', { ...base, ATTENDANCE_TIME_ZONE: '+05:30' }],
    ['fpa.E007', { ...base, TASK_BACKEND: 'celery' }],
    ['fpa.E012', { ...base, DATABASE_URL: 'postgres://x' }],
    ['fpa.E013', { ...base, TEMPLATE_MAX_BYTES: 0 }],
    ['fpa.E013', { ...base, WEBHOOK_TIMEOUT: 0 }],
    ['fpa.E021', { ...base, HOST: 'not_a_host' }],
    ['fpa.E013', { ...base, RETENTION_EVENTS_DAYS: -1 }],
    ['fpa.E013', { ...base, RETENTION_PUNCHES_DAYS: -3 }],
    // Above the PIN allocator's last PIN: every enrollment would fail, the PINs exhausted.
    ['fpa.E013', { ...base, ENROLLEE_PIN_START: 1_000_000_000 }],
    ['fpa.W001', { ...base, ADMIN_JWT_SECRET: 'short' }],
    ['fpa.W002', { ...base, WEBHOOK_ALLOW_PRIVATE_NETWORKS: true }],
    ['fpa.W003', { ...base, ADMS_AUTO_APPROVE: true }],
    ['fpa.W004', { ...base, ENROLLMENT_REQUIRE_CONSENT: false }],
    ['fpa.W006', { ...base, ADMS_TRUST: 'serial' }],
    ['fpa.W011', { ...base, CONSOLE_TRUST_PROXY: true }],
    ['fpa.E017', { ...base, ADMS_TRUST: 'anyone' }],
  ])('%s is reported', (code, settings) => {
    expect(codesOf(settings)).toContain(code);
  });

  test('a malformed compatibility map is E008 and a bad env value E011', () => {
    expect(codesOf(base, { FPA_ALGORITHM_COMPATIBILITY_MAP: '{"10": "ten"}' })).toContain('fpa.E008');
    expect(codesOf(base, { FPA_ENROLLMENT_SESSION_TTL: 'whenever' })).toContain('fpa.E011');
  });

  test('standalone, EMPLOYEE_MODEL other than builtin names a directory nobody passed: E015', () => {
    expect(codesOf({ ...base, EMPLOYEE_MODEL: 'hr.Person' })).toContain('fpa.E015');
    expect(codesOf({ ...base, EMPLOYEE_MODEL: 'hr.Person' }, {}, { hostEmployeeModel: 'hr.Person' })).not.toContain('fpa.E015');
    expect(codesOf(base)).not.toContain('fpa.E015');
  });

  test('an employee model changed since the first migration is E010', () => {
    expect(codesOf(base, {}, { recordedEmployeeModel: 'builtin', hostEmployeeModel: 'hr.Person' })).toContain('fpa.E010');
    expect(codesOf(base, {}, { recordedEmployeeModel: 'builtin' })).not.toContain('fpa.E010');
  });

  test('every problem is reported at once, each with a hint', () => {
    const loaded = loadSettings({ TEMPLATE_ENCRYPTION_KEYS: [], ADMS_URL_PREFIX: 'iclock', TASK_BACKEND: 'x', TIME_ZONE: 'Nowhere' }, {});
    const issues = checkConfiguration({ loaded });
    expect(new Set(issues.map((i) => i.code))).toEqual(new Set(['fpa.E001', 'fpa.E003', 'fpa.E006', 'fpa.E007']));
    for (const i of issues) {
      expect(i.hint.length).toBeGreaterThan(0);
      expect(CHECK_CODES[i.code]).toBeDefined();
    }
  });

  test('an ADMS_ALLOWED_IPS entry that is not an address or a CIDR is E022, naming it; addresses and networks pass', () => {
    const issuesOf = (env: string) => checkConfiguration({ loaded: loadSettings(base as never, { FPA_ADMS_ALLOWED_IPS: env }) });
    for (const [text, bad] of [
      ['127.0.0.l', ['127.0.0.l']],
      ['999.1.1.1', ['999.1.1.1']],
      ['127.0.0.1,10.0.0.300', ['10.0.0.300']],
      ['10.0.0.0/33,terminals.local', ['10.0.0.0/33', 'terminals.local']],
    ] as const) {
      const e022 = issuesOf(text).filter((i) => i.code === 'fpa.E022');
      expect(e022.map((i) => i.severity)).toEqual(bad.map(() => 'error'));
      for (const [n, entry] of bad.entries()) expect(e022[n]!.message).toContain(`"${entry}"`);
    }
    expect(issuesOf('127.0.0.1,10.20.0.0/16,fd12:3456::/48,::1,10.0.0.1/24').map((i) => i.code)).not.toContain('fpa.E022');
  });

  test('W006 is for ADMS_TRUST=serial only: the default pins terminals to their address, `key` asks for a key', () => {
    expect(codesOf(base)).not.toContain('fpa.W006');
    expect(codesOf({ ...base, ADMS_TRUST: 'key' })).not.toContain('fpa.W006');
    expect(codesOf({ ...base, ADMS_TRUST: 'serial', ADMS_ALLOWED_IPS: ['10.0.0.0/8'] })).toContain('fpa.W006');
    expect(codesOf(base, { FPA_ADMS_TRUST: 'serial' })).toContain('fpa.W006');
  });

  test('single sign-on is an issuer and a client id together (E030), over HTTPS off this machine (W030)', () => {
    const sso = { CONSOLE_OIDC_ISSUER: 'https://login.example.com/realms/staff', CONSOLE_OIDC_CLIENT_ID: 'attendance' };
    expect(codesOf({ ...base, ...sso }).filter((c) => c.includes('030'))).toEqual([]);
    expect(codesOf({ ...base, CONSOLE_OIDC_ISSUER: sso.CONSOLE_OIDC_ISSUER })).toContain('fpa.E030');
    expect(codesOf({ ...base, CONSOLE_OIDC_CLIENT_ID: 'attendance' })).toContain('fpa.E030');
    expect(codesOf({ ...base, ...sso, CONSOLE_OIDC_ISSUER: 'login.example.com' })).toContain('fpa.E030');
    expect(codesOf({ ...base, ...sso, CONSOLE_OIDC_ISSUER: 'http://login.example.com' })).toContain('fpa.W030');
    expect(codesOf({ ...base, ...sso, CONSOLE_OIDC_ISSUER: 'http://127.0.0.1:8080' })).not.toContain('fpa.W030');
  });

  test('no administrator JWT settings is a valid configuration (users, API keys and the scripts need none)', () => {
    expect(codesOf({ ...base, ADMIN_JWT_SECRET: '', ADMIN_JWKS_URL: '' })).toEqual([]);
    expect(CHECK_CODES['fpa.E009']).toBeUndefined();
  });
});

describe('settings the check once let through', () => {
  test('CONSOLE_URL must be an http(s) URL (empty: the server’s own address)', () => {
    for (const url of ['notaurl', 'ftp://x y/console', 'ftp://files.example.com/console', 'http://x y/']) {
      expect({ url, codes: codesOf({ ...base, CONSOLE_URL: url }) }).toEqual({ url, codes: ['fpa.E025'] });
    }
    for (const url of ['', 'https://attendance.example.com/console/', 'http://10.0.0.5:3000']) {
      expect({ url, codes: codesOf({ ...base, CONSOLE_URL: url }) }).toEqual({ url, codes: [] });
    }
  });

  test('an FPA_ variable that names no setting is a warning, with the setting it was probably meant for', () => {
    const loaded = loadSettings(base as never, { FPA_ADMS_ALLOWED_IP: '10.0.0.0/8', FPA_UNKNOWN_SETTING: 'x', FPA_TIME_ZONE: 'UTC', HOME: '/root' });
    const issues = checkConfiguration({ loaded }).filter((i) => i.code === 'fpa.W007');
    expect(issues.map((i) => [i.message, i.hint])).toEqual([
      ['FPA_ADMS_ALLOWED_IP is set but is no setting: it is ignored.', 'Did you mean FPA_ADMS_ALLOWED_IPS?'],
      ['FPA_UNKNOWN_SETTING is set but is no setting: it is ignored.', 'See the configuration table in the README for the settings’ names.'],
    ]);
    expect(issues.every((i) => i.severity === 'warning')).toBe(true);
  });

  test('a setting set under its bare name (DATABASE_URL, as other tools name it) is a warning: only FPA_<KEY> is read (and PORT)', () => {
    const env = { DATABASE_URL: 'file:/tmp/elsewhere.db', TIME_ZONE: 'Europe/Berlin', FPA_TIME_ZONE: 'UTC', PORT: '3100', HOST: 'laptop', HOME: '/root' };
    const loaded = loadSettings(base as never, env);
    expect(loaded.settings.DATABASE_URL).not.toBe('file:/tmp/elsewhere.db');
    const issues = checkConfiguration({ loaded }).filter((i) => i.code === 'fpa.W007');
    // TIME_ZONE is set as FPA_TIME_ZONE too (the bare one is then no mistake of the setting's), PORT is read bare, HOST is a shell's.
    expect(issues.map((i) => [i.message, i.hint])).toEqual([
      ['DATABASE_URL is set, but settings are read from FPA_DATABASE_URL: it is ignored.', 'Set FPA_DATABASE_URL instead.'],
    ]);
  });

  test('--print hides credentials inside URLs as well as secret settings', () => {
    const { settings } = loadSettings(base as never, {
      FPA_DATABASE_URL: 'libsql://user:pass@db.example.com/fpa?tls=1&authToken=SECRET',
      FPA_DATABASE_SYNC_URL: 'libsql://db.example.com?authToken=SECRET2',
    });
    const printed = describeSettings(settings);
    expect(printed.DATABASE_URL).toBe('libsql://***@db.example.com/fpa?tls=1&authToken=***');
    expect(printed.DATABASE_SYNC_URL).toBe('libsql://db.example.com?authToken=***');
    expect(printed.TEMPLATE_ENCRYPTION_KEYS).toBe('<hidden>');
    expect(JSON.stringify(printed)).not.toMatch(/=SECRET|pass@/);
  });
});

describe('the README stays true', () => {
  test('its configuration table, check codes, routes, error statuses and event types match the code (bun src/cli.ts readme)', async () => {
    const docs = await import('../../src/cli/readme-blocks');
    const readme = await Bun.file(new URL('../../README.md', import.meta.url)).text();
    expect(docs.readBlock(readme, 'settings')).toBe(docs.settingsTableMarkdown());
    expect(docs.readBlock(readme, 'codes')).toBe(docs.checkCodesMarkdown());
    // The route table comes from the OpenAPI document a real instance serves.
    expect(docs.readBlock(readme, 'routes')).toBe(docs.routesTableMarkdown(await docs.servedOpenApiDocument()));
    expect(docs.readBlock(readme, 'errors')).toBe(docs.errorStatusMarkdown());
    expect(docs.readBlock(readme, 'events')).toBe(docs.eventsMarkdown());
  });

  test('every package.json script is in the README, as `npm run` (a machine with only Node and npm has no `bun` on its PATH)', async () => {
    const pkg = (await Bun.file(new URL('../../package.json', import.meta.url)).json()) as { scripts: Record<string, string> };
    const readme = await Bun.file(new URL('../../README.md', import.meta.url)).text();
    for (const name of Object.keys(pkg.scripts)) {
      if (name.startsWith('pre')) continue;
      expect(readme).toContain(`npm run ${name}`);
    }
    // Outside code blocks of the development notes, `bun run …` would fail as written there.
    expect(readme).not.toMatch(/(^|[\s`(])bun\s+run\s/m);
  });

  test('what it says about storing webhook signing secrets is what the code does: sealed under the key ring, never clear', async () => {
    const readme = await Bun.file(new URL('../../README.md', import.meta.url)).text();
    // Each paragraph or list item that says how webhook secrets are stored (the Decisions list once said "in clear text").
    const claims = readme.split(/\n(?=- |\n)/).filter((part) => /webhook (signing )?secrets are stored/i.test(part.replace(/\s+/g, ' ')));
    expect(claims.length).toBeGreaterThan(0);
    for (const claim of claims) expect({ claim, clear: /clear text|stored in clear/i.test(claim.replace(/\s+/g, ' ')) }).toEqual({ claim, clear: false });
    const { sealWebhookSecret } = await import('../../src/modules/webhooks/secrets');
    const { TemplateKeyRing } = await import('../../src/platform/crypto/template-cipher');
    expect(await sealWebhookSecret(await TemplateKeyRing.fromKeys([key]), 'endpoint-1', 'whsec_abc')).toStartWith('sealed1:');
  });

  test('its Upgrade names every migration since the second release, and rolls back to the commit step 1 recorded (there are no release tags)', async () => {
    const readme = await Bun.file(new URL('../../README.md', import.meta.url)).text();
    const upgrade = readme.slice(readme.indexOf('## Upgrade'), readme.indexOf('### Backups and restores')).replace(/\s+/g, ' ');
    const journal = (await Bun.file(new URL('../../migrations/meta/_journal.json', import.meta.url)).json()) as { entries: { tag: string }[] };
    const since = journal.entries.map((e) => e.tag.slice(0, 4)).filter((n) => n >= '0007');
    expect(since.filter((n) => !upgrade.includes(n))).toEqual([]);
    // What the steps say to type (README, Upgrade): recorded before, checked out on rollback, back on the branch at the next install.
    const code = [...upgrade.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
    expect(code).toContain('git rev-parse HEAD > data.bak-$(date +%F).commit');
    expect(code).toContain('git checkout --detach $(cat data.bak-<date>.commit) && (npm ci || npm install --no-save)');
    expect(/\*\*Install the new release\*\*: `([^`]+)`/.exec(upgrade)?.[1]).toBe('git restore package-lock.json && git switch main && git pull && npm ci');
    expect(upgrade).not.toContain('its tag');
  });

  test('where it says PINs start is where they start: ENROLLEE_PIN_START and its default, never "from 1"', async () => {
    const readme = await Bun.file(new URL('../../README.md', import.meta.url)).text();
    const { settings } = loadSettings({}, {});
    // Each paragraph or list item that says how PINs are handed out (the Decisions list once said "sequential from 1").
    const claims = readme
      .split(/\n(?=- |\n)/)
      .map((part) => part.replace(/\s+/g, ' '))
      .filter((part) => /PINs are numeric|sequential from|PINs from/i.test(part));
    expect(claims.length).toBeGreaterThan(0);
    for (const claim of claims) {
      expect({ claim, start: claim.includes('ENROLLEE_PIN_START') && claim.includes(`\`${settings.ENROLLEE_PIN_START}\``) }).toEqual({ claim, start: true });
      expect(claim).not.toMatch(/from 1\b/);
    }
  });

  test('its code fences pair up: none is left open to swallow the headings after it', async () => {
    const readme = await Bun.file(new URL('../../README.md', import.meta.url)).text();
    let open: { line: number; info: string } | null = null;
    const strays: number[] = [];
    for (const [i, line] of readme.split('\n').entries()) {
      const fence = /^```(.*)$/.exec(line);
      if (!fence) {
        // A heading inside a fence without a language (a shell block has `#` comments) is a fence left open above it.
        if (open && ['', 'markdown', 'md'].includes(open.info.trim()) && /^#{1,3} /.test(line)) strays.push(open.line);
        continue;
      }
      // Inside a fence, a line with an info string cannot close it: it is content, a sign of a stray opener.
      if (open && fence[1]!.trim() !== '') strays.push(open.line);
      open = open ? null : { line: i + 1, info: fence[1]! };
    }
    expect({ strays: [...new Set(strays)], unclosed: open?.line ?? null }).toEqual({ strays: [], unclosed: null });
  });
});
