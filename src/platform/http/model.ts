/**
 * Building blocks of the modules' models: the TypeBox schemas that routes validate with and
 * that the OpenAPI document is generated from, so the two cannot disagree.
 */
import { type TLiteral, type TSchema, type TUnion, Type } from '@sinclair/typebox';
import { t } from 'elysia';
import { ERROR_STATUS, type ErrorCode } from '../errors';

/**
 * Where a string schema keeps what its pattern or format stands for, in a few words (`an e-mail
 * address`): a value that fails it is told `must be an e-mail address` (validation-errors.ts),
 * not the pattern itself. A symbol: the OpenAPI document leaves it out.
 */
export const SAID_AS: unique symbol = Symbol('fpa.said-as');

/** The schema, its pattern or format said in these words when a value fails it (SAID_AS). */
export function saidAs<T extends TSchema>(schema: T, words: string): T {
  return Object.assign(schema, { [SAID_AS]: words });
}

/** A sequence or an id of digits, as text (up to 15 digits: within a safe integer); told in words when it is not one. */
export const DigitsText = (description: string) => saidAs(t.String({ pattern: '^\\d{1,15}$', description }), 'a whole number of up to 15 digits');

/**
 * Text people or terminals will see: no control characters (U+0000–U+001F, U+007F). A NUL
 * would be stored truncated by the database and ends a field on a terminal.
 */
const PRINTABLE = '^[^\\u0000-\\u001f\\u007f]*$';

export function Text(options: { minLength?: number; maxLength: number; description?: string; examples?: string[] }) {
  return saidAs(t.String({ minLength: options.minLength ?? 1, pattern: PRINTABLE, ...options }), 'text without control characters');
}

/** An instant, ISO 8601 with an offset (`2026-01-31T08:00:00Z`). */
export const Instant = (description?: string) => t.String({ format: 'date-time', ...(description ? { description } : {}) });
/** An instant a client sends: ISO 8601 with its offset (the pattern also keeps control characters out). */
export const InstantInput = (description: string) =>
  saidAs(
    t.String({ format: 'date-time', pattern: '^\\d{4}-\\d{2}-\\d{2}T[0-9:.]+(Z|[+-]\\d{2}:\\d{2})$', maxLength: 40, description }),
    'an instant with its offset (2026-01-31T08:00:00Z)',
  );
/** A list filter's bound: a local date of the attendance zone (inclusive), or an ISO 8601 instant. */
export const RangeBound = (description: string) =>
  saidAs(
    t.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}(T[0-9:.]+(Z|[+-]\\d{2}:\\d{2}))?$', maxLength: 40, description }),
    'a date (YYYY-MM-DD) or an instant with its offset',
  );

/** A calendar date `YYYY-MM-DD`. */
export const LocalDate = (description?: string) =>
  saidAs(t.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', ...(description ? { description } : {}) }), 'a date (YYYY-MM-DD)');
/** A UUID; the pattern also keeps control characters out of path parameters. */
export const Uuid = (description?: string) =>
  saidAs(
    t.String({
      format: 'uuid',
      pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
      ...(description ? { description } : {}),
    }),
    'a UUID',
  );
/**
 * Several ids in one query parameter: up to 100, separated by commas (each 1 to 100 characters,
 * no control characters). A page that shows people by id asks for exactly those, in one request.
 */
export const IdList = (description: string) =>
  t.String({ pattern: '^[^,\\u0000-\\u001f\\u007f]{1,100}(,[^,\\u0000-\\u001f\\u007f]{1,100}){0,99}$', maxLength: 10_100, description });
export const Nullable = <T extends TSchema>(schema: T) => t.Union([schema, t.Null()]);
/**
 * A string enum from a constant list. A union of literals, not `t.UnionEnum`: that one gives the
 * schema a `default` (its first value), which Elysia would fill in for an absent query parameter.
 */
export function OneOf<const V extends readonly [string, ...string[]]>(values: V, description?: string): TUnion<Literals<V>> {
  // TypeBox computes a union's static type from a tuple of literals; the map gives an array.
  return Type.Union(
    values.map((v) => Type.Literal(v)),
    description ? { description } : {},
  ) as TUnion<Literals<V>>;
}

type Literals<V extends readonly string[]> = { -readonly [K in keyof V]: TLiteral<V[K]> };

/**
 * An integer in a body or a response. TypeBox's own, not `t.Integer`: Elysia's accepts a numeric
 * string too (right for query parameters, wrong for JSON) and documents it as such.
 */
export const Int = (options: { minimum?: number; maximum?: number; description?: string } = {}) => Type.Integer(options);

/**
 * What an object that refuses unnamed properties says. Not `additionalProperties: false`: with
 * Elysia's `normalize` (on by default, and set by the HOST app, not by this plugin) such an
 * object is cleaned of unknown properties before it is validated, so they would be dropped
 * silently instead of refused. A schema no value matches is not cleaned, and means the same.
 * The OpenAPI document writes it as `false` (src/app/docs/openapi.ts). (A host that sets
 * `normalize: 'typebox'` has every object cleaned whatever its schema says.)
 */
export const NoOtherProperties = t.Never();

/**
 * The query of every API route, besides the parameters its own schema names: nothing else. An
 * unknown parameter is refused (400 `validation_error` naming it and the parameters the route
 * takes, errors.ts), never dropped: `summary.csv?employee=E02` answered everyone's rows to a
 * clerk who believed she had one person's file. `apiRouter` gives it to every route it serves
 * as a standalone schema, which Elysia checks together with the route's own (their properties
 * merged, this one's `additionalProperties` kept): a route needs no schema of its own to be
 * closed, and a new route is closed without a word. So is every route of a plugin `.use()`d into
 * an API router: one that must stay open (the single sign-on callback) is a router of its own,
 * beside. The OpenAPI document reads the route's own schema, so it lists exactly the parameters
 * a route takes.
 */
export const NoOtherParameters = t.Object({}, { additionalProperties: NoOtherProperties });

/** A query that may carry any parameter: only where we do not write the query (RouterOptions.anyQuery in ./router.ts). */
export const AnyParameters = t.Object({}, { additionalProperties: true });

/**
 * An object that refuses properties it does not name (every administrator request body, and
 * every object nested in one). `title` names it in the OpenAPI document's components.
 */
export const Body = <P extends Record<string, TSchema>>(properties: P, options: { title?: string; description?: string } = {}) =>
  t.Object(properties, { additionalProperties: NoOtherProperties, ...options });

/** Where a query parameter's schema keeps its name, for the error that refuses it (errors.ts). */
export const QUERY_PARAMETER: unique symbol = Symbol('fpa.query-parameter');

/**
 * An integer query parameter. `t.Integer` (not `Int`): a query parameter is text, and Elysia's
 * integer accepts the numeric string. Elysia checks its range on the number alone, after the
 * query passed, so the error has no path: the schema carries the parameter's name (a symbol: the
 * OpenAPI document leaves it out) for the error to name it, as it names every other parameter.
 */
export function QueryInt(name: string, options: { minimum?: number; maximum?: number; description?: string }) {
  const named: typeof options & { [QUERY_PARAMETER]: string } = { ...options, [QUERY_PARAMETER]: name };
  return digitsOnly(t.Integer(named));
}

/**
 * Elysia's query integer is a union of its text and the number, and takes any text `Number()`
 * reads as a whole number: `1e3` (1000), `0x10`, ` 7`, `7.0`, `+7`. A whole number in a query is
 * written in digits: the text branch is given that pattern (the OpenAPI document shows the
 * integer, not the text: src/app/docs/openapi.ts).
 */
function digitsOnly<T extends TSchema>(integer: T): T {
  const branches: unknown = integer.anyOf;
  for (const branch of Array.isArray(branches) ? branches : []) {
    if (typeof branch === 'object' && branch !== null && 'format' in branch && branch.format === 'integer') Object.assign(branch, { pattern: '^-?[0-9]+$' });
  }
  return integer;
}

/** `?limit=&cursor=` of every list (docs/api.md). */
export const PageQuery = {
  limit: t.Optional(QueryInt('limit', { minimum: 1, maximum: 1000, description: 'Page size, 1 to 1000 (default 100).' })),
  cursor: t.Optional(Text({ maxLength: 500, description: 'The `next_cursor` of the previous page.' })),
};

/**
 * `?bom=true` of a CSV download: the file starts with a UTF-8 byte-order mark, which Excel on
 * Windows needs to read it as UTF-8 (without it, José shows as JosÃ©). Not by default: a CSV is
 * for machines, and many read a BOM as part of the first column's name. The console asks for it.
 */
export const CsvBomQuery = {
  bom: t.Optional(t.Boolean({ description: 'Start the file with a UTF-8 byte-order mark, for Excel on Windows (default: none).' })),
};

/** `{ results: [...], next_cursor }` of every administrator list. */
export const Page = <T extends TSchema>(item: T) =>
  t.Object({ results: t.Array(item), next_cursor: Nullable(t.String({ description: 'Opaque cursor of the next page; null on the last page.' })) });

export const ErrorBody = t.Object(
  {
    error: t.Object({
      code: t.String({ description: 'Stable machine-readable code.', examples: Object.keys(ERROR_STATUS) }),
      message: t.String({ description: 'Human-readable explanation.' }),
      details: t.Record(t.String(), t.Unknown(), { description: 'Further information, specific to the code.' }),
      // Every error answered names its request: required, so a client generated from the document may rely on it.
      request_id: t.String({
        description: 'The id of the request (its `x-request-id`, given or generated): the server log lines of this request carry it too.',
      }),
    }),
  },
  { title: 'Error', description: 'The one error body of the API.' },
);

/** Where an error response of `errors()` keeps its codes, for the OpenAPI document (validation ignores symbols). */
export const ERROR_CODES: unique symbol = Symbol('fpa.error-codes');

export type ErrorResponse = typeof ErrorBody & { [ERROR_CODES]: readonly ErrorCode[] };

/**
 * The error responses of an operation: the statuses of the given codes, plus what every
 * administrator route may answer (400 validation, 401, 403, 503). Each status carries its codes;
 * the OpenAPI generator adds those the route's shape implies (src/app/docs/openapi.ts).
 */
export function errors(...codes: ErrorCode[]): Record<number, ErrorResponse> {
  const byStatus = new Map<number, Set<ErrorCode>>();
  for (const code of ['validation_error', 'unauthorized', 'forbidden', 'unavailable', ...codes] as ErrorCode[]) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, (byStatus.get(status) ?? new Set()).add(code));
  }
  const out: Record<number, ErrorResponse> = {};
  for (const [status, set] of byStatus) out[status] = { ...ErrorBody, [ERROR_CODES]: [...set] };
  return out;
}

/** The codes an error response of `errors()` names (none for any other schema). */
export function errorCodesOf(schema: unknown): readonly ErrorCode[] {
  if (schema === null || typeof schema !== 'object' || !(ERROR_CODES in schema)) return [];
  const codes = schema[ERROR_CODES];
  return Array.isArray(codes) ? codes.filter((c): c is ErrorCode => typeof c === 'string' && c in ERROR_STATUS) : [];
}
