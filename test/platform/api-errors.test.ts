/**
 * The API's error handler (src/platform/http/errors.ts) on what Elysia itself raises: an answer
 * that breaks its own response schema is our bug, so 500 `internal_error`, logged without the
 * answer (it may hold a key), never Elysia's 422 with the answer echoed; a request that breaks
 * its schema stays 400 `validation_error`.
 */
import { describe, expect, test } from 'bun:test';
import { Elysia, t } from 'elysia';
import { handleApiError } from '../../src/platform/http/errors';
import { Body, LocalDate, Nullable } from '../../src/platform/http/model';
import { createLogger } from '../../src/platform/log';

function app(lines: string[]) {
  // Typed `unknown`: the handler breaks the schema on purpose, which TypeScript would refuse.
  const answer: unknown = JSON.parse('{"n":"not a number","key":"fpa_abcdefgh_SECRET"}');
  return new Elysia()
    .onError(handleApiError(createLogger('debug', (line) => lines.push(line))))
    .get('/broken', () => answer as { n: number }, { response: { 200: t.Object({ n: t.Number() }) } })
    .post('/strict', ({ body }) => ({ n: body.n }), { body: t.Object({ n: t.Number() }), response: { 200: t.Object({ n: t.Number() }) } });
}

const Text = () => t.String();

describe('errors Elysia raises', () => {
  test('a response that breaks its schema is 500 internal_error, logged, and not echoed', async () => {
    const lines: string[] = [];
    const res = await app(lines).handle(new Request('http://fpa.test/broken?access_token=t0ken'));
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ error: { code: 'internal_error', message: 'an internal error occurred', details: {}, request_id: expect.any(String) } });
    expect(text).not.toContain('SECRET');
    expect(lines).toHaveLength(1);
    const logged = JSON.parse(lines[0]!);
    expect(logged).toMatchObject({ level: 'error', method: 'GET', path: '/broken', errors: [{ path: '/n' }] });
    // The log line names what was wrong, not the answer nor the query.
    expect(lines[0]).not.toContain('SECRET');
    expect(lines[0]).not.toContain('t0ken');
  });

  test('a request that breaks its schema is still 400 validation_error', async () => {
    const lines: string[] = [];
    const res = await app(lines).handle(
      new Request('http://fpa.test/strict', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"n":"x"}' }),
    );
    expect(res.status).toBe(400);
    const error = (await res.json()).error;
    expect(error).toMatchObject({ code: 'validation_error', details: { in: 'body' } });
    // One line, naming the refusal and its request, never the body.
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      {
        time: expect.any(String),
        level: 'info',
        msg: 'request refused',
        request_id: error.request_id,
        method: 'POST',
        path: '/strict',
        status: 400,
        code: 'validation_error',
      },
    ]);
  });

  // `normalize: 'typebox'` (an explicit choice of a host) cleans every object with TypeBox's
  // Value.Clean before validation, whatever the schema says: unknown properties are dropped there.
  test('a body property the model does not name is refused, with the normalize modes a host leaves or sets to off', async () => {
    for (const normalize of [true, false, 'exactMirror'] as const) {
      const plugin = new Elysia({ name: `bodies-${normalize}` })
        .onError(handleApiError())
        .post('/p', ({ body }) => body, { body: Body({ a: Text(), n: t.Optional(Body({ b: Text() })) }) });
      const host = new Elysia({ normalize }).use(plugin);
      const post = (body: string) => host.handle(new Request('http://fpa.test/p', { method: 'POST', headers: { 'content-type': 'application/json' }, body }));
      expect((await post('{"a":"x","n":{"b":"y"}}')).status).toBe(200);
      for (const body of ['{"a":"x","zz":1}', '{"a":"x","n":{"b":"y","zz":1}}']) {
        const res = await post(body);
        expect({ normalize, body, status: res.status }).toEqual({ normalize, body, status: 400 });
        expect((await res.json()).error.details.errors[0].message).toBe('Unknown property');
      }
    }
  });
});

describe('a union refused, in words', () => {
  const Kinded = (kind: string) => Body({ kind: t.Literal(kind), at: LocalDate() });
  const unions = new Elysia().onError(handleApiError()).post('/u', ({ body }) => body, {
    body: Body({ steps: t.Array(t.Union([Kinded('open'), Kinded('close')])), when: t.Optional(Nullable(LocalDate())) }),
  });
  const post = async (body: unknown) => {
    const res = await unions.handle(
      new Request('http://fpa.test/u', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    );
    const error = (await res.json()).error;
    return [res.status, error?.message, error?.details.errors];
  };

  test('a tagged object nested in a list: the branch its tag names, at its path', async () => {
    expect((await post({ steps: [{ kind: 'open', at: '2026-01-05' }] }))[0]).toBe(200);
    expect(await post({ steps: [{ kind: 'open', at: '2026-01-05' }, { kind: 'close' }] })).toEqual([
      400,
      'field "steps/1/at" is required for close',
      [{ path: '/steps/1/at', message: 'required' }],
    ]);
    expect(await post({ steps: [{ kind: 'shut', at: '2026-01-05' }] })).toEqual([
      400,
      'field "steps/0/kind" must be one of: open, close',
      [{ path: '/steps/0/kind', message: 'must be one of: open, close' }],
    ]);
  });

  test('a value of none of its types says what the union takes, each thing once', async () => {
    expect(await post({ steps: [5] })).toEqual([400, 'field "steps/0" must be an object', [{ path: '/steps/0', message: 'must be an object' }]]);
    expect(await post({ steps: [], when: 5 })).toEqual([
      400,
      'field "when" must be a date (YYYY-MM-DD) or null',
      [{ path: '/when', message: 'must be a date (YYYY-MM-DD) or null' }],
    ]);
    // Of the right type: the branch of that type says what is wrong.
    expect((await post({ steps: [], when: '05/01/2026' }))[2]).toEqual([{ path: '/when', message: 'must be a date (YYYY-MM-DD)' }]);
  });
});
