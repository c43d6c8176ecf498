/** The biometrics module's HTTP model. */
import type { Static } from '@sinclair/typebox';
import { t } from 'elysia';
import { Body, Instant, Int, Nullable, OneOf, Text, Uuid } from '../../platform/http/model';
import { BIOMETRIC_TYPES } from '../../protocol/adms';
import { SYNC_STATUSES, TEMPLATE_SOURCES } from './tables';

export const ConsentCreate = Body(
  {
    version: Text({ maxLength: 100, description: 'Version of the consent text the person agreed to.' }),
    method: Text({ maxLength: 100, description: 'How consent was given, e.g. `signed form`.' }),
  },
  { title: 'ConsentCreate' },
);

export const ConsentWithdrawn = t.Object({ withdrawn: t.Boolean(), templates_destroyed: Int() }, { title: 'ConsentWithdrawn' });

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
    sync: t.Array(t.Object({ device: t.String(), status: OneOf(SYNC_STATUSES), detail: Nullable(t.String()), updated_at: Instant() }), {
      description: 'Per-terminal status: `pending`, `present`, `incompatible` (the terminal cannot use the algorithm) or `failed`.',
    }),
  },
  { title: 'TemplateInfo' },
);

export type TemplateView = Static<typeof TemplateInfo>;

export const TemplateList = t.Object({ results: t.Array(TemplateInfo), next_cursor: t.Null() });
