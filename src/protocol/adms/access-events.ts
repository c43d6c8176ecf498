/**
 * The `event` code of Security PUSH 3.x real-time events (`rtlog`) and stored access records
 * (`transaction` `eventtype`), [SEC] appendix 2 and 19. Only a verification that let the person
 * through is attendance; denials (unregistered, expired, anti-passback, temperature or mask
 * refusals), alarms (duress, tamper, forced door), door states and device happenings are not,
 * even when they carry the PIN of a real person.
 */

/**
 * Events of a person who verified and passed ([SEC] appendix 2): 0/14/17 opened after
 * verification, 1/16 verified in a normal-open period, 2/18/19 first person opens, 3/15/203
 * several people open, 207 opened by password, 208 super user opens, 215 first card opens by
 * password, 216 password in a normal-open period, 218 passed by identity card, 219 verified while
 * the exit button is normally open, 222 remote identification succeeded, 232 passed the verification.
 */
export const VERIFICATION_EVENTS: ReadonlySet<number> = new Set([0, 1, 2, 3, 14, 15, 16, 17, 18, 19, 203, 207, 208, 215, 216, 218, 219, 222, 232]);

export type AccessEventClass = 'verification' | 'normal' | 'denied' | 'alarm';

/**
 * What an event code is. A record without a code (older firmware, a `transaction` row without
 * `eventtype`) is a verification, as it always was. [SEC] ranges: 0–19 and 200–253 normal,
 * 20–99 error (a refusal), 100–199 alarm, 4000–4999 normal, 5000–5999 error, 6000–6999 alarm.
 */
export function classifyAccessEvent(event: number | null): AccessEventClass {
  if (event === null || VERIFICATION_EVENTS.has(event)) return 'verification';
  if ((event >= 20 && event < 100) || (event >= 5000 && event < 6000)) return 'denied';
  if ((event >= 100 && event < 200) || (event >= 6000 && event < 7000)) return 'alarm';
  return 'normal';
}

/** Short descriptions of the codes met most ([SEC] appendix 2), for the device log. */
const DESCRIPTIONS: Readonly<Record<number, string>> = {
  4: 'door opened with the emergency password',
  5: 'door opened in a normal-open period',
  6: 'linkage triggered',
  7: 'alarm cancelled',
  8: 'door opened remotely',
  9: 'door closed remotely',
  20: 'verified again too soon',
  21: 'verified outside the valid period',
  22: 'invalid time period',
  23: 'access denied',
  24: 'anti-passback',
  25: 'interlock',
  26: 'waiting for more people to verify',
  27: 'not registered',
  28: 'door open too long',
  29: 'privilege expired',
  30: 'wrong password',
  32: 'waiting for more people to verify',
  33: 'privilege expired',
  34: 'not registered',
  35: 'verified outside the valid period',
  38: 'card reported lost',
  39: 'blacklisted',
  41: 'wrong verification mode',
  44: 'remote identification failed',
  45: 'remote identification timed out',
  53: 'privilege expired',
  61: 'repeat verification',
  62: 'prohibited user',
  68: 'high body temperature, access denied',
  69: 'no mask, access denied',
  100: 'tamper alarm',
  101: 'door opened with the duress password',
  102: 'door forced open',
  103: 'door opened with a duress finger',
  104: 'invalid card alarm',
  105: 'cannot reach the server',
  200: 'door opened',
  201: 'door closed',
  202: 'exit button',
  204: 'normal-open period ended',
  205: 'normal-open set remotely',
  206: 'terminal started',
  209: 'exit button (locked)',
  214: 'connected to the server',
  220: 'auxiliary input disconnected',
  221: 'auxiliary input shorted',
  255: 'door status',
};

export function describeAccessEvent(event: number | null): string {
  if (event === null) return 'verification';
  return DESCRIPTIONS[event] ?? `event ${event}`;
}
