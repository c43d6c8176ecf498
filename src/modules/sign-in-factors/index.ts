/** Second factors (TOTP with recovery codes, passkeys), the sign-in step they complete, and single sign-on (OpenID Connect). */
export { consoleFactorRoutes, type SessionOpener } from './console-routes';
export { enrollmentGate } from './enrollment-gate';
export { secondFactorGate } from './gate';
export type {
  FactorPolicyWire,
  PasskeyAddedWire,
  PasskeyWire,
  PendingSignInWire,
  RecoveryCodesWire,
  SecondFactorsWire,
  SignedInWire,
  SsoWire,
  TotpSetupWire,
} from './model';
export { SingleSignOn } from './oidc';
export type { FactorUser, FactorUserDirectory, PasswordCheck, SignInThrottle } from './ports';
export { factorRoutes } from './routes';
export { FACTOR_SETTINGS } from './runtime';
export { rotateTotpSecrets, sealedTotpSamples } from './sealing';
export { FactorSignIn } from './second-step';
export { SecondFactors } from './service';
