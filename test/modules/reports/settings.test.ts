/** The report settings: COMPANY_NAME, and the font files REPORT_FONT / REPORT_FONT_BOLD checked at start (fpa.E020). */
import { describe, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { checkConfiguration } from '../../../src/platform/config/check';
import { loadSettings } from '../../../src/platform/config/settings';
import { tempDir } from '../../support/harness';

describe('report settings', () => {
  const base = { TEMPLATE_ENCRYPTION_KEYS: ['k1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA='], ADMIN_JWT_SECRET: 'x'.repeat(40) };
  const check = (env: Record<string, string>) => checkConfiguration({ loaded: loadSettings(base, env) });

  test('COMPANY_NAME is read as it is; empty by default', () => {
    expect(loadSettings(base, { FPA_COMPANY_NAME: ' Müller & Söhne GmbH ' }).settings.COMPANY_NAME).toBe('Müller & Söhne GmbH');
    expect(loadSettings(base, {}).settings.COMPANY_NAME).toBe('');
  });

  test('a font that is missing or not a font is fpa.E020; a TrueType file passes', () => {
    const { dir, cleanup } = tempDir();
    try {
      const notFont = `${dir}/notes.txt`;
      writeFileSync(notFont, 'hello');
      const ttf = `${dir}/font.ttf`;
      writeFileSync(ttf, Buffer.from([0, 1, 0, 0, 0, 0]));
      const e020 = (env: Record<string, string>) => check(env).filter((i) => i.code === 'fpa.E020');
      expect(e020({ FPA_REPORT_FONT: `${dir}/missing.ttf` }).map((i) => i.message)).toEqual([expect.stringContaining('REPORT_FONT "')]);
      expect(e020({ FPA_REPORT_FONT_BOLD: notFont })).toHaveLength(1);
      expect(e020({ FPA_REPORT_FONT: ttf, FPA_REPORT_FONT_BOLD: ttf })).toEqual([]);
      expect(e020({})).toEqual([]);
    } finally {
      cleanup();
    }
  });
});
