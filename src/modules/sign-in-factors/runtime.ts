/** The settings this module reads: all it is given of them (src/platform/runtime.ts). */
import type { Settings } from '../../platform/config/settings';
import type { ModuleRuntime, Sealing } from '../../platform/runtime';

export const FACTOR_SETTINGS = [
  'CONSOLE_OIDC_CLIENT_ID',
  'CONSOLE_OIDC_CLIENT_SECRET',
  'CONSOLE_OIDC_ISSUER',
  'CONSOLE_OIDC_NAME',
  'CONSOLE_TRUST_PROXY',
  'CONSOLE_URL',
] as const satisfies readonly (keyof Settings)[];

export type FactorRuntime = ModuleRuntime<(typeof FACTOR_SETTINGS)[number]> & Sealing;
