/** Upper bound for a user PIN; models differ (§5.3), 24 covers every firmware seen. */
export const MAX_PIN_LENGTH = 24;

/**
 * Validate a PIN as it arrives. It stays a string: leading zeros and letters occur.
 * Returns the reason it is unusable, or null when it is fine.
 */
export function pinProblem(pin: string): string | null {
  if (pin === '') return 'empty PIN';
  if (/[\s\p{Cc}]/u.test(pin)) return 'PIN contains whitespace or control characters';
  if ([...pin].length > MAX_PIN_LENGTH) return `PIN longer than ${MAX_PIN_LENGTH} characters`;
  return null;
}
