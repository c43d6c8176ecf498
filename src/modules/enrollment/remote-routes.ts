/**
 * `POST /api/fingerprint/v1/enrollees/{id}/remote-enrollment/` (API.md): an administrator
 * starts a remote enrollment session on a terminal. 201 with the session.
 */
import { API_PREFIX } from '../../platform/http/api-prefix';
import { Elysia, t } from 'elysia';
import type { Core } from '../../app/core';
import type { RemoteEnrollment } from './remote-sessions';
import { adminRouter } from '../../platform/http/router';


export function remoteEnrollmentRoutes(core: Core, remote: RemoteEnrollment) {
  const routes = adminRouter(core, 'remote-enrollment').post(
    '/enrollees/:id/remote-enrollment',
    async ({ params, body, admin, set }) => {
      const session = await remote.start(params.id, { device: body.device, fingers: body.fingers, by: admin.by });
      set.status = 201;
      return session;
    },
    {
      body: t.Object(
        {
          device: t.String({ minLength: 1, maxLength: 64 }),
          fingers: t.Array(t.Integer({ minimum: 0, maximum: 9 }), { minItems: 1, maxItems: 10 }),
        },
        { additionalProperties: false },
      ),
    },
  );
  return new Elysia({ name: 'fpa-remote-enrollment-api', seed: core.ctx.instanceId, prefix: API_PREFIX }).use(routes);
}
