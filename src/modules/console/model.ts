/** The console module's HTTP model. */
import { t } from 'elysia';
import { Body, Instant, Nullable, Text } from '../../platform/http/model';

/** `GET /console/session`: who is signed in and what the client needs to act for them. */
export const ConsoleSessionView = t.Object({
  actor: t.String(),
  /** The caller's role (API.md's roles) and the areas it is limited to (empty: everywhere). */
  role: t.String(),
  areas: t.Array(t.String()),
  /** What the role may call, as `METHOD path` rows of the policy (src/platform/http/policy.ts): the console offers only these. */
  actions: t.Array(t.String()),
  csrf_token: Nullable(t.String()),
  csrf_header: t.String(),
  expires_at: Nullable(Instant()),
  time_zone: t.String(),
  adms_path: t.String(),
  /** Whether a person's consent must be on record before their biometrics are taken (ENROLLMENT_REQUIRE_CONSENT). */
  consent_required: t.Boolean(),
  /** The largest file the imports take, in bytes: a CSV (`employees/import/`, `punches/import/`) and a terminal's USB file; the console checks a file before sending it. */
  import_max_bytes: t.Integer(),
  terminal_file_max_bytes: t.Integer(),
});

export const ConsoleLinkCreate = t.Optional(
  Body(
    { actor: t.Optional(Text({ maxLength: 200, description: 'Who the link signs in (recorded in the audit log); default: the caller.' })) },
    { title: 'ConsoleLinkCreate' },
  ),
);

/** `POST /console/sign-in/check`: the token the sign-in page read from its address (after `#`). */
export const LinkToken = Body({ token: Text({ maxLength: 200 }) }, { title: 'ConsoleLinkToken' });
export const LinkActor = t.Object({ actor: t.String({ description: 'Whom the link signs in.' }) });

export const ConsoleLink = t.Object(
  {
    actor: t.String(),
    sign_in_path: t.String({
      description: 'Path of the sign-in page with the one-time token after `#` (`/console/sign-in#token=fpc_…`); prefix it with the server’s address.',
    }),
    expires_at: Instant(),
  },
  { title: 'ConsoleLink' },
);
