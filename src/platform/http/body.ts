/**
 * JSON request bodies of the API. Elysia's own parsers would accept form-encoded bodies, turn
 * bytes that are not UTF-8 into U+FFFD, silently drop unparsable optional bodies and read any
 * size; here a body must be `application/json` (or `…+json`), UTF-8, valid JSON and at most
 * the cap, and hold an object (`null` only where a router says so) nested at most
 * MAX_BODY_DEPTH deep whose objects name each key once, or the request is refused with the spec's error body: 415
 * `unsupported_media_type` for another Content-Type (or none), else 400 or 413.
 *
 * The parse hook runs before the caller is authenticated, so it never throws: a refused body
 * travels as a `BodyRefusal` and is raised by `settledBody`, which the routers call right after
 * authentication. An anonymous request is thus always 401, whatever body it carries.
 */
import type { Settings } from '../config/settings';
import { FpaError } from '../errors';
import { repeatedKey } from './json-keys';
import { readCapped } from './read-capped';

/** The JSON body cap of the API: 1 MiB, raised when a template upload needs more. */
export const API_BODY_LIMIT = 1024 * 1024;
/** Room for the other fields of a template upload around its base64 text. */
const UPLOAD_ENVELOPE = 64 * 1024;
/**
 * How deeply objects and arrays may nest in a body. The API's own bodies nest three levels;
 * far deeper values would overflow the stack of the validator's error report (it serialises
 * the value), so they are refused before anything walks them recursively.
 */
export const MAX_BODY_DEPTH = 32;

/** The cap for this configuration: an agent upload of TEMPLATE_MAX_BYTES always fits. */
export function apiBodyLimit(settings: Pick<Settings, 'TEMPLATE_MAX_BYTES'>): number {
  return Math.max(API_BODY_LIMIT, Math.ceil(settings.TEMPLATE_MAX_BYTES / 3) * 4 + UPLOAD_ENVELOPE);
}

/** A body that was refused; raised once the caller is known. */
export class BodyRefusal {
  constructor(readonly error: FpaError) {}
}

/** A body stream that carried no bytes (chunked and empty): the same as no body. */
export const NO_BYTES = Symbol('no body bytes');

function refuse(message: string, details: Record<string, unknown> = {}): BodyRefusal {
  return new BodyRefusal(new FpaError('validation_error', message, details));
}

/** A body of a media type the route does not read: 415, with the type that was sent (RFC 9110 §15.5.16). */
function wrongMediaType(message: string, contentType: string | null): BodyRefusal {
  return new BodyRefusal(new FpaError('unsupported_media_type', message, { content_type: contentType }));
}

function tooLarge(limit: number): BodyRefusal {
  return new BodyRefusal(new FpaError('payload_too_large', `the request body is larger than ${limit} bytes`, { max_bytes: limit }));
}

/** `application/json`, `application/merge-patch+json`…, with no charset other than UTF-8. */
export function isJsonContentType(header: string | null): boolean {
  if (header === null) return false;
  const [type = '', ...params] = header.split(';').map((p) => p.trim().toLowerCase());
  if (type !== 'application/json' && !/^application\/[a-z0-9.!#$&^_-]+\+json$/.test(type)) return false;
  const charset = params
    .find((p) => p.startsWith('charset='))
    ?.slice('charset='.length)
    .replace(/^"(.*)"$/, '$1');
  return charset === undefined || charset === 'utf-8' || charset === 'utf8';
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** At most this many characters of a caller's key are repeated in an error. */
const SHOWN_KEY = 100;
const shown = (text: string) => (text.length > SHOWN_KEY ? `${text.slice(0, SHOWN_KEY)}…` : text);

/**
 * A key given twice in one object is refused, naming it and where (400, as a query parameter
 * given twice is): `JSON.parse` keeps the last without a word, and which was meant is a guess.
 */
function refuseRepeatedKey(text: string): BodyRefusal | null {
  const repeated = repeatedKey(text);
  if (!repeated) return null;
  const path = shown(repeated.path);
  return refuse(`the request body gives the key ${JSON.stringify(shown(repeated.key))} more than once (at ${path}); give it once`, {
    in: 'body',
    errors: [{ path, message: 'given more than once' }],
  });
}

/** Whether objects and arrays nest deeper than `max`; iterative, and stops at the first too deep. */
function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  for (let entry = stack.pop(); entry; entry = stack.pop()) {
    const [node, depth] = entry;
    if (depth > max) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node as object)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

export interface BodyOptions {
  /** A JSON `null` body is passed on to the route's schema (the agent API accepts it where its model says so); else it is refused. */
  allowNull?: boolean;
}

/**
 * The body of an API request: the parsed JSON, undefined when there is none, or a refusal.
 * Never throws. The parser's own message is not passed on: it quotes the body, which may be a
 * template.
 */
export async function readJsonBody(request: Request, limit: number, options: BodyOptions = {}): Promise<unknown> {
  const text = await readText(request, limit, isJsonContentType, 'the request body must be JSON sent as Content-Type: application/json (UTF-8)');
  if (typeof text !== 'string') return text;
  const value = parseJson(text);
  if (value instanceof BodyRefusal) return value;
  // Every body of the API is an object. `null` is one only where the router allows it: Elysia
  // does not validate an optional body that is null, so a route would see it unchecked.
  if (value === null) return options.allowNull ? null : refuse('the request body must be a JSON object, not null');
  if (typeof value !== 'object' || Array.isArray(value)) return refuse('the request body must be a JSON object');
  if (nestsDeeperThan(value, MAX_BODY_DEPTH)) return refuse(`the request body nests deeper than ${MAX_BODY_DEPTH} levels`, { max_depth: MAX_BODY_DEPTH });
  return refuseRepeatedKey(text) ?? value;
}

/** What an empty body of records that is not CSV is told. */
const NO_RECORDS = 'the request body is empty: send the records as a JSON array (application/json) or as CSV with its header row (text/csv)';

/** A body of records (`punches/import/`): CSV text (a string), or the JSON array of the same records. */
export type RecordsBody = string | unknown[];

/**
 * The body of a route that takes records: `text/csv` (UTF-8) or a JSON array, under the same
 * cap and with the same refusals as `readJsonBody`. An empty CSV body is an empty file (`''`):
 * the importer then says what the file needs (its header row), where no body at all would fail
 * the route's schema first ("Expected union value"). An empty body of any other type (JSON, or
 * none said) is refused in words naming both forms: it is no empty file, and JSON has no header.
 */
export async function readRecordsBody(request: Request, limit: number): Promise<RecordsBody | BodyRefusal> {
  const csv = isCsvContentType(request.headers.get('content-type'));
  const text = await readText(
    request,
    limit,
    (type) => csv || isJsonContentType(type),
    'the request body must be CSV (Content-Type: text/csv) or a JSON array (application/json), UTF-8',
  );
  if (text === undefined || text === NO_BYTES) return csv ? '' : refuse(NO_RECORDS);
  if (typeof text !== 'string') return text;
  if (csv) return text;
  const value = parseJson(text);
  if (value instanceof BodyRefusal) return value;
  if (!Array.isArray(value)) return refuse('the request body must be a JSON array of records');
  if (nestsDeeperThan(value, MAX_BODY_DEPTH)) return refuse(`the request body nests deeper than ${MAX_BODY_DEPTH} levels`, { max_depth: MAX_BODY_DEPTH });
  return refuseRepeatedKey(text) ?? value;
}

/**
 * The cap of a terminal's file (`devices/{sn}/punches/import/`): 10 MiB, about 250,000 punches
 * (a line is about 40 bytes), more than a terminal holds (they keep 100,000 to 200,000). The
 * server's own request cap (app/server.ts) is raised to it.
 */
export const TERMINAL_FILE_LIMIT = 10 * 1024 * 1024;

/**
 * The body of a route that takes a file a terminal wrote (its USB attendance file): any
 * Content-Type (a browser sends a chosen file as `application/octet-stream` or as nothing), as
 * text. Not refused for bytes that are not UTF-8: such a file is read line by line, and a bad
 * byte costs only its line (it becomes U+FFFD, which the line's parser refuses); a BOM is
 * dropped. An empty body is an empty file (`''`, which the import refuses in its own words). Read
 * only once the caller is admitted (adminRouter checks it first: the file may be
 * TERMINAL_FILE_LIMIT).
 */
export async function readTerminalFileBody(request: Request, limit: number): Promise<string | BodyRefusal> {
  const text = await readText(
    request,
    limit,
    () => true,
    '',
    (bytes) => lenientUtf8.decode(bytes),
  );
  return text === undefined || text === NO_BYTES ? '' : text;
}

const lenientUtf8 = new TextDecoder('utf-8');

/** `text/csv`, with no charset other than UTF-8. */
function isCsvContentType(header: string | null): boolean {
  if (header === null) return false;
  const [type = '', ...params] = header.split(';').map((p) => p.trim().toLowerCase());
  const charset = params.find((p) => p.startsWith('charset='))?.slice('charset='.length);
  return type === 'text/csv' && (charset === undefined || charset === 'utf-8' || charset === 'utf8');
}

/** The body as UTF-8 text under the cap (strictly, unless `decode` says otherwise), or why not (never throws). */
async function readText(
  request: Request,
  limit: number,
  acceptType: (contentType: string | null) => boolean,
  wrongType: string,
  decode: (bytes: Uint8Array) => string | BodyRefusal = strictUtf8,
): Promise<string | BodyRefusal | typeof NO_BYTES | undefined> {
  if (!request.body) return undefined;
  const declared = request.headers.get('content-length')?.trim();
  if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > limit) return tooLarge(limit);
  const contentType = request.headers.get('content-type');
  if (!acceptType(contentType)) return wrongMediaType(wrongType, contentType);
  let bytes: Uint8Array | null;
  try {
    bytes = await readCapped(request.body, limit);
  } catch {
    return refuse('the request body could not be read');
  }
  if (bytes === null) return tooLarge(limit);
  if (bytes.byteLength === 0) return NO_BYTES;
  return decode(bytes);
}

function strictUtf8(bytes: Uint8Array): string | BodyRefusal {
  try {
    return utf8.decode(bytes);
  } catch {
    return refuse('the request body is not valid UTF-8');
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return refuse('the request body is not valid JSON');
  }
}

/**
 * Called once the caller is authenticated (and before the body is validated), as
 * `context.body = settledBody(context.body)`: raises a refused body and turns an empty stream
 * into no body. The hooks name `context.body` rather than hand the whole context over: Elysia
 * reads each hook's source to learn what its routes use, and a context handed to a function
 * makes every route of the app parse every request's headers, cookies and query (a few percent
 * of each terminal poll).
 */
export function settledBody(body: unknown): unknown {
  if (body === NO_BYTES) return undefined;
  if (body instanceof BodyRefusal) throw body.error;
  return body;
}
