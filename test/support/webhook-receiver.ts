/** A real webhook receiver on 127.0.0.1 and a polling wait, shared by the webhook tests. */

export interface ReceivedCall {
  /** The `webhook-id` header ('' when absent). */
  id: string;
  host: string | null;
  /** The request path (one receiver can stand for several endpoints). */
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** `answer` decides each response from the call number (1-based) and the call. */
export function receiver(answer: (n: number, call: ReceivedCall) => Response | Promise<Response> = () => new Response('ok')) {
  const calls: ReceivedCall[] = [];
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const headers: Record<string, string> = {};
      request.headers.forEach((value, name) => {
        headers[name] = value;
      });
      const call = {
        id: headers['webhook-id'] ?? '',
        host: request.headers.get('host'),
        path: new URL(request.url).pathname,
        headers,
        body: await request.text(),
      };
      calls.push(call);
      return answer(calls.length, call);
    },
  });
  return { port: server.port!, url: `http://127.0.0.1:${server.port}/hook`, calls, stop: () => server.stop(true) };
}

export async function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(20);
  }
}
