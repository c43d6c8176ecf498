/** WebSockets as the stream tests open them: open, what they were sent, and what closed them. */

export interface Close {
  code: number;
  reason: string;
}

export interface WatchedSocket<T = unknown> {
  ws: WebSocket;
  /** Every message, parsed as JSON, from the moment it opened. */
  received: T[];
  /** How it closed; null while open. */
  closed(): Close | null;
}

/**
 * Opens `url` (with request headers: a console cookie and Origin, as a browser sends them, or a
 * bearer token; Bun's WebSocket takes them, the DOM's constructor type knows only subprotocols)
 * and resolves once it is open, recording what it is sent and how it closes.
 */
export async function openSocket<T = unknown>(url: string, headers: Record<string, string> = {}): Promise<WatchedSocket<T>> {
  const options: Bun.WebSocketOptions = { headers };
  const ws: WebSocket = Reflect.construct(WebSocket, [url, options]);
  const received: T[] = [];
  let closed: Close | null = null;
  ws.onmessage = (event) => received.push(JSON.parse(String(event.data)) as T);
  ws.onclose = (event) => {
    closed = { code: event.code, reason: event.reason };
  };
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onerror = () => reject(new Error('the WebSocket did not open'));
  });
  return { ws, received, closed: () => closed };
}
