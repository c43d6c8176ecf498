/**
 * The documentation page: Swagger UI from the `swagger-ui-dist` package, served by this plugin
 * under versioned URLs, a small same-origin init script and stylesheet, and an HTML page with
 * no inline script or style. Nothing comes from another origin, so the page runs under a
 * `default-src 'self'` Content-Security-Policy (Swagger UI needs `data:` images for its icons).
 *
 * The page holds nothing secret: the init script asks for an administrator token, keeps it in
 * memory, fetches `docs/json` with `Authorization: Bearer` and renders the fetched document.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { escapeHtml, hashedName, selfOnlyPolicy } from '../../platform/http/pages';
import { SECURITY_SCHEMES } from '../../platform/http/router';

/** The page's policy: own scripts and styles only; `fetch` to its own origin; no framing, no forms. */
export const DOCS_CSP = selfOnlyPolicy("'none'");

/** Private and never handed on: the page and the document. */
export const PRIVATE_HEADERS = { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer', 'x-content-type-options': 'nosniff' };

function packageFile(name: string): string {
  return fileURLToPath(import.meta.resolve(`swagger-ui-dist/${name}`));
}

function swaggerVersion(): string {
  const parsed: unknown = JSON.parse(readFileSync(packageFile('package.json'), 'utf8'));
  const version = parsed !== null && typeof parsed === 'object' && 'version' in parsed ? parsed.version : undefined;
  if (typeof version !== 'string' || !/^[0-9A-Za-z.+-]+$/.test(version)) throw new Error('swagger-ui-dist has no usable version');
  return version;
}

/**
 * Runs in the browser. Plain ES2017 in a string: it is served as it is, not bundled. The token
 * input has no `name`, so even a form submitted without this script puts nothing in a URL.
 */
const INIT_SCRIPT = `'use strict';
(function () {
  var form = document.getElementById('fpa-token');
  var input = document.getElementById('fpa-token-input');
  var note = document.getElementById('fpa-note');
  var root = document.getElementById('swagger-ui');
  function show(text) {
    note.textContent = text;
  }
  async function load(token) {
    show('Loading the document…');
    var response;
    try {
      // Relative to this page (docs/): the document is docs/json, on this origin.
      response = await fetch('json', { headers: { authorization: 'Bearer ' + token }, cache: 'no-store', credentials: 'omit', referrerPolicy: 'no-referrer' });
    } catch (error) {
      show('The document could not be fetched: ' + error.message);
      return;
    }
    if (response.status === 401 || response.status === 403) {
      show('That is not a valid administrator token (HTTP ' + response.status + '). Paste another one.');
      return;
    }
    if (!response.ok) {
      show('The server answered HTTP ' + response.status + '.');
      return;
    }
    var spec = await response.json();
    show('The token is kept in this page only (not stored, never in a URL); "Try it out" sends it as Authorization: Bearer.');
    root.textContent = '';
    var ui = SwaggerUIBundle({
      spec: spec,
      domNode: root,
      validatorUrl: null, // the default sends the document to a public validator
      deepLinking: false,
      persistAuthorization: false,
      tryItOutEnabled: false,
      onComplete: function () {
        ui.preauthorizeApiKey(${JSON.stringify(SECURITY_SCHEMES.admin)}, token);
      },
    });
  }
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var token = input.value.trim();
    input.value = '';
    if (token) load(token);
    else show('Paste an administrator token first.');
  });
})();
`;

const STYLESHEET = `.fpa-docs { font-family: sans-serif; max-width: 1460px; margin: 0 auto; padding: 16px 20px 0; }
.fpa-docs form { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; }
.fpa-docs input { flex: 1 1 320px; padding: 6px 8px; font-family: monospace; }
.fpa-docs button { padding: 6px 14px; }
.fpa-docs p { color: #555; margin: 8px 0 0; }
`;

export interface DocsAsset {
  /** The file name under `docs/`, versioned. */
  name: string;
  contentType: string;
  /** The bytes, read on first use. */
  bytes(): Uint8Array<ArrayBuffer>;
}

function fileAsset(name: string, file: string, contentType: string): DocsAsset {
  let bytes: Uint8Array<ArrayBuffer> | undefined;
  return { name, contentType, bytes: () => (bytes ??= new Uint8Array(readFileSync(file))) };
}

function textAsset(stem: string, extension: string, text: string, contentType: string): DocsAsset {
  const bytes = new TextEncoder().encode(text);
  return { name: hashedName(stem, extension, text), contentType, bytes: () => bytes };
}

export interface DocsUi {
  page: string;
  assets: DocsAsset[];
}

export function docsUi(): DocsUi {
  const version = swaggerVersion();
  const javascript = 'text/javascript; charset=utf-8';
  const css = 'text/css; charset=utf-8';
  const bundle = fileAsset(`swagger-ui-bundle-${version}.js`, packageFile('swagger-ui-bundle.js'), javascript);
  const swaggerCss = fileAsset(`swagger-ui-${version}.css`, packageFile('swagger-ui.css'), css);
  const init = textAsset('fpa-docs', 'js', INIT_SCRIPT, javascript);
  const style = textAsset('fpa-docs', 'css', STYLESHEET, css);
  // Relative URLs: the page is always served at `docs/` (src/app/docs/routes.ts redirects `docs`).
  const href = (asset: DocsAsset) => escapeHtml(asset.name);
  const page = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="referrer" content="no-referrer" />
    <title>Fingerprint Attendance API</title>
    <link rel="icon" href="data:," />
    <link rel="stylesheet" href="${href(swaggerCss)}" />
    <link rel="stylesheet" href="${href(style)}" />
  </head>
  <body>
    <header class="fpa-docs">
      <form id="fpa-token" autocomplete="off">
        <label for="fpa-token-input">Administrator token</label>
        <input id="fpa-token-input" type="password" autocomplete="off" spellcheck="false" placeholder="a JWT, e.g. from npm run fpa:admin-token" />
        <button type="submit">Load the API document</button>
      </form>
      <p id="fpa-note">The API document is for administrators: paste an administrator token to load it.</p>
    </header>
    <div id="swagger-ui"></div>
    <script src="${href(bundle)}"></script>
    <script src="${href(init)}"></script>
  </body>
</html>
`;
  return { page, assets: [bundle, swaggerCss, init, style] };
}
