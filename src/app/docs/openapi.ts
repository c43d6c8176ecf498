/**
 * The OpenAPI 3.1 document of the HTTP API, generated from the routes the plugin really serves
 * (`apiRoutes` in src/app/plugin.ts): each route's method and path, its params/query/body/response
 * schemas (the modules' models, which validate the requests) and its `detail` (summary, tags, and
 * the `security` its router sets in src/platform/http/router.ts).
 *
 * TypeBox schemas are JSON Schema already; `normalize` rewrites the few forms Elysia adds
 * (numeric-string integers of query parameters, literal unions) into plain JSON Schema 2020-12.
 * Objects with a `title` become `components/schemas` entries. Not `@elysiajs/openapi`: mounted in
 * a host, that plugin documents the host's whole app, not this plugin's routes.
 *
 * Besides the statuses a route declares, every operation documents those its shape implies:
 * who may call (401/403, 429 for agents), inputs (400), a body read under the cap (400, 413),
 * ids in the path (404), the database (503).
 */
import { Kind, OptionalKind } from '@sinclair/typebox';
import { ERROR_STATUS, type ErrorCode } from '../../platform/errors';
import { OPERATOR_TOKEN_HEADER } from '../../platform/http/admin-auth';
import { ErrorBody, errorCodesOf } from '../../platform/http/model';
import { SECURITY_SCHEMES } from '../../platform/http/router';

export type Json = null | boolean | number | string | Json[] | JsonObject;
export interface JsonObject {
  [key: string]: Json;
}

/** What the generator reads of a route; the entries of an Elysia instance's `routes` have it. */
export interface RouteLike {
  method: string;
  path: string;
  hooks: { params?: unknown; query?: unknown; body?: unknown; response?: unknown; detail?: unknown };
}

const OPENAPI_VERSION = '3.1.1';

const TAGS: { name: string; description: string }[] = [
  { name: 'agent', description: 'The desktop enrollment agent API. `Authorization: Agent <key>`; rate limited per key by AGENT_RATE_LIMIT.' },
  { name: 'enrollment', description: 'Enrollment agents and enrollment sessions (administrators).' },
  { name: 'devices', description: 'Terminals speaking ADMS: approval, settings, command queue.' },
  { name: 'employees', description: 'The built-in employee directory (standalone default).' },
  { name: 'enrollees', description: 'Enrollees, consent, template metadata, remote enrollment.' },
  { name: 'punches', description: 'Punches: polling, listing, live stream.' },
  { name: 'attendance', description: 'Daily attendance results.' },
  { name: 'webhooks', description: 'Webhook endpoints and their deliveries (Standard Webhooks).' },
  { name: 'operations', description: 'Periodic jobs.' },
  { name: 'console', description: 'The administrators’ web console at /console/: one-time sign-in links.' },
  { name: 'users', description: 'People who sign in: invites, roles and areas, resets, the caller (`users/me/`).' },
  { name: 'api-keys', description: 'API keys of integrators (`fpa_key_…`), with a role and areas.' },
];

const SECURITY_SCHEME_OBJECTS: JsonObject = {
  [SECURITY_SCHEMES.admin]: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      "Administrators: `Authorization: Bearer <JWT>` (HS256 with ADMIN_JWT_SECRET or a key from ADMIN_JWKS_URL); `exp` is required, the `scope` claim must hold ADMIN_SCOPE and `sub` names the caller; `fpa_role` and `fpa_areas` limit it (default: an owner everywhere). An API key from `api-keys/` goes in the same header: `Authorization: Bearer fpa_key_…`, with the key's role and areas.",
  },
  [SECURITY_SCHEMES.agent]: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description: 'Agent API: `Authorization: Agent <key>`, with the key shown once when the agent was created (`fpa_<prefix>_<secret>`).',
  },
  [SECURITY_SCHEMES.operator]: {
    type: 'apiKey',
    in: 'header',
    name: OPERATOR_TOKEN_HEADER,
    description:
      'The local operator token from the database lock file, accepted from a loopback peer only: it lets `npm run fpa:*` scripts on the same host hand work to the running server.',
  },
};

const DESCRIPTION = [
  'Attendance back end between fingerprint terminals and HR/payroll software.',
  'Every error is `{ "error": { "code", "message", "details", "request_id" } }`. Lists are paged with `?limit=` and the opaque `?cursor=`.',
  'Paths end with a slash; the same path without it works too. A method a path does not serve is 405 `method_not_allowed` with an `Allow` header.',
  'A request body is a JSON object sent as `Content-Type: application/json` in UTF-8, at most 1 MiB (more when TEMPLATE_MAX_BYTES needs it for an agent upload), nested at most 32 levels, each object naming a key once; another Content-Type (or none) is 415 `unsupported_media_type`, anything else 400 `validation_error`, a larger body 413 `payload_too_large`. Administrator bodies refuse properties they do not name. Text fields refuse control characters (U+0000–U+001F, U+007F).',
  'The terminals’ own endpoints under ADMS_URL_PREFIX (default `/iclock/`) speak the ADMS text protocol and are not part of this document.',
].join('\n\n');

const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

const SUCCESS_TEXT: Record<number, string> = {
  101: 'Switching Protocols: the WebSocket is open.',
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No content',
};

/** `GET /devices/:serial` (unprefixed) → `get_devices_by_serial`. */
function operationIdOf(method: string, path: string): string {
  const words = path
    .split('/')
    .filter(Boolean)
    .map((part) => (part.startsWith(':') ? `by_${part.slice(1)}` : part.replace(/[^A-Za-z0-9]+/g, '_')));
  return [method, ...words].join('_');
}

/** `/devices/:serial` → `<prefix>/devices/{serial}/` (the trailing slash of API.md). */
export function documentPath(prefix: string, path: string): string {
  return `${prefix}${path.replace(/\/+$/, '')}/`.replace(/:([^/]+)/g, '{$1}');
}

export function isJsonObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A TypeBox schema (it carries its `Kind`), as opposed to a map of statuses to schemas. */
function isTypeBoxSchema(value: unknown): value is Record<string | symbol, unknown> {
  return isRecord(value) && Kind in value;
}

/** The JSON form of a TypeBox schema: its symbols (Kind, OptionalKind…) dropped, then normalised. */
function toJson(schema: unknown): JsonObject {
  const parsed: unknown = JSON.parse(JSON.stringify(schema));
  if (!isJsonObject(parsed)) throw new TypeError('a route schema is not a JSON object');
  const normalised = normalize(parsed);
  if (!isJsonObject(normalised)) throw new TypeError('a route schema is not a JSON object');
  return normalised;
}

const SUBSCHEMA_MAPS = ['properties', 'patternProperties', '$defs'];
const SUBSCHEMA_LISTS = ['anyOf', 'allOf', 'oneOf', 'prefixItems'];
const SUBSCHEMA_ONE = ['items', 'additionalProperties', 'not', 'contains', 'propertyNames'];

/** Applies `f` to every direct subschema of `schema`. */
function mapSubschemas(schema: JsonObject, f: (s: Json) => Json): JsonObject {
  const out: JsonObject = { ...schema };
  for (const key of SUBSCHEMA_MAPS) {
    const map = out[key];
    if (isJsonObject(map)) out[key] = Object.fromEntries(Object.entries(map).map(([k, v]) => [k, f(v)]));
  }
  for (const key of SUBSCHEMA_LISTS) {
    const list = out[key];
    if (Array.isArray(list)) out[key] = list.map(f);
  }
  for (const key of SUBSCHEMA_ONE) {
    const one = out[key];
    if (isJsonObject(one)) out[key] = f(one);
  }
  return out;
}

/** Elysia's coercing types: anyOf [a string of this format, the real type]. */
const COERCED_FORMATS = new Set(['integer', 'numeric', 'boolean', 'ObjectString', 'ArrayString']);

/**
 * Elysia's forms → plain JSON Schema 2020-12:
 * - `t.Integer`/`t.Numeric` (query parameters, which are text) = anyOf [numeric string, integer]:
 *   documented as the integer the client means;
 * - a union of literals (`OneOf`, nullable or not) = anyOf of `const`s: an `enum`, which UIs show;
 * - `additionalProperties: { not: {} }` = `false`.
 */
function normalize(schema: Json): Json {
  if (!isJsonObject(schema)) return schema;
  let s = schema;
  const anyOf = s.anyOf;
  if (Array.isArray(anyOf) && anyOf.length === 2) {
    const coerced = anyOf.findIndex((b) => isJsonObject(b) && b.type === 'string' && typeof b.format === 'string' && COERCED_FORMATS.has(b.format));
    const real = anyOf[1 - coerced];
    if (coerced !== -1 && isJsonObject(real)) {
      const { anyOf: _, ...outer } = s;
      s = { ...outer, ...real };
    }
  }
  // `additionalProperties: { not: {} }` (how the models refuse unnamed properties, see
  // NoOtherProperties in src/platform/http/model.ts) means `false`, which reads better.
  const additional = s.additionalProperties;
  if (isJsonObject(additional) && isJsonObject(additional.not) && Object.keys(additional).length === 1 && Object.keys(additional.not).length === 0) {
    s = { ...s, additionalProperties: false };
  }
  const branches = s.anyOf;
  if (Array.isArray(branches) && branches.length > 0 && branches.every((b) => isJsonObject(b) && (b.const !== undefined || isNullType(b)))) {
    const { anyOf: _, ...outer } = s;
    const values = branches.map((b) => (isJsonObject(b) && b.const !== undefined ? b.const : null));
    const types = [...new Set(values.map((v) => (v === null ? 'null' : Number.isInteger(v) ? 'integer' : typeof v)))];
    s = { ...outer, type: types.length === 1 ? types[0]! : types, enum: values };
  }
  return mapSubschemas(s, normalize);
}

function isNullType(schema: JsonObject): boolean {
  return schema.type === 'null' && Object.keys(schema).length === 1;
}

/** Canonical JSON (sorted keys), so two equal schemas compare equal. */
function canonical(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isJsonObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k]!)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The document's `components/schemas`: every schema with a `title`, referenced by it. */
class Components {
  readonly schemas: JsonObject = {};
  private readonly seen = new Map<string, string>();

  /** Hoists titled subschemas (innermost first) and answers the schema with `$ref`s in their place. */
  hoist(schema: Json): Json {
    if (!isJsonObject(schema)) return schema;
    const inner = mapSubschemas(schema, (s) => this.hoist(s));
    const title = inner.title;
    if (typeof title !== 'string') return inner;
    const key = canonical(inner);
    const known = this.seen.get(title);
    if (known === undefined) {
      this.seen.set(title, key);
      this.schemas[title] = inner;
    } else if (known !== key) {
      throw new Error(`two different schemas are titled ${title}: give one another title`);
    }
    return { $ref: `#/components/schemas/${title}` };
  }
}

interface Detail {
  summary?: string;
  description?: string;
  tags: string[];
  security: Record<string, string[]>[] | null;
  hide: boolean;
}

function detailOf(route: RouteLike): Detail {
  const d = isRecord(route.hooks.detail) ? route.hooks.detail : {};
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  const security = Array.isArray(d.security)
    ? d.security.filter(isRecord).map((req) => Object.fromEntries(Object.entries(req).map(([name, scopes]) => [name, strings(scopes)])))
    : null;
  return {
    ...(typeof d.summary === 'string' ? { summary: d.summary } : {}),
    ...(typeof d.description === 'string' ? { description: d.description } : {}),
    tags: strings(d.tags),
    security,
    hide: d.hide === true,
  };
}

function objectProperties(schema: unknown): { properties: [string, JsonObject][]; required: Set<string> } {
  if (!isTypeBoxSchema(schema)) return { properties: [], required: new Set() };
  const json = toJson(schema);
  const properties = isJsonObject(json.properties) ? Object.entries(json.properties).filter((e): e is [string, JsonObject] => isJsonObject(e[1])) : [];
  const required = new Set(Array.isArray(json.required) ? json.required.filter((r): r is string => typeof r === 'string') : []);
  return { properties, required };
}

interface Parameter {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  schema: JsonObject;
}

function parameterOf(name: string, where: 'path' | 'query', required: boolean, schema: JsonObject): Parameter {
  return { name, in: where, required, schema };
}

function parametersOf(route: RouteLike): Parameter[] {
  const names = [...route.path.matchAll(/:([^/]+)/g)].map((m) => m[1]!);
  const params = new Map(objectProperties(route.hooks.params).properties);
  const query = objectProperties(route.hooks.query);
  return [
    ...names.map((name) => parameterOf(name, 'path', true, params.get(name) ?? { type: 'string' })),
    ...query.properties.map(([name, schema]) => parameterOf(name, 'query', query.required.has(name), schema)),
  ];
}

/** The Parameter Object: the schema's description is the parameter's too (UIs show that one). */
function documentParameter(p: Parameter, components: Components): JsonObject {
  return {
    name: p.name,
    in: p.in,
    required: p.required,
    ...(typeof p.schema.description === 'string' ? { description: p.schema.description } : {}),
    schema: components.hoist(p.schema),
  };
}

/** A route's declared responses by status; a single schema is the 200 answer. */
function declaredResponses(route: RouteLike): [number, unknown][] {
  const response = route.hooks.response;
  if (isTypeBoxSchema(response)) return [[200, response]];
  if (!isRecord(response)) return [];
  return Object.entries(response)
    .filter(([status]) => /^\d{3}$/.test(status))
    .map(([status, schema]): [number, unknown] => [Number(status), schema]);
}

/**
 * The `content` of a body: a string schema with `contentMediaType` (`text/csv`) is that media
 * type; a union is split into its media types (`punches/import/` takes CSV or a JSON array);
 * anything else is JSON.
 */
function contentOf(schema: Record<string | symbol, unknown>, components: Components): JsonObject {
  const media = (s: Record<string | symbol, unknown>): string | null => (typeof s.contentMediaType === 'string' ? s.contentMediaType : null);
  const members = schema[Kind] === 'Union' && Array.isArray(schema.anyOf) ? schema.anyOf.filter(isTypeBoxSchema) : [schema];
  const json = members.filter((m) => media(m) === null);
  const out: JsonObject = {};
  for (const m of members) {
    const type = media(m);
    if (type !== null) out[type] = { schema: { type: 'string', ...(typeof m.description === 'string' ? { description: m.description } : {}) } };
  }
  if (json.length > 0) {
    const single = json.length === 1 ? json[0]! : { ...schema, anyOf: json };
    out['application/json'] = { schema: components.hoist(toJson(single)) };
  }
  return out;
}

function isVoid(schema: unknown): boolean {
  return isTypeBoxSchema(schema) && (schema[Kind] === 'Void' || schema[Kind] === 'Undefined');
}

/** The codes a route can answer because of its shape, whatever it declares. */
function impliedCodes(shape: {
  schemes: Set<string>;
  readsBody: boolean;
  anyMediaType: boolean;
  pathParams: boolean;
  query: boolean;
  websocket: boolean;
}): ErrorCode[] {
  const codes: ErrorCode[] = ['unavailable'];
  if (shape.schemes.has(SECURITY_SCHEMES.admin) || shape.schemes.has(SECURITY_SCHEMES.operator)) codes.push('unauthorized', 'forbidden');
  if (shape.schemes.has(SECURITY_SCHEMES.agent)) codes.push('unauthorized', 'rate_limited');
  if (shape.pathParams || shape.query || shape.readsBody) codes.push('validation_error');
  // Every route but GET reads its body under the cap, even one that declares none (src/platform/http/body.ts).
  if (shape.readsBody) codes.push('payload_too_large');
  // A body of another media type is 415, except where any is read (a terminal's file, `application/octet-stream`).
  if (shape.readsBody && !shape.anyMediaType) codes.push('unsupported_media_type');
  if (shape.pathParams) codes.push('not_found');
  // The stream's per-administrator quota, and a plain GET without the handshake (src/app/plugin.ts).
  if (shape.websocket) codes.push('rate_limited', 'upgrade_required');
  return codes;
}

const RETRY_AFTER: JsonObject = { description: 'Seconds until a retry may succeed.', schema: { type: 'integer', minimum: 0 } };

/** The `request_id` of the error examples: every error names its request. */
const EXAMPLE_REQUEST_ID = '3f2b8a4e-5c1d-4e7f-9a0b-6c2d1e8f7a90';

function errorResponse(codes: ErrorCode[]): JsonObject {
  const sorted = [...new Set(codes)].sort();
  const status = ERROR_STATUS[sorted[0]!];
  return {
    description: `Error: ${sorted.map((c) => `\`${c}\``).join(', ')}.`,
    ...(status === 429 || status === 503 ? { headers: { 'Retry-After': RETRY_AFTER } } : {}),
    content: {
      'application/json': {
        schema: { $ref: '#/components/schemas/Error' },
        examples: Object.fromEntries(sorted.map((code) => [code, { value: { error: { code, message: '…', details: {}, request_id: EXAMPLE_REQUEST_ID } } }])),
      },
    },
  };
}

function operationOf(route: RouteLike, detail: Detail, components: Components): JsonObject {
  const websocket = route.method === 'WS';
  const method = websocket ? 'get' : route.method.toLowerCase();
  const readsBody = !websocket && method !== 'get' && method !== 'head';
  const parameters = parametersOf(route);
  const schemes = new Set((detail.security ?? []).flatMap((requirement) => Object.keys(requirement)));
  const body = route.hooks.body;

  const responses = new Map<number, JsonObject>();
  const codesByStatus = new Map<number, ErrorCode[]>();
  const addCodes = (codes: readonly ErrorCode[]) => {
    for (const code of codes) codesByStatus.set(ERROR_STATUS[code], [...(codesByStatus.get(ERROR_STATUS[code]) ?? []), code]);
  };
  for (const [status, schema] of declaredResponses(route)) {
    if (status >= 400) {
      const codes = errorCodesOf(schema);
      // A bare error schema names no code: document every code of its status.
      addCodes(codes.length > 0 ? codes : (Object.keys(ERROR_STATUS) as ErrorCode[]).filter((c) => ERROR_STATUS[c] === status));
    } else if (isVoid(schema)) {
      responses.set(status, { description: SUCCESS_TEXT[status] ?? 'Success' });
    } else {
      responses.set(status, { description: SUCCESS_TEXT[status] ?? 'Success', content: isTypeBoxSchema(schema) ? contentOf(schema, components) : {} });
    }
  }
  // A WebSocket answers the handshake with 101 (its messages are described by the route's description).
  if (websocket) responses.set(101, { description: SUCCESS_TEXT[101]! });
  addCodes(
    impliedCodes({
      schemes,
      readsBody,
      anyMediaType: isTypeBoxSchema(body) && body.contentMediaType === 'application/octet-stream',
      pathParams: parameters.some((p) => p.in === 'path'),
      query: parameters.some((p) => p.in === 'query'),
      websocket,
    }),
  );
  for (const [status, codes] of codesByStatus) responses.set(status, errorResponse(codes));
  if (![...responses.keys()].some((s) => s < 400)) throw new Error(`${route.method} ${route.path} declares no success response`);

  const requestBody: JsonObject =
    readsBody && isTypeBoxSchema(body) ? { requestBody: { required: !(OptionalKind in body), content: contentOf(body, components) } } : {};
  return {
    operationId: operationIdOf(method, route.path),
    ...(detail.summary ? { summary: detail.summary } : {}),
    ...(detail.description ? { description: detail.description } : {}),
    tags: detail.tags,
    ...(websocket ? { 'x-websocket': true } : {}),
    ...(detail.security ? { security: detail.security } : {}),
    ...(parameters.length > 0 ? { parameters: parameters.map((p) => documentParameter(p, components)) } : {}),
    ...requestBody,
    responses: Object.fromEntries([...responses].sort(([a], [b]) => a - b).map(([status, r]) => [String(status), r])),
  };
}

export interface OpenApiOptions {
  /** The prefix the routes are mounted under (API_PREFIX). */
  prefix: string;
  /** `info.version`. */
  version?: string;
}

/**
 * The document for these routes. Left out: `.all()` catch-alls, wildcard paths and routes whose
 * `detail` says `hide`.
 */
export function buildOpenApiDocument(routes: readonly RouteLike[], options: OpenApiOptions): JsonObject {
  const components = new Components();
  const errorSchema = components.hoist(toJson(ErrorBody));
  if (!isJsonObject(errorSchema) || errorSchema.$ref !== '#/components/schemas/Error') throw new Error('the error body must be titled Error');
  const paths: Record<string, JsonObject> = {};
  const tags = new Set<string>();
  for (const route of routes) {
    const method = route.method === 'WS' ? 'get' : route.method.toLowerCase();
    if (!METHODS.has(method) || route.path.includes('*')) continue;
    const detail = detailOf(route);
    if (detail.hide) continue;
    const path = documentPath(options.prefix, route.path);
    paths[path] ??= {};
    const item = paths[path];
    if (item[method]) throw new Error(`two routes answer ${method.toUpperCase()} ${path}`);
    item[method] = operationOf(route, detail, components);
    for (const tag of detail.tags) tags.add(tag);
  }
  return {
    openapi: OPENAPI_VERSION,
    info: { title: 'Fingerprint Attendance API', version: options.version ?? '1', description: DESCRIPTION },
    servers: [{ url: '/' }],
    tags: [...TAGS.filter((t) => tags.has(t.name)), ...[...tags].filter((name) => !TAGS.some((t) => t.name === name)).map((name) => ({ name }))],
    paths,
    components: { schemas: components.schemas, securitySchemes: SECURITY_SCHEME_OBJECTS },
  };
}
