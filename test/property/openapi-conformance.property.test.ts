/**
 * The API against its own OpenAPI document, as an outside fuzzer sees it: for EVERY operation of
 * the served document, requests derived from the document's schemas (path, query, body) go to
 * the real server over HTTP.
 * - Valid requests (ids real or random, so 404 is a fine answer): never a 5xx, the status is
 *   documented for the operation and the body matches the documented schema.
 * - Invalid ones (wrong types, missing or unknown properties, control characters, out-of-range
 *   numbers and lengths, a null or missing body), each checked invalid against the document
 *   first: a documented 4xx with the error body.
 * `FPA_FUZZ_SEED=<n>` replays a run (the seed is printed on failure); `FPA_FUZZ_RUNS=<n>` sets
 * the runs per operation and kind (default 10).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { approvedTerminal, type CreatedAgent, createAgent, newEnrollee, startSession } from '../support/agents';
import { startTestServer, type TestServer } from '../support/harness';
import { API, type Document, type DocumentedOperation, fetchDocument, operationsOf, type Schema, SchemaCheck } from '../support/openapi';

const RUNS = Number(process.env.FPA_FUZZ_RUNS ?? 10);
const SEED = process.env.FPA_FUZZ_SEED === undefined ? undefined : Number(process.env.FPA_FUZZ_SEED);
const options = { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) };
const SERIAL = 'FUZZ0001';

let server: TestServer;
let doc: Document;
let check: SchemaCheck;
let caller: CreatedAgent;
/** Real ids by the path they appear in, so valid requests reach real resources too. */
let known: [RegExp, string][];

beforeAll(async () => {
  server = await startTestServer({
    AGENT_RATE_LIMIT: '1000000/m',
    AGENT_CAN_START_SESSIONS: true,
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: true,
    WEBHOOK_WORKER: false,
  });
  doc = await fetchDocument(server);
  check = new SchemaCheck(doc);
  await approvedTerminal(server, SERIAL);
  const person = await newEnrollee(server);
  caller = await createAgent(server, 'fuzz-caller');
  // Administrators may revoke this one; the caller's key stays good.
  const victim = await createAgent(server, 'fuzz-victim');
  const session = await startSession(server, person.id, caller.id, [1]);
  const employee = await server.admin.post('/employees/', { id: 'E-FUZZ', name: 'Fuzz' });
  const webhook = await server.admin.post('/webhooks/', { url: 'http://127.0.0.1:9/fuzz' });
  if (employee.status !== 201 || webhook.status !== 201) throw new Error('fuzz setup failed');
  known = [
    [/\/devices\/\{serial\}/, SERIAL],
    [/\/enrollees\/\{id\}/, person.id],
    [/\/employees\/\{id\}/, 'E-FUZZ'],
    [/\/enrollment-agents\/\{id\}/, victim.id],
    [/\/agent\/sessions\/\{id\}|\/enrollment-sessions\/\{id\}/, session.id],
    [/\/webhooks\/\{id\}/, webhook.body.id],
    // The one job the fuzzer may run: it only looks at the terminals.
    [/\/jobs\/\{name\}/, 'check-devices'],
  ];
});
afterAll(async () => {
  await server.close();
});

// ------------------------------------------------------------------ values from schemas

const resolve = (schema: Schema) => check.resolve(schema);
const typesOf = (s: Schema): string[] => (Array.isArray(s.type) ? s.type.map(String) : typeof s.type === 'string' ? [s.type] : []);
const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
const list = (v: unknown): Schema[] => (Array.isArray(v) ? v.filter((x): x is Schema => x !== null && typeof x === 'object') : []);
const map = (v: unknown): [string, Schema][] => (v && typeof v === 'object' ? Object.entries(v as Record<string, Schema>) : []);

function stringArbitrary(s: Schema): fc.Arbitrary<string> {
  const min = num(s.minLength) ?? 0;
  const max = Math.min(num(s.maxLength) ?? min + 24, min + 24);
  if (s.format === 'uuid') return fc.uuid();
  if (s.format === 'date-time') return fc.date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true }).map((d) => d.toISOString());
  if (s.format === 'uri') return fc.webUrl();
  if (typeof s.pattern === 'string') {
    const pattern = new RegExp(s.pattern);
    return fc
      .stringMatching(pattern)
      .map((v) => v.slice(0, max))
      .filter((v) => v.length >= min && pattern.test(v));
  }
  return fc.oneof(fc.string({ minLength: min, maxLength: max }), fc.string({ minLength: min, maxLength: max, unit: 'grapheme' }));
}

/** Values the schema accepts (every one is checked against it). */
function valid(schema: Schema, depth = 0): fc.Arbitrary<unknown> {
  const s = resolve(schema);
  const arbitrary = validUnchecked(s, depth);
  return arbitrary.filter((v) => check.problems(s, v).length === 0);
}

function validUnchecked(s: Schema, depth: number): fc.Arbitrary<unknown> {
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  if (s.const !== undefined) return fc.constant(s.const);
  const branches = [...list(s.anyOf), ...list(s.oneOf)];
  if (branches.length > 0) return fc.oneof(...branches.map((b) => valid(b, depth + 1)));
  const types = typesOf(s);
  if (types.length > 1) return fc.oneof(...types.map((type) => validUnchecked({ ...s, type }, depth)));
  switch (types[0]) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer': {
      const bounds = [num(s.minimum), num(s.maximum)].filter((v) => v !== undefined);
      const anyInteger = fc.integer({ min: num(s.minimum) ?? -1000, max: num(s.maximum) ?? 1000 });
      return bounds.length > 0 ? fc.oneof(anyInteger, fc.constantFrom(...bounds)) : anyInteger;
    }
    case 'number':
      return fc.double({ min: num(s.minimum) ?? -1e6, max: num(s.maximum) ?? 1e6, noNaN: true, noDefaultInfinity: true });
    case 'string':
      return stringArbitrary(s);
    case 'array': {
      const items = s.items && typeof s.items === 'object' ? valid(s.items as Schema, depth + 1) : fc.jsonValue({ maxDepth: 1 });
      const minLength = num(s.minItems) ?? 0;
      return fc.array(items, { minLength, maxLength: Math.min(num(s.maxItems) ?? minLength + 3, minLength + 3) });
    }
    case 'object': {
      const properties = map(s.properties);
      const required = Array.isArray(s.required) ? s.required.map(String) : [];
      const record = fc.record(Object.fromEntries(properties.map(([k, p]) => [k, valid(p, depth + 1)])), { requiredKeys: required });
      const patterns = map(s.patternProperties);
      if (patterns.length === 0) return record;
      const [pattern, value] = patterns[0]!;
      const keys = pattern === '^(.*)$' ? fc.string({ maxLength: 8 }) : fc.stringMatching(new RegExp(pattern));
      const extra = fc.dictionary(keys, valid(value, depth + 1), { maxKeys: depth > 2 ? 0 : 3 });
      return fc.tuple(record, extra).map(([r, e]) => ({ ...e, ...r }));
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Values that break the schema, derived from a valid one (each is checked to be refused). */
function broken(schema: Schema, value: unknown): { why: string; value: unknown }[] {
  const s = resolve(schema);
  const out: { why: string; value: unknown }[] = [];
  const types = typesOf(s);
  const nullableBranch = list(s.anyOf).find((b) => resolve(b).type !== 'null');
  if (nullableBranch && value !== null) out.push(...broken(nullableBranch, value));
  if (types.includes('object') && value && typeof value === 'object' && !Array.isArray(value)) {
    const object = value as Record<string, unknown>;
    out.push({ why: 'not an object', value: [object] });
    for (const key of Array.isArray(s.required) ? s.required.map(String) : []) {
      const { [key]: _, ...rest } = object;
      out.push({ why: `without ${key}`, value: rest });
    }
    // A name no record pattern of the API matches.
    if (s.additionalProperties === false) out.push({ why: 'an unknown property', value: { ...object, 'Fuzz-Unknown': 'x' } });
    for (const [key, property] of map(s.properties)) {
      if (!(key in object)) continue;
      for (const b of broken(property, object[key])) out.push({ why: `${key}: ${b.why}`, value: { ...object, [key]: b.value } });
    }
  }
  if (types.includes('string') && typeof value === 'string') {
    out.push({ why: 'a number for a string', value: 12345 });
    for (const c of ['\u0000', '\u0007', '\u001f', '\u007f']) out.push({ why: `control character U+${c.charCodeAt(0).toString(16)}`, value: `${value}${c}x` });
    const max = num(s.maxLength);
    if (max !== undefined) out.push({ why: 'too long', value: 'x'.repeat(max + 1) });
    if (Array.isArray(s.enum)) out.push({ why: 'not one of the values', value: 'zz-not-a-value' });
  }
  if (types.includes('integer') && typeof value === 'number') {
    out.push({ why: 'text for an integer', value: 'seven' }, { why: 'a fraction', value: value + 0.5 });
    if (num(s.minimum) !== undefined) out.push({ why: 'below the minimum', value: num(s.minimum)! - 1 });
    if (num(s.maximum) !== undefined) out.push({ why: 'above the maximum', value: num(s.maximum)! + 1 });
  }
  if (types.includes('boolean') && typeof value === 'boolean') out.push({ why: 'text for a boolean', value: 'yes' });
  if (types.includes('array') && Array.isArray(value)) {
    out.push({ why: 'an object for an array', value: { items: value } });
    const max = num(s.maxItems);
    if (max !== undefined && value.length > 0) out.push({ why: 'too many items', value: Array.from({ length: max + 1 }, () => value[0]) });
    if ((num(s.minItems) ?? 0) > 0) out.push({ why: 'too few items', value: [] });
    if (value.length > 0 && s.items && typeof s.items === 'object') {
      for (const b of broken(s.items as Schema, value[0])) out.push({ why: `item: ${b.why}`, value: [b.value, ...value.slice(1)] });
    }
  }
  return out.filter((b) => check.problems(s, b.value).length > 0);
}

// ------------------------------------------------------------------ requests

interface Request {
  path: Record<string, string>;
  query: Record<string, string>;
  /** `undefined`: no body at all. */
  body: unknown;
}

/** The parameter's text as the server reads it, for checking against its schema. */
function parsedParameter(schema: Schema, text: string): unknown {
  return typesOf(resolve(schema)).includes('integer') && /^-?\d+$/.test(text) ? Number(text) : text;
}

/** `.` and `..` would be dot segments: a URL would not keep them as a path parameter. */
const pathSafe = (v: string) => v !== '' && !/^(\.|%2e){1,2}$/i.test(v);

function validRequest(op: DocumentedOperation): fc.Arbitrary<Request> {
  const parameters = op.operation.parameters ?? [];
  const real = known.find(([pattern]) => pattern.test(op.path))?.[1];
  const path = Object.fromEntries(
    parameters
      .filter((p) => p.in === 'path')
      .map((p) => {
        const random = valid(p.schema).map(String).filter(pathSafe);
        const first = parameters.find((q) => q.in === 'path') === p;
        return [p.name, real !== undefined && first ? fc.oneof({ arbitrary: fc.constant(real), weight: 3 }, { arbitrary: random, weight: 1 }) : random];
      }),
  );
  // Optional parameters mostly absent: each one present is one more chance of a 400 (a random
  // cursor, a date that is not one), and the answers of real lists are worth checking too.
  const query = Object.fromEntries(
    parameters
      .filter((p) => p.in === 'query')
      .map((p) => {
        const value = valid(p.schema).map((v) => String(v));
        return [p.name, p.required ? value : fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: value, weight: 1 })];
      }),
  );
  const media = op.operation.requestBody?.content['application/json'];
  const body = media ? (op.operation.requestBody!.required ? valid(media.schema) : fc.option(valid(media.schema), { nil: undefined })) : fc.constant(undefined);
  return fc.record({ path: fc.record(path), query: fc.record(query), body }).map((r) => ({
    path: r.path as Record<string, string>,
    query: Object.fromEntries(Object.entries(r.query).filter((e): e is [string, string] => e[1] !== undefined)),
    body: r.body,
  }));
}

/** Every way to break a valid request, each refused by the document. */
function brokenRequests(op: DocumentedOperation, request: Request): { why: string; request: Request }[] {
  const out: { why: string; request: Request }[] = [];
  for (const p of op.operation.parameters ?? []) {
    if (p.in !== 'path' && p.in !== 'query') continue;
    // An absent optional query parameter is broken from a plausible value.
    const current = p.in === 'path' ? request.path[p.name]! : (request.query[p.name] ?? (typesOf(resolve(p.schema)).includes('integer') ? '1' : 'a'));
    const candidates = broken(p.schema, parsedParameter(p.schema, current))
      .map((b) => ({ why: `${p.in} ${p.name}: ${b.why}`, text: typeof b.value === 'string' || typeof b.value === 'number' ? String(b.value) : null }))
      .filter((b): b is { why: string; text: string } => b.text !== null && pathSafe(b.text))
      .filter((b) => check.problems(p.schema, parsedParameter(p.schema, b.text)).length > 0);
    for (const b of candidates) {
      out.push({
        why: b.why,
        request: p.in === 'path' ? { ...request, path: { ...request.path, [p.name]: b.text } } : { ...request, query: { ...request.query, [p.name]: b.text } },
      });
    }
  }
  const requestBody = op.operation.requestBody;
  const media = requestBody?.content['application/json'];
  if (requestBody && media) {
    if (check.problems(media.schema, null).length > 0) out.push({ why: 'a null body', request: { ...request, body: null } });
    if (requestBody.required) out.push({ why: 'no body', request: { ...request, body: undefined } });
    const base = request.body ?? {};
    for (const b of broken(media.schema, base)) out.push({ why: `body ${b.why}`, request: { ...request, body: b.value } });
  }
  return out;
}

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

async function send(op: DocumentedOperation, request: Request): Promise<Answer> {
  let path = op.path;
  for (const [name, value] of Object.entries(request.path)) path = path.replace(`{${name}}`, encodeURIComponent(value));
  const query = new URLSearchParams(request.query).toString();
  const agent = op.path.startsWith(`${API}/agent/`);
  const res = await fetch(`${server.url}${path}${query ? `?${query}` : ''}`, {
    method: op.method.toUpperCase(),
    headers: {
      authorization: agent ? `Agent ${caller.key}` : (server.admin.headers.authorization ?? ''),
      ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: request.body !== undefined ? JSON.stringify(request.body) : undefined,
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** The answer is documented for the operation, and its body is what the document says. */
function expectDocumented(op: DocumentedOperation, request: Request, answer: Answer): void {
  const label = `${op.method.toUpperCase()} ${op.path} ${JSON.stringify(request).slice(0, 300)} → ${answer.status} ${answer.text.slice(0, 300)}`;
  expect({ label, server_error: answer.status >= 500 }).toEqual({ label, server_error: false });
  const response = op.operation.responses[String(answer.status)];
  expect({ label, documented: response !== undefined }).toEqual({ label, documented: true });
  const media = response!.content?.['application/json'];
  if (!media) {
    const types = Object.keys(response!.content ?? {});
    // A file (a CSV, an Excel workbook, a PDF): one of the documented media types.
    if (types.length > 0) {
      const type = answer.headers.get('content-type') ?? '';
      expect({ label, type: types.some((t) => type.startsWith(t)) }).toEqual({ label, type: true });
      return;
    }
    expect({ label, body: answer.text }).toEqual({ label, body: '' });
    return;
  }
  expect(answer.headers.get('content-type') ?? '').toContain('application/json');
  expect({ label, problems: check.problems(media.schema, JSON.parse(answer.text)) }).toEqual({ label, problems: [] });
  if (answer.status === 429) expect(answer.headers.get('retry-after')).toMatch(/^\d+$/);
}

/** Operations that end what the others work on (the enrollee, the session, the webhook) go last. */
const ending = (op: DocumentedOperation) => op.method === 'delete' || /\/(cancel|revoke|disable)\/$/.test(op.path);
const inOrder = () => [...operationsOf(doc).filter((op) => !ending(op)), ...operationsOf(doc).filter(ending)];

describe('every operation of the document, fuzzed over HTTP', () => {
  test('the document has operations to fuzz', () => {
    expect(operationsOf(doc).length).toBeGreaterThanOrEqual(40);
  });

  test('valid requests: never a 5xx, a documented status, a body of the documented shape', async () => {
    for (const op of inOrder()) {
      await fc.assert(
        fc.asyncProperty(validRequest(op), async (request) => {
          expectDocumented(op, request, await send(op, request));
        }),
        options,
      );
    }
  }, 60_000);

  test('invalid requests: a documented 4xx with the error body', async () => {
    let sent = 0;
    for (const op of inOrder()) {
      await fc.assert(
        fc.asyncProperty(validRequest(op), fc.nat(), async (request, pick) => {
          const candidates = brokenRequests(op, request);
          if (candidates.length === 0) return;
          const { why, request: bad } = candidates[pick % candidates.length]!;
          const answer = await send(op, bad);
          sent += 1;
          expectDocumented(op, bad, answer);
          const label = `${op.method.toUpperCase()} ${op.path} with ${why} → ${answer.status} ${answer.text.slice(0, 200)}`;
          expect({ label, refused: answer.status >= 400 && answer.status < 500 }).toEqual({ label, refused: true });
        }),
        options,
      );
    }
    // Most operations take some input that can be broken.
    expect(sent).toBeGreaterThan(operationsOf(doc).length * RUNS * 0.6);
  }, 60_000);
});
