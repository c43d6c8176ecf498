/** The sign-in-factors module's HTTP model: a user's own second factors, the roles that require one, the sign-in step. */
import type { Static } from '@sinclair/typebox';
import { t } from 'elysia';
import { ROLES } from '../../platform/http/caller';
import { Body, Instant, Int, Nullable, OneOf, Text } from '../../platform/http/model';

export const SecondFactorKindModel = OneOf(
  ['none', 'totp', 'passkey'],
  'The strongest second factor the user has: `passkey`, `totp` (an authenticator app), or `none`.',
);

export const PasskeyView = t.Object(
  {
    id: t.String({ description: 'The credential id (base64url).' }),
    name: t.String(),
    created_at: Instant(),
    last_used_at: Nullable(Instant()),
    backed_up: t.Boolean({ description: 'Synced by its platform (a phone or password manager), so it survives a lost device.' }),
  },
  { title: 'Passkey' },
);

export const PasskeyAdded = t.Composite(
  [
    PasskeyView,
    t.Object({
      recovery_codes: Nullable(t.Array(t.String(), { description: 'Ten recovery codes when this is the user’s first factor (shown this once); else null.' })),
    }),
  ],
  { title: 'PasskeyAdded' },
);

export const SecondFactorsView = t.Object(
  {
    second_factor: SecondFactorKindModel,
    totp: t.Object({ confirmed_at: Nullable(Instant('When the authenticator app was set up; null: none.')) }),
    passkeys: t.Array(PasskeyView),
    recovery_codes_left: Int({ minimum: 0 }),
    required: t.Boolean({ description: 'The user’s role requires a second factor (`users/second-factor-policy/`).' }),
    password_set: t.Boolean({
      description: 'The user has a password here, asked again before a factor is added or removed; false for one who signs in only by single sign-on.',
    }),
  },
  { title: 'SecondFactors' },
);

export const TotpSetupView = t.Object(
  {
    secret: t.String({ description: 'The secret in base32, for typing into an app by hand; shown this once.' }),
    otpauth_uri: t.String({ description: 'The `otpauth://totp/…` URI an authenticator app scans (SHA-1, 6 digits, 30 s).' }),
    qr_svg: t.String({ description: 'The URI as a QR code (SVG).' }),
  },
  { title: 'TotpSetup' },
);

export const CodeBody = Body({ code: Text({ maxLength: 20, description: 'The 6-digit code the app shows now.' }) }, { title: 'TotpCode' });

/**
 * The proof asked before a second factor is removed or recovery codes are made: the user's
 * current password, as a password change asks it (a session alone is not enough).
 */
export const CurrentPasswordBody = Body({ current_password: Text({ maxLength: 256, description: 'Your current password.' }) }, { title: 'CurrentPassword' });

/** Adding a factor: the password is asked of a user who has one (one who signs in only by single sign-on has none to give). */
export const AddFactorBody = Body(
  { current_password: t.Optional(Text({ maxLength: 256, description: 'Your current password; required unless you sign in only by single sign-on.' })) },
  { title: 'AddFactor' },
);

export const RecoveryCodesView = t.Object(
  { recovery_codes: Nullable(t.Array(t.String(), { description: 'Ten single-use codes, shown this once; null when the user still has unused ones.' })) },
  { title: 'RecoveryCodes' },
);

/** What the browser adds to a WebAuthn answer (`getClientExtensionResults()`): none is asked, `credProps` may come. */
const ExtensionResults = Body({ credProps: t.Optional(Body({ rk: t.Optional(t.Boolean()) })) });
const B64 = (maxLength: number) => Text({ maxLength, description: 'base64url' });
const Attachment = t.Optional(OneOf(['platform', 'cross-platform']));

/** The browser's answer to `navigator.credentials.create()`, as `@simplewebauthn/browser` encodes it (the library checks the rest). */
const RegistrationResponse = Body(
  {
    id: B64(1400),
    rawId: B64(1400),
    type: t.Literal('public-key'),
    authenticatorAttachment: Attachment,
    clientExtensionResults: ExtensionResults,
    response: Body({
      clientDataJSON: B64(4000),
      attestationObject: B64(20_000),
      authenticatorData: t.Optional(B64(20_000)),
      transports: t.Optional(t.Array(Text({ maxLength: 20 }), { maxItems: 10 })),
      publicKeyAlgorithm: t.Optional(t.Integer()),
      publicKey: t.Optional(B64(4000)),
    }),
  },
  { title: 'WebAuthnRegistration', description: 'The JSON of the `PublicKeyCredential` the browser made.' },
);

/** The browser's answer to `navigator.credentials.get()`. */
const AuthenticationResponse = Body({
  id: B64(1400),
  rawId: B64(1400),
  type: t.Literal('public-key'),
  authenticatorAttachment: Attachment,
  clientExtensionResults: ExtensionResults,
  response: Body({
    clientDataJSON: B64(4000),
    authenticatorData: B64(20_000),
    signature: B64(2000),
    userHandle: t.Optional(B64(200)),
  }),
});

export const PasskeyCreate = Body(
  { name: t.Optional(Text({ maxLength: 80, description: 'What to call it (“Work laptop”).' })), response: RegistrationResponse },
  { title: 'PasskeyCreate' },
);

export const PasskeyParams = t.Object({ id: Text({ maxLength: 1500 }) });

export const WebAuthnOptions = t.Record(t.String(), t.Unknown(), { description: 'The options for `navigator.credentials` (WebAuthn JSON).' });

export const FactorPolicyView = t.Object(
  { roles: t.Array(OneOf(ROLES), { description: 'Users of these roles must have a second factor: without one they set one up before the console opens.' }) },
  { title: 'SecondFactorPolicy' },
);

export const FactorPolicyBody = Body({ roles: t.Array(Text({ maxLength: 20 }), { maxItems: 10 }) }, { title: 'SecondFactorPolicyUpdate' });

/** `GET /console/sign-in/second-factor`: the step after a correct password. */
export const PendingSignInView = t.Object({
  username: t.String(),
  first: OneOf(['password', 'sso'], 'How the sign-in began: a password, or the company’s provider.'),
  methods: t.Array(OneOf(['passkey', 'totp', 'recovery_code'])),
  expires_at: Instant(),
});

export const SecondFactorAnswerBody = Body({
  code: t.Optional(Text({ maxLength: 20 })),
  recovery_code: t.Optional(Text({ maxLength: 40 })),
});

export const PasskeyAnswerBody = Body({ response: AuthenticationResponse });

export const SignedInView = t.Object({
  signed_in: t.Boolean(),
  must_enroll: t.Boolean({ description: 'The role requires a second factor the user does not have: the console opens on the profile page to set one up.' }),
});

/** What the sign-in page needs to know about single sign-on. */
export const SsoView = t.Object({ configured: t.Boolean(), name: Nullable(t.String()) });

/** The wire shapes the console client reads (`import type`). */
export type SecondFactorsWire = Static<typeof SecondFactorsView>;
export type TotpSetupWire = Static<typeof TotpSetupView>;
export type RecoveryCodesWire = Static<typeof RecoveryCodesView>;
export type PasskeyWire = Static<typeof PasskeyView>;
export type PasskeyAddedWire = Static<typeof PasskeyAdded>;
export type FactorPolicyWire = Static<typeof FactorPolicyView>;
export type PendingSignInWire = Static<typeof PendingSignInView>;
export type SignedInWire = Static<typeof SignedInView>;
export type SsoWire = Static<typeof SsoView>;
