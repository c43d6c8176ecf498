/** The enrollment module's HTTP model: the agent API (docs/spec.md) and the administrators' routes. */
import type { Static } from '@sinclair/typebox';
import { t } from 'elysia';
import { Body, Instant, Int, Nullable, OneOf, Page, PageQuery, Text, Uuid } from '../../platform/http/model';
import { BIOMETRIC_TYPES } from '../../protocol/adms';
import { SESSION_STATUSES, SYNC_STATUSES, TEMPLATE_SOURCES } from './tables';

/** A finger index; one outside ALLOWED_FINGER_INDEXES is refused by the rules (422 `finger_not_allowed`). */
const FingerIndex = Int({ description: 'Finger index (0 left little … 9 right little); must be in ALLOWED_FINGER_INDEXES.' });
const Fingers = (description: string) => t.Array(FingerIndex, { minItems: 1, maxItems: 20, description });

export const SessionParams = t.Object({ id: Text({ maxLength: 100, description: 'Session id (UUID).' }) });
export const AgentParams = t.Object({ id: Text({ maxLength: 100, description: 'Agent id (UUID).' }) });

export const Session = t.Object(
  {
    id: Uuid(),
    kind: OneOf(['agent', 'remote'], '`agent`: a desktop agent; `remote`: a terminal enrolls on command.'),
    status: OneOf(SESSION_STATUSES, 'open → in_progress (claim) → completed | cancelled | failed; expired after ENROLLMENT_SESSION_TTL.'),
    enrollee: t.Object({ id: Uuid(), display_name: t.String(), device_pin: t.String() }),
    consent_recorded: t.Boolean({
      description:
        'The enrollee’s consent is on record now. With ENROLLMENT_REQUIRE_CONSENT, uploads and completion are refused (422 `consent_required`) until it is: tell the person before they scan.',
    }),
    biometric: OneOf(BIOMETRIC_TYPES, 'What is enrolled: fingers, or (remote sessions) a face or palm.'),
    fingers_requested: t.Array(Int(), { description: 'Body parts to capture: fingers 0–9 (a face is 0; palms 0/1).' }),
    fingers_captured: t.Array(Int(), { description: 'Fingers uploaded so far.' }),
    agent: Nullable(Uuid('The agent of an agent session.')),
    device: Nullable(t.String({ description: 'Serial number of the terminal of a remote session.' })),
    reason: Nullable(t.String({ description: 'Why the session closed (cancel reason, expiry, failure).' })),
    created_at: Instant(),
    claimed_at: Nullable(Instant()),
    closed_at: Nullable(Instant()),
    expires_at: Instant(),
  },
  { description: 'An enrollment session.', title: 'Session' },
);

export const CompletedSession = t.Composite(
  [
    Session,
    t.Object({
      templates: t.Array(
        t.Object({
          finger_index: Int(),
          algorithm_version: t.String(),
          version: Int({ description: 'Version of the stored template (1 for a new finger).' }),
          queued_to: Int({ description: 'Terminals the template was queued to.' }),
          incompatible: Int({ description: 'In-scope terminals whose algorithm cannot use it.' }),
        }),
      ),
    }),
  ],
  { title: 'CompletedSession' },
);

export const AgentInfo = t.Object(
  {
    id: Uuid(),
    name: t.String(),
    algorithm_version: t.String(),
    allowed_fingers: t.Array(Int(), { description: 'ALLOWED_FINGER_INDEXES.' }),
    can_start_sessions: t.Boolean({ description: 'AGENT_CAN_START_SESSIONS.' }),
    consent_required: t.Boolean({ description: 'ENROLLMENT_REQUIRE_CONSENT.' }),
    limits: t.Object({
      template_max_bytes: Int(),
      fingers_required_min: Int(),
      fingers_allowed_max: Int(),
      session_ttl_seconds: Int(),
      rate_limit: t.Object({ requests: Int(), window_seconds: t.Number() }),
    }),
    server_time: Instant(),
  },
  { title: 'AgentInfo' },
);

/** The agent API keeps accepting fields it does not know, so existing desktop agents work unchanged. */
export const AgentStartSession = t.Object(
  {
    enrollee: Text({ maxLength: 100, description: 'Enrollee UUID or device PIN.' }),
    fingers: Fingers('Fingers to capture (allowed, unique, at most FINGERS_ALLOWED_MAX).'),
  },
  { additionalProperties: true, title: 'AgentStartSession' },
);

export const TemplateUpload = t.Object(
  {
    finger_index: FingerIndex,
    algorithm_version: Text({ maxLength: 32, description: 'Must equal the agent’s registered algorithm.' }),
    template: t.String({ description: 'Standard base64 (RFC 4648, padded) of the template bytes, at most TEMPLATE_MAX_BYTES decoded.' }),
    quality: t.Optional(Nullable(Int({ minimum: 0, description: 'Quality score from the reader.' }))),
  },
  { additionalProperties: true, title: 'TemplateUpload' },
);

export const UploadResult = t.Object(
  {
    captured: t.Array(Int(), { description: 'Fingers staged on the session.' }),
    remaining: t.Array(Int(), { description: 'Requested fingers still missing.' }),
  },
  { title: 'UploadResult' },
);

/** Null, no body or an object: the agent API passes a JSON `null` body on (src/modules/enrollment/agent-routes.ts). */
export const CancelSession = t.Optional(
  Nullable(t.Object({ reason: t.Optional(Nullable(Text({ minLength: 0, maxLength: 500 }))) }, { additionalProperties: true, title: 'CancelSession' })),
);

export const Agent = t.Object(
  {
    id: Uuid(),
    name: t.String(),
    algorithm_version: t.String({ description: 'Algorithm version of the agent’s reader; uploads must carry it.' }),
    key_prefix: t.String({ description: 'Public part of the key (`fpa_<prefix>_…`), to tell keys apart.' }),
    status: OneOf(['active', 'revoked']),
    created_by: t.String(),
    created_at: Instant(),
    revoked_at: Nullable(Instant()),
    last_used_at: Nullable(Instant('Last authenticated request (minute resolution).')),
    areas: t.Array(t.String(), { description: 'Areas whose people this agent enrolls (names); empty: every area.' }),
  },
  { title: 'Agent' },
);

export type AgentView = Static<typeof Agent>;

export const AgentWithKey = t.Composite(
  [Agent, t.Object({ key: t.String({ description: 'The agent key `fpa_<prefix>_<secret>`; shown this one time, only its SHA-256 digest is stored.' }) })],
  { title: 'AgentWithKey' },
);

export const AgentCreate = Body(
  {
    name: Text({ maxLength: 200 }),
    algorithm_version: Text({ maxLength: 32 }),
    areas: t.Optional(
      t.Array(Text({ maxLength: 100 }), {
        maxItems: 100,
        description:
          'Areas from `areas/` whose people the agent enrolls; empty or left out: every area, or for a caller limited to areas, the caller’s own. An unknown name is 422.',
      }),
    ),
  },
  { title: 'AgentCreate' },
);

export const AgentList = { query: t.Object({ status: t.Optional(OneOf(['active', 'revoked'])), ...PageQuery }), response: Page(Agent) };

export const AdminStartSession = Body(
  {
    enrollee: Text({ maxLength: 100, description: 'Enrollee UUID (a device PIN is accepted too).' }),
    agent: Text({ maxLength: 100, description: 'The agent that will capture (its id).' }),
    fingers: Fingers('Fingers to capture.'),
  },
  { title: 'AdminStartSession' },
);

export const SessionList = {
  query: t.Object({
    status: t.Optional(OneOf(SESSION_STATUSES)),
    kind: t.Optional(OneOf(['agent', 'remote'])),
    agent: t.Optional(Text({ maxLength: 100 })),
    enrollee: t.Optional(Text({ maxLength: 100, description: 'Enrollee UUID or device PIN.' })),
    ...PageQuery,
  }),
  response: Page(Session),
};

export const RemoteEnrollmentCreate = Body(
  {
    device: t.String({ pattern: '^[A-Za-z0-9_.-]{1,64}$', description: 'Serial number of the terminal.' }),
    type: t.Optional(OneOf(BIOMETRIC_TYPES, 'What to enroll (default `fingerprint`); a face or palm needs a terminal that declares it.')),
    fingers: t.Optional(Fingers('Fingers (or palms: 0 left, 1 right) to enroll, one after the other; required for fingerprints, a face is 0.')),
  },
  { title: 'RemoteEnrollmentCreate' },
);

// ---------------------------------------------------------------- consent and templates

export const ConsentCreate = Body(
  {
    version: Text({ maxLength: 100, description: 'Version of the consent text the person agreed to.' }),
    method: Text({ maxLength: 100, description: 'How consent was given, e.g. `signed form`.' }),
  },
  { title: 'ConsentCreate' },
);

export const ConsentWithdrawn = t.Object({ withdrawn: t.Boolean(), templates_destroyed: Int() }, { title: 'ConsentWithdrawn' });

/** One consent record of a person's history (`enrollees/{id}/consents/`): what the record holds, never anything biometric. */
export const ConsentRecord = t.Object(
  {
    version: t.String({ description: 'Version of the consent text the person agreed to.' }),
    method: t.String({ description: 'How consent was given, e.g. `signed form`.' }),
    given_at: Instant(),
    given_by: t.String({ description: 'Who recorded it (the caller then).' }),
    withdrawn_at: Nullable(Instant('When it ended; null while it stands.')),
    withdrawn_by: Nullable(t.String({ description: 'Who ended it: who withdrew it, deleted the person or recorded the consent that replaced it.' })),
    ended: Nullable(
      OneOf(
        ['withdrawn', 'replaced'],
        'How it ended: `withdrawn` (consent withdrawn, or the person deleted), `replaced` (a new consent was recorded: `withdrawn_at` is its `given_at`); null while it stands.',
      ),
    ),
    templates_destroyed: Nullable(Int({ description: 'Biometric templates its withdrawal destroyed on the server (null: none recorded, or replaced).' })),
  },
  { title: 'ConsentRecord' },
);

export type ConsentRecordView = Static<typeof ConsentRecord>;

export const ConsentHistory = { query: t.Object({ ...PageQuery }), response: Page(ConsentRecord) };

export const TemplateInfo = t.Object(
  {
    id: Uuid(),
    type: OneOf(BIOMETRIC_TYPES, '`fingerprint`, `face` (near-infrared), `visible_face`, `palm`, `finger_vein`.'),
    index: Int({ description: 'The body part: finger 0 (left little) … 9 (right little); palm 0 left, 1 right; a face is 0.' }),
    part: Int({ description: 'Position in a multi-template set (a palm is 5 templates, 0–4); 0 for a fingerprint.' }),
    finger_index: Int({ description: 'The same as `index` (kept for fingerprint clients of the first release).' }),
    algorithm_version: t.String(),
    version: Int({ description: 'Increases on every replacement.' }),
    size: Int({ description: 'Bytes.' }),
    quality: Nullable(Int()),
    source: OneOf(TEMPLATE_SOURCES),
    updated_at: Instant(),
    sync: t.Array(
      t.Object({
        device: t.String(),
        status: OneOf(SYNC_STATUSES, 'Of `version` on that terminal.'),
        version: Int({ description: 'The version `status` is about: the template’s, or an earlier one that a later version did not replace there.' }),
        held_version: Nullable(
          Int({
            description:
              'The version the terminal confirmed it holds (took, or uploaded); null: none. An earlier one stays there while a later version is refused, fails or cannot go there, and a withdrawal deletes it.',
          }),
        ),
        detail: Nullable(t.String()),
        updated_at: Instant(),
      }),
      {
        description:
          'Per-terminal status of a version: `pending`, `present`, `incompatible` (the terminal cannot use the algorithm) or `failed`; beside it the version the terminal holds.',
      },
    ),
  },
  { title: 'TemplateInfo' },
);

export type TemplateView = Static<typeof TemplateInfo>;

export const TemplateList = t.Object({ results: t.Array(TemplateInfo), next_cursor: t.Null() });
