/**
 * The console's files: the client (client/main.ts, bundled by Bun.build on first use and kept in
 * memory), the sign-in link page's own small script (client/sign-in-link.ts), the stylesheet,
 * and the two HTML pages (the shell and the sign-in page of a one-time link). Asset names
 * carry a hash of their content, so they are cached for a year and never stale. Nothing comes
 * from another origin and no page holds inline script or style: CONSOLE_CSP forbids both.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { escapeHtml, hashedName, selfOnlyPolicy } from '../../platform/http/pages';

/** Own scripts, styles and fonts only; fetch and WebSocket to this origin; no framing; forms post here. */
const CONSOLE_CSP = selfOnlyPolicy("'self'");

export const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': CONSOLE_CSP,
  'cache-control': 'no-store',
  // Not `no-referrer`: under it a browser sends `Origin: null` with the sign-in form, and the
  // origin check could not tell our own form from another site's. Other sites still get nothing.
  'referrer-policy': 'same-origin',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};

/**
 * The sign-in page of a one-time link sends no Referer at all, not even to its own stylesheet:
 * its address is the link. Its script posts with a `same-origin` policy of its own, so those
 * posts still carry the page's `Origin` (the check of where a sign-in comes from needs it).
 */
export const LINK_PAGE_HEADERS = { ...PAGE_HEADERS, 'referrer-policy': 'no-referrer' };

export interface ConsoleAsset {
  name: string;
  contentType: string;
  bytes: Uint8Array<ArrayBuffer>;
  gzipped: Uint8Array<ArrayBuffer>;
}

function asset(stem: string, extension: string, bytes: Uint8Array<ArrayBuffer>, contentType: string): ConsoleAsset {
  return { name: hashedName(stem, extension, bytes), contentType, bytes, gzipped: new Uint8Array(gzipSync(bytes, { level: 9 })) };
}

const here = (name: string) => fileURLToPath(new URL(`./client/${name}`, import.meta.url));

/** Bundles a client script: one minified script, no framework, ES2020 for the browsers offices run. */
async function bundleClient(entry: string): Promise<Uint8Array<ArrayBuffer>> {
  const result = await Bun.build({ entrypoints: [here(entry)], target: 'browser', minify: true, format: 'esm', sourcemap: 'none' });
  const output = result.outputs[0];
  if (!result.success || !output) throw new Error(`the console client did not build: ${result.logs.map(String).join('; ')}`);
  return new Uint8Array(await output.arrayBuffer());
}

export interface ConsoleFiles {
  assets: Map<string, ConsoleAsset>;
  shell: string;
  /** The sign-in page of a one-time link: its script reads the token after `#` and asks whom it signs in. */
  signIn: string;
  /** The page of a link that does not sign in: `old` when it came in the old form, its token in the query string. */
  linkRefused(old: boolean): string;
  /** A page with a message (a link refused, signed out). */
  notice(title: string, text: string): string;
  /** The page of an address under the console that nothing serves; `base` leads back to `console/` (`../` per level). */
  notFound(base: string): string;
}

function page(title: string, stylesheet: string, body: string, script?: string, referrer = 'same-origin', base = ''): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
${
  base
    ? `    <base href="${escapeHtml(base)}" />
`
    : ''
}
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="referrer" content="${referrer}" />
    <title>${escapeHtml(title)}</title>
    <link rel="icon" href="data:," />
    <link rel="stylesheet" href="assets/${stylesheet}" />
${script ? `    <script type="module" src="assets/${script}"></script>\n` : ''}  </head>
  <body>
${body}
  </body>
</html>
`;
}

const HOW_TO_SIGN_IN =
  '<p><a href="./">Sign in</a> with your account, or ask whoever gave you the link for a new one: a link works once, for a few minutes.</p>';

const NOT_FOUND =
  '<p>There is no page at this address: it may have been typed or copied wrongly.</p>\n      <p><a href="./">Go to the console</a> (its pages are under <code>console/#/</code>).</p>';

const LINK_GONE = 'This sign-in link is no longer valid: it has been used, it has expired, or whoever made it can no longer sign in.';
const LINK_OLD =
  'This sign-in link is in an old form, which sent its secret to the server in the address (where logs keep it): it no longer signs in, and has been cancelled.';

/** Builds every file once; later calls get the same promise. */
export function consoleFiles(): () => Promise<ConsoleFiles> {
  let built: Promise<ConsoleFiles> | undefined;
  return () => {
    built ??= (async () => {
      const script = asset('console', 'js', await bundleClient('main.ts'), 'text/javascript; charset=utf-8');
      const linkScript = asset('sign-in-link', 'js', await bundleClient('sign-in-link.ts'), 'text/javascript; charset=utf-8');
      const style = asset('console', 'css', new Uint8Array(readFileSync(here('console.css'))), 'text/css; charset=utf-8');
      const shellBody = `    <div id="app" class="app"><main class="signin"><h1>Attendance console</h1><p>Loading…</p><noscript><p>The console needs JavaScript.</p></noscript></main></div>`;
      const card = (inner: string) => `    <main class="signin" id="main">\n      <h1>Attendance console</h1>\n${inner}\n    </main>`;
      const linkPage = (inner: string, withScript: boolean) =>
        page('Sign in: Attendance console', style.name, card(inner), withScript ? linkScript.name : undefined, 'no-referrer');
      return {
        assets: new Map([script, linkScript, style].map((a) => [a.name, a])),
        shell: page('Attendance console', style.name, shellBody, script.name),
        signIn: linkPage(
          `      <p id="link-status" role="status">Checking the link…</p>
      <form id="link-form" class="stack" hidden>
        <p>This link signs you in as <strong id="link-actor"></strong>. It works once.</p>
        <button type="submit" class="primary">Sign in</button>
      </form>
      <noscript><p>Signing in with a link needs JavaScript.</p></noscript>`,
          true,
        ),
        linkRefused: (old) => linkPage(`      <p class="error" role="alert">${old ? LINK_OLD : LINK_GONE}</p>\n      ${HOW_TO_SIGN_IN}`, false),
        notice: (title, text) =>
          page(`${title}: Attendance console`, style.name, card(`      <p role="status">${escapeHtml(text)}</p>\n      ${HOW_TO_SIGN_IN}`)),
        notFound: (base) =>
          page('Page not found: Attendance console', style.name, card(`      <h2>Page not found</h2>\n      ${NOT_FOUND}`), undefined, 'same-origin', base),
      };
    })();
    return built;
  };
}
