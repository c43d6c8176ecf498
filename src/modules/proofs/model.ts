/** The proofs module's HTTP model: the deletion proof and the published key set. */
import { type Static, t } from 'elysia';
import { Instant, Int, Nullable, OneOf } from '../../platform/http/model';
import { DELETION_REASONS } from './tables';

export const TERMINAL_PROOF_STATUSES = ['confirmed', 'pending', 'unreachable'] as const;

export const ProofCommand = t.Object(
  {
    id: Int({ description: 'The delete command (`devices/{sn}/commands/`).' }),
    kind: t.String({ description: '`delete_user` (the person and everything of theirs) or `delete_template` (one body part).' }),
    status: t.String({ description: 'The command’s status when last heard of: `pending`, `sent`, `succeeded`, `failed`, `cancelled`.' }),
    return_code: Nullable(Int({ description: 'The terminal’s `Return=` code (0: done; -10: the user was not on the terminal, nothing left to delete).' })),
    at: Nullable(Instant('When the terminal answered.')),
  },
  {
    description:
      'The delete command of this terminal the proof rests on: the one it answered when `confirmed`; while `pending` or `unreachable`, the delete it still owes as it stands now (an error answer shown with its code while it is retried).',
  },
);

export const ReturnedDataModel = t.Object(
  {
    at: Instant('When the terminal uploaded it.'),
    type: t.String({
      description: '`fingerprint`, `face`, `visible_face`, `palm`, `finger_vein`, or a biometric the service does not keep (`face_photo`, `user_photo`…).',
    }),
    index: Int({ description: 'The body part: finger 0–9, palm 0/1, face 0.' }),
    command: Int({ description: 'The delete the service queued for it (`devices/{sn}/commands/`): the terminal is `pending` until it answers it.' }),
    was_confirmed_at: Nullable(Instant('When the terminal had confirmed its earlier delete (null: it had not yet, or held nothing of the person before).')),
  },
  {
    description:
      'The person’s data the terminal uploaded again after the deletion was asked (a finger enrolled again at its menu, say): the service refused it and queued its delete.',
  },
);

export const ProofTerminal = t.Object({
  serial_number: t.String(),
  status: OneOf(
    TERMINAL_PROOF_STATUSES,
    '`confirmed`: the terminal answered the delete; `pending`: not yet; `unreachable`: not heard from for DELETION_PROOF_UNREACHABLE_AFTER (a removed terminal that never came back).',
  ),
  confirmed_at: Nullable(Instant()),
  last_heard_at: Nullable(
    Instant(
      'While `pending` or `unreachable`: when the terminal was last heard from (a removed one: before its removal; null: never, or confirmed). `unreachable` counts from it.',
    ),
  ),
  command: Nullable(ProofCommand),
  data_returned: t.Array(ReturnedDataModel, {
    description:
      'The person’s data this terminal uploaded again after the deletion was asked, oldest first (empty: none). Each puts the terminal back to `pending` until it answers that delete.',
  }),
});

export const ProofRequestModel = t.Object({
  reason: OneOf(DELETION_REASONS, 'Consent withdrawn, or the person deleted.'),
  at: Instant('When it was asked (and the server destroyed their templates).'),
  templates_destroyed: Int({ description: 'Templates it destroyed on the server (0: none were left).' }),
});

/** What the signature covers: the proof without `signature`. */
const proofFields = {
  enrollee: t.String({ description: 'The person’s enrollee id.' }),
  employee: Nullable(
    t.String({
      description: 'The person’s employee key (the HR system’s id); null once retention no longer keeps it (RETENTION_PUNCHES_DAYS after the deletion).',
    }),
  ),
  reason: OneOf(DELETION_REASONS, 'What asked for the deletion: consent withdrawn, or the person deleted (the latest request).'),
  requested_at: Instant('When the deletion was first asked for (the first of `requests`): a later request never moves it, so no confirmation predates it.'),
  requests: t.Array(ProofRequestModel, {
    description:
      'Every request, oldest first: a withdrawal of consent, the person’s deletion. A request that changed nothing (a withdrawal with nothing left to withdraw) is not one.',
  }),
  server: t.Object({
    templates_destroyed: Int({ description: 'Templates destroyed on the server (over every request).' }),
    at: Instant('When the server destroyed them (the latest request).'),
  }),
  terminals: t.Array(ProofTerminal, { description: 'Every terminal that held, or was about to receive, the person’s data when it was asked.' }),
  complete: t.Boolean({ description: 'Every terminal confirmed.' }),
  completed_at: Nullable(Instant()),
  issued_at: Instant('When this document was made (signed).'),
};

export const DeletionProofBody = t.Object(proofFields);

export const DeletionProof = t.Object({
  ...proofFields,
  signature: t.String({
    description:
      'A compact JWS (ES256, `typ` `fpa-deletion-proof+json`) whose payload is this document without `signature`; verify it with the key set at `/.well-known/fpa-proof-key.json`.',
  }),
});

export const JwksModel = t.Object(
  { keys: t.Array(t.Record(t.String(), t.String())) },
  {
    description:
      'JSON Web Key Set (RFC 7517), newest key first. A retired key carries `fpa_retired_at` (ISO 8601): it signed nothing after then, so a proof it signed is genuine only if issued before.',
  },
);

/** The proof as the API answers it (the console reads it). */
export type DeletionProofView = Static<typeof DeletionProof>;
