/**
 * `GET /api/fingerprint/v1/docs` (an HTML page rendered by Scalar through @elysiajs/openapi's
 * renderer) and `GET /api/fingerprint/v1/docs/json` (the OpenAPI document). Public: the
 * document holds no data, only the shape of the API.
 */
import { Elysia } from 'elysia';
import { ScalarRender } from '@elysiajs/openapi/scalar';
import type { Core } from '../core/core';
import { API_BASE } from '../agent-api/prefix';
import { buildOpenApiDocument } from './openapi';

const SCALAR_CDN = 'https://cdn.jsdelivr.net/npm/@scalar/api-reference@1/dist/browser/standalone.min.js';

export function docsRoutes(core: Core) {
  const document = JSON.stringify(buildOpenApiDocument());
  const specUrl = `${API_BASE}/docs/json`;
  const page = ScalarRender(
    { title: 'Fingerprint Attendance API', description: 'Agent and administrator HTTP API', version: '1' },
    { url: specUrl, cdn: SCALAR_CDN },
  );
  return new Elysia({ name: 'fpa-docs', seed: core.ctx.instanceId, prefix: `${API_BASE}/docs` })
    .get('/', () => new Response(page, { headers: { 'content-type': 'text/html; charset=utf-8' } }))
    .get('/json', () => new Response(document, { headers: { 'content-type': 'application/json' } }));
}
