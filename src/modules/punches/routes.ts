/** `punches/latest/` (polling by sequence) and `punches/` (filtered, cursor-paged), API.md. */
import type { Core } from '../../app/core';
import { adminRouter, limitOf } from '../../platform/http/router';
import { FpaError } from '../../platform/errors';

/** Reads `?after=`: a non-negative integer sequence, 0 when absent. */
export function afterOf(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 0;
  if (!/^\d{1,15}$/.test(raw)) throw new FpaError('validation_error', 'after must be a non-negative integer sequence', { field: 'after', value: raw });
  return Number(raw);
}

export function punchRoutes(core: Core) {
  const { punches } = core;
  return adminRouter(core, 'admin-punches')
    .get('/punches/latest', ({ query }) => punches.latest(afterOf(query.after), limitOf(query)))
    .get('/punches', ({ query }) =>
      punches.list({
        employee: query.employee || undefined,
        device: query.device || undefined,
        from: query.from || undefined,
        to: query.to || undefined,
        cursor: query.cursor || undefined,
        limit: limitOf(query),
      }),
    );
}
