/**
 * An enrollee's consent and templates: `enrollees/{id}/consent/`, the history of their consents
 * `enrollees/{id}/consents/` and `enrollees/{id}/templates/` (docs/api.md).
 */
import { errors } from '../../platform/http/model';
import { adminRouter, type Http } from '../../platform/http/router';
import { Consent, EnrolleeParams, type EnrolleeService } from '../enrollees';
import { ConsentCreate, ConsentHistory, ConsentWithdrawn, TemplateList } from './model';
import type { Enrollment } from './module';

const tags = ['enrollees'];

const CONSENTS_SUMMARY = 'Every consent record of the person, oldest first: given (version, method, when, by whom), withdrawn or replaced (when, by whom)';
const CONSENTS_DESCRIPTION =
  'A deleted person’s records are answered too (for a caller whose areas they were in): what shows their data was processed with consent.';

export function biometricRoutes(http: Http, deps: { enrollment: Enrollment; enrollees: EnrolleeService }) {
  const { enrollment, enrollees } = deps;
  return adminRouter(http, 'biometrics')
    .post(
      '/enrollees/:id/consent',
      async ({ params, body, admin, scope, set }) => {
        await enrollees.get(params.id, undefined, scope);
        const consent = await enrollment.consent.give(params.id, { version: body.version, method: body.method, by: admin.by });
        set.status = 201;
        return consent;
      },
      {
        params: EnrolleeParams,
        body: ConsentCreate,
        response: { 201: Consent, ...errors('not_found', 'enrollee_inactive') },
        detail: { summary: 'Record consent (`by` is the caller)', tags },
      },
    )
    .delete(
      '/enrollees/:id/consent',
      async ({ params, admin, scope }) => {
        await enrollees.get(params.id, undefined, scope);
        return enrollment.consent.withdraw(params.id, { by: admin.by });
      },
      {
        params: EnrolleeParams,
        response: { 200: ConsentWithdrawn, ...errors('not_found') },
        detail: { summary: 'Withdraw consent: templates destroyed and deleted from terminals', tags },
      },
    )
    .get(
      '/enrollees/:id/consents',
      async ({ params, query, scope }) => {
        // A deleted person's too: the records that their data was processed lawfully outlive them.
        const enrollee = await enrollees.get(params.id, undefined, scope, { evenDeleted: true });
        return enrollment.consent.history(enrollee.id, { limit: query.limit ?? 100, cursor: query.cursor });
      },
      {
        params: EnrolleeParams,
        query: ConsentHistory.query,
        response: { 200: ConsentHistory.response, ...errors('not_found', 'invalid_cursor') },
        detail: { summary: CONSENTS_SUMMARY, description: CONSENTS_DESCRIPTION, tags },
      },
    )
    .get(
      '/enrollees/:id/templates',
      async ({ params, scope }) => {
        const enrollee = await enrollees.get(params.id, undefined, scope);
        return { results: await enrollment.templates.listTemplates(enrollee.id), next_cursor: null };
      },
      {
        params: EnrolleeParams,
        response: { 200: TemplateList, ...errors('not_found') },
        detail: { summary: 'Template metadata with per-terminal sync status (never the bytes)', tags },
      },
    );
}
