import type { Http } from '../../platform/http/router';
import { adminRouter } from '../../platform/http/router';
import type { Modules } from '../modules';
import { buildOpenApiDocument } from './openapi';

const SCALAR_CDN = 'https://cdn.jsdelivr.net/npm/@scalar/api-reference@1/dist/browser/standalone.min.js';

/**
 * Private (they are behind a login), and no Referer: a page opened with `?access_token=` must
 * not hand its URL to the CDN it loads Scalar from.
 */
const PRIVATE_HEADERS = { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' };

/** The HTML page with the document embedded as JSON; `<` is escaped so no `</script>` can end it early. */
export function docsPage(document: string): string {
  const embedded = document.replaceAll('<', '\\u003c');
  return `<!doctype html>
<html>
  <head>
    <title>Fingerprint Attendance API</title>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="referrer" content="no-referrer" />
  </head>
  <body>
    <div id="app"></div>
    <script id="fpa-openapi" type="application/json">${embedded}</script>
    <script src="${SCALAR_CDN}" crossorigin></script>
    <script>
      Scalar.createApiReference('#app', { content: JSON.parse(document.getElementById('fpa-openapi').textContent) });
    </script>
  </body>
</html>`;
}

export function docsRoutes(http: Http, _modules: Modules) {
  const document = JSON.stringify(buildOpenApiDocument());
  const page = docsPage(document);
  const docs = adminRouter(http, 'docs', { queryToken: true })
    .get('/docs', () => new Response(page, { headers: { 'content-type': 'text/html; charset=utf-8', ...PRIVATE_HEADERS } }))
    .get('/docs/json', () => new Response(document, { headers: { 'content-type': 'application/json', ...PRIVATE_HEADERS } }));
  return docs;
}
