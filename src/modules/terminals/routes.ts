/**
 * HTTP glue of the terminal endpoints: every path under ADMS_URL_PREFIX (`/iclock/` by
 * default, with or without `.aspx` and trailing slashes) goes to one handler. Elysia never
 * parses the body (`parse: 'none'`): it is read as raw bytes whatever the Content-Type says
 * (or without one), under the size cap, and only once the endpoint has checked the device —
 * a pending or disabled terminal's upload is refused without reading it. Replies are plain text with a Date header —
 * errors included, never JSON — and a database failure answers 503 so the terminal resends.
 */
import { Elysia } from 'elysia';
import { describeError, FpaError } from '../../platform/errors';
import { peerAddress } from '../../platform/http/routable-url';
import { IpAllowList } from '../../platform/net/ip';
import { echoIn } from '../../platform/request-context';
import { formatHttpDate, parseQuery } from '../../protocol/adms';
import { ClientWentAway, CutOffRequests, whenClientGone } from './cut-off';
import type { TerminalEndpoints } from './endpoints';
import { checkDeclaredLength, checkDeviceToken, presentedKeys, readBody } from './guard';
import { AdmsRefusal, plainText } from './reply';
import type { TerminalRuntime } from './runtime';

/** `cdata.aspx/` → `cdata`. */
export function endpointName(rest: string): string {
  return rest
    .replace(/\/+$/, '')
    .replace(/\.aspx$/i, '')
    .toLowerCase();
}

/** What terminals send: anything else on the terminal prefix is refused, never taken as an upload. */
const TERMINAL_METHODS = new Set(['GET', 'HEAD', 'POST']);

/** Endpoints that make no sense without a serial number. */
const NEEDS_SERIAL = new Set(['cdata', 'getrequest', 'devicecmd', 'ping', 'fdata', 'registry', 'push', 'rtdata', 'querydata']);

/** The reply's status and plain-text body to one terminal request; the route sets the headers. */
function terminalHandler(ctx: TerminalRuntime, endpoints: TerminalEndpoints) {
  const { settings, log } = ctx;
  const allowList = new IpAllowList(settings.ADMS_ALLOWED_IPS);
  const cutOff = new CutOffRequests(log, ctx.clock);
  return async (request: Request, ip: string | null, rest: string, endpoint: string): Promise<{ status: number; body: string }> => {
    let serial: string | null = null;
    try {
      if (!allowList.allows(ip)) throw new AdmsRefusal(403, 'address not allowed');
      const method = request.method.toUpperCase();
      if (!TERMINAL_METHODS.has(method)) throw new AdmsRefusal(405, 'method not allowed');
      // From the URL's text: the query is all a terminal request needs of it.
      const query = parseQuery(request.url);
      if (!NEEDS_SERIAL.has(endpoint)) return { status: 200, body: 'OK' };
      if (!query.sn) throw new AdmsRefusal(400, 'missing SN');
      serial = query.sn;
      const cookie = request.headers.get('cookie');
      checkDeviceToken(settings.ADMS_DEVICE_TOKENS, query.sn, query.pushCommKey, cookie);
      const noBody = method === 'GET' || method === 'HEAD';
      // A declared length above the cap is refused before the device is even looked up (or registered).
      if (!noBody) checkDeclaredLength(request, settings.ADMS_MAX_REQUEST_BYTES);
      const trust = await endpoints.identify(query.sn, presentedKeys(query.pushCommKey, cookie), ip);
      let read: Promise<Uint8Array> | null = null;
      const body = () =>
        (read ??= noBody
          ? Promise.resolve(new Uint8Array(0))
          : readBody(request, settings.ADMS_MAX_REQUEST_BYTES).catch((error: unknown) => {
              throw whenClientGone(request, error);
            }));
      const reply = await endpoints.handle({ method, endpoint, query, ip, trust, body }, query.sn);
      return { status: reply.status ?? 200, body: reply.body };
    } catch (error) {
      if (error instanceof AdmsRefusal) return { status: error.status, body: error.message };
      if (error instanceof FpaError && error.status < 500) return { status: error.status, body: error.message };
      // Nobody is left to answer: not the server's failure (cut-off.ts).
      if (error instanceof ClientWentAway) {
        cutOff.note(ip, serial, rest);
        return { status: 400, body: 'request body cut off' };
      }
      log.error('terminal request failed; the terminal will resend', { path: rest, error: describeError(error) });
      return { status: 503, body: 'ERROR: try again later' };
    }
  };
}

export function admsRoutes(ctx: TerminalRuntime, endpoints: TerminalEndpoints) {
  const { settings, clock, log } = ctx;
  const prefix = settings.ADMS_URL_PREFIX.replace(/\/+$/, '');
  const handle = terminalHandler(ctx, endpoints);
  // The route label is the endpoint name, from a closed set: a raw path would let any caller mint series.
  const routeLabels = new Map([...NEEDS_SERIAL].map((name) => [name, `${prefix}/${name}`]));
  const otherRoutes = `${prefix}/*`;
  return new Elysia({ name: 'fpa-adms', seed: ctx.instanceId, prefix })
    .onError(({ error }) => {
      log.error('terminal request failed outside the handler', { error: describeError(error) });
      return plainText('ERROR: try again later', 503, clock.now());
    })
    .all(
      '/*',
      async ({ request, server, params, set }) => {
        const begin = performance.now();
        const rest = params['*'] ?? '';
        const endpoint = endpointName(rest);
        const reply = await handle(request, peerAddress(server, request), rest, endpoint);
        ctx.metrics.httpDuration.observe(
          { method: request.method, route: routeLabels.get(endpoint) ?? otherRoutes, status: String(reply.status) },
          (performance.now() - begin) / 1000,
        );
        // Headers through `set` and a string body: Elysia then builds one Response, where a
        // returned Response would be copied once more to merge headers (the hottest path:
        // every terminal polls every few seconds).
        set.status = reply.status;
        if (reply.status === 405) set.headers.allow = [...TERMINAL_METHODS].join(', ');
        // The rest of a body over the cap is never read: the connection closes after the answer,
        // or it would stay open, its unread bytes pending, until Bun's idle timeout.
        if (reply.status === 413) set.headers.connection = 'close';
        set.headers['content-type'] = 'text/plain';
        set.headers.date = formatHttpDate(new Date(clock.now()));
        echoIn(set.headers);
        return reply.body;
      },
      { parse: 'none' },
    );
}
