/**
 * The OpenAPI 3.1 document of the HTTP API, built from the route table in ./catalog.ts and the
 * schemas in ./schemas.ts. Hand-written rather than discovered: @elysiajs/openapi documents
 * the routes of the app it is mounted on, which for an embedded plugin is the host's whole
 * app, and it can only describe bodies that carry TypeBox schemas. The error responses of
 * every operation come from the one code → status table (src/shared/errors.ts).
 */

import { ERROR_STATUS, type ErrorCode } from '../../platform/errors';
import { API_PREFIX as API_BASE } from '../../platform/http/api-prefix';
import { type DocumentedRoute, ROUTES, TAGS } from './catalog';
import { arr, type JsonSchema, ref } from './schema-kit';
import { COMPONENT_SCHEMAS } from './schemas';

export const OPENAPI_VERSION = '3.1.0';

const PATH_PARAMS: Record<string, string> = {
  id: 'Identifier (UUID; an employee’s own key for `employees/`).',
  serial_number: 'Serial number of the terminal.',
  name: 'Job name.',
  message: 'Webhook message id.',
};

const SECURITY_SCHEMES = {
  AgentKey: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description: 'Agent API: `Authorization: Agent <key>`, the key shown once when the agent was created (`fpa_<prefix>_<secret>`).',
  },
  AdminJWT: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'Administrators: `Authorization: Bearer <JWT>` (HS256 with ADMIN_JWT_SECRET or a key from ADMIN_JWKS_URL); the `scope` claim must hold ADMIN_SCOPE and `sub` names the caller.',
  },
  OperatorToken: {
    type: 'apiKey',
    in: 'header',
    name: 'x-fpa-operator-token',
    description: 'Local operator token from the database lock file; lets `bun run fpa:*` scripts hand work to the running server.',
  },
};

function securityOf(route: DocumentedRoute): Record<string, string[]>[] {
  switch (route.auth) {
    case 'agent':
      return [{ AgentKey: [] }];
    case 'admin':
      return [{ AdminJWT: [] }];
    case 'admin_or_operator':
      return [{ AdminJWT: [] }, { OperatorToken: [] }];
    case 'none':
      return [];
  }
}

/** The codes a route can answer: its own plus those of its kind (auth, validation, unknown ids). */
export function errorCodesOf(route: DocumentedRoute): ErrorCode[] {
  const codes = new Set<ErrorCode>(route.errors ?? []);
  if (route.auth === 'agent') {
    codes.add('unauthorized');
    codes.add('rate_limited');
  }
  if (route.auth === 'admin' || route.auth === 'admin_or_operator') {
    codes.add('unauthorized');
    codes.add('forbidden');
  }
  if (route.body || route.query) codes.add('validation_error');
  // Whatever the route, a request body is read as JSON under the API's cap (src/http/body.ts).
  if (route.method !== 'get' && route.auth !== 'none') {
    codes.add('validation_error');
    codes.add('payload_too_large');
  }
  if (route.path.includes('{')) codes.add('not_found');
  return [...codes];
}

function errorResponses(route: DocumentedRoute): Record<string, JsonSchema> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(route)) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, JsonSchema> = {};
  for (const [status, codes] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const sorted = codes.sort();
    out[String(status)] = {
      description: `Error: ${sorted.map((c) => `\`${c}\``).join(', ')}.`,
      ...(status === 429 ? { headers: { 'Retry-After': { description: 'Seconds until a request is allowed again.', schema: { type: 'integer' } } } } : {}),
      content: {
        'application/json': {
          schema: ref('Error'),
          examples: Object.fromEntries(sorted.map((c) => [c, { value: { error: { code: c, message: '…', details: {} } } }])),
        },
      },
    };
  }
  return out;
}

function operationOf(route: DocumentedRoute): JsonSchema {
  const pathParams = [...route.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  const parameters = [
    ...pathParams.map((name) => ({ name, in: 'path', required: true, description: PATH_PARAMS[name] ?? name, schema: { type: 'string' } })),
    ...(route.query ?? []).map((q) => ({
      name: q.name,
      in: 'query',
      required: q.required ?? false,
      description: q.description,
      schema: q.schema ?? { type: 'string' },
    })),
  ];
  const { response } = route;
  const schema = response.arrayOf ? arr(ref(response.arrayOf)) : response.schema ? ref(response.schema) : undefined;
  const success: JsonSchema = { description: response.description };
  if (schema || response.contentType) {
    success.content = { [response.contentType ?? 'application/json']: schema ? { schema } : { schema: { type: 'string' } } };
  }
  return {
    operationId: operationId(route),
    tags: [route.tag],
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    ...(route.websocket ? { 'x-websocket': true } : {}),
    security: securityOf(route),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.body ? { requestBody: { required: !route.body.optional, content: { 'application/json': { schema: ref(route.body.schema) } } } } : {}),
    responses: { [String(response.status)]: success, ...errorResponses(route) },
  };
}

function operationId(route: DocumentedRoute): string {
  const words = route.path
    .replace(`${API_BASE}/`, '')
    .split('/')
    .filter(Boolean)
    .map((part) => (part.startsWith('{') ? `by_${part.slice(1, -1)}` : part.replace(/[^A-Za-z0-9]+/g, '_')));
  return [route.method, ...words].join('_');
}

export interface OpenApiOptions {
  /** Shown in `info.version`. */
  version?: string;
}

/** Builds the whole document; the routes come from ROUTES unless a test passes others. */
export function buildOpenApiDocument(options: OpenApiOptions = {}, routes: readonly DocumentedRoute[] = ROUTES): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    paths[route.path] ??= {};
    paths[route.path]![route.method] = operationOf(route);
  }
  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: 'Fingerprint Attendance API',
      version: options.version ?? '1',
      description: [
        'Attendance back end between fingerprint terminals and HR/payroll software.',
        'Every error is `{ "error": { "code", "message", "details" } }`. Lists are paged with `?limit=` and the opaque `?cursor=`.',
        'Paths end with a slash; the same path without it works too.',
        'A request body is a JSON object sent as `Content-Type: application/json` in UTF-8, at most 1 MiB (more when TEMPLATE_MAX_BYTES needs it for an agent upload); anything else is 400 `validation_error`, a larger body 413 `payload_too_large`.',
        'The terminals’ own endpoints under ADMS_URL_PREFIX (default `/iclock/`) speak the ADMS text protocol and are not part of this document.',
      ].join('\n\n'),
    },
    servers: [{ url: '/' }],
    tags: TAGS,
    paths,
    components: { schemas: COMPONENT_SCHEMAS, securitySchemes: SECURITY_SCHEMES },
  };
}

/** `/a/:b/` and `/a/{c}` compare equal: parameter names and trailing slashes do not matter. */
export function normaliseRoutePath(path: string): string {
  const withoutSlash = path.length > 1 ? path.replace(/\/+$/, '') : path;
  return withoutSlash.replace(/\{[^}]+\}/g, '{}').replace(/:[^/]+/g, '{}');
}
