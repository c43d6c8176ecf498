/**
 * The API's root (a public signpost to the docs: the README gives `/api/fingerprint/v1/` as the
 * API's address, and a 404 there looked like a broken install), `docs/` (the Swagger UI page and its assets, public: they hold nothing) and `docs/json` (the
 * OpenAPI document, for administrators: `Authorization: Bearer`, never a token in the URL).
 * None of these routes is in the document: they are not part of the API.
 */
import { gzipSync } from 'node:zlib';
import { Elysia } from 'elysia';
import { IMMUTABLE } from '../../platform/http/pages';
import { adminRouter, type Http } from '../../platform/http/router';
import { DOCS_CSP, type DocsAsset, docsUi, PRIVATE_HEADERS } from './ui';

/** The generated document, built on first use and kept as its JSON text. */
export interface DocumentSource {
  json(): string;
}

function assetResponse(asset: DocsAsset, request: Request, gzipped: () => Uint8Array<ArrayBuffer>): Response {
  const headers: Record<string, string> = {
    'content-type': asset.contentType,
    'cache-control': IMMUTABLE,
    'x-content-type-options': 'nosniff',
    vary: 'accept-encoding',
  };
  if (/\bgzip\b/.test(request.headers.get('accept-encoding') ?? '')) {
    return new Response(gzipped(), { headers: { ...headers, 'content-encoding': 'gzip' } });
  }
  return new Response(asset.bytes(), { headers });
}

export function docsRoutes(http: Http, document: DocumentSource) {
  const ui = docsUi();
  const page = () =>
    new Response(ui.page, { headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': DOCS_CSP, ...PRIVATE_HEADERS } });
  const assets = new Elysia({ name: 'fpa-docs-ui', seed: http.runtime.instanceId }).get('/docs', ({ request }) => {
    // The page's URLs are relative to `docs/`: `docs` (which Elysia also routes here) is sent there.
    if (!new URL(request.url).pathname.endsWith('/')) return new Response(null, { status: 302, headers: { location: 'docs/', ...PRIVATE_HEADERS } });
    return page();
  });
  for (const asset of ui.assets) {
    let gzipped: Uint8Array<ArrayBuffer> | undefined;
    // The Swagger UI bundle shrinks from 1.5 MB to 0.45 MB; compressed once, on first request.
    const gzip = () => (gzipped ??= new Uint8Array(gzipSync(asset.bytes(), { level: 9 })));
    assets.get(`/docs/${asset.name}`, ({ request }) => assetResponse(asset, request, gzip));
  }
  assets.get('/', () =>
    Response.json(
      {
        service: 'Fingerprint Attendance',
        api: 'v1',
        docs: 'docs/',
        openapi: 'docs/json',
        authentication: 'Authorization: Bearer <administrator token>',
      },
      { headers: PRIVATE_HEADERS },
    ),
  );
  const json = adminRouter(http, 'docs').get(
    '/docs/json',
    () => new Response(document.json(), { headers: { 'content-type': 'application/json', ...PRIVATE_HEADERS } }),
  );
  return assets.use(json);
}
