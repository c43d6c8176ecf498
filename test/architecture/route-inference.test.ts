/**
 * What every request pays for, checked: Elysia reads the source of each lifecycle hook to learn
 * which parts of a request the app's routes use, and parses those for every route of the app.
 * A hook that hands the whole context to a function (`(context) => f(context)`) counts as using
 * everything: every terminal poll then parsed its headers, cookies and query for nothing (a few
 * percent of an idle poll). Hooks name the parts they use (`context.body`, `{ request }`); a route
 * that needs more says so in its own handler, which counts for that route alone.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startTestServer, type TestServer } from '../support/harness';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('the app’s hooks', () => {
  test('no hook makes every route parse the headers, the cookies or the query', () => {
    const { inference } = server.app as unknown as { inference: Record<string, boolean> };
    expect({ headers: inference.headers, cookie: inference.cookie, query: inference.query }).toEqual({ headers: false, cookie: false, query: false });
  });
});
