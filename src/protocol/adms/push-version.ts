/** What the doc says to assume when a device sends no `pushver` (pre-2.0 firmware). */
export const LEGACY_PUSH_VERSION = '2.2.14';
/** Highest attendance push version this server speaks. */
export const SERVER_PUSH_VERSION = '2.4.1';

function versionParts(v: string): number[] | null {
  const t = v.trim();
  if (!/^\d{1,6}(\.\d{1,6})*$/.test(t)) return null;
  return t.split('.').map(Number);
}

/** Numeric dotted-version comparison; unparsable versions sort first. */
export function comparePushVersions(a: string, b: string): number {
  const pa = versionParts(a);
  const pb = versionParts(b);
  if (!pa || !pb) return pa ? 1 : pb ? -1 : 0;
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

/** Both sides use the lower version ([ATT] appendix 6); no or garbled pushver means 2.2.14. */
export function negotiatePushVersion(devicePushver: string | null | undefined): string {
  const device = devicePushver?.trim() ?? '';
  if (versionParts(device) === null) return LEGACY_PUSH_VERSION;
  return comparePushVersions(device, SERVER_PUSH_VERSION) < 0 ? device : SERVER_PUSH_VERSION;
}

/** Security PUSH (access-control firmware) announces 3.x and needs registry/push (§3). */
export function isSecurityPush(devicePushver: string | null | undefined): boolean {
  const parts = versionParts(devicePushver ?? '');
  return parts !== null && (parts[0] ?? 0) >= 3;
}
