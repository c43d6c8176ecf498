/** WebSockets as the stream tests open them: open, and what closed them. */

export interface Close {
  code: number;
  reason: string;
}

export interface WatchedSocket {
  ws: WebSocket;
  /** How it closed; null while open. */
  closed(): Close | null;
}

/**
 * Opens `url` (with request headers: a console cookie and Origin, as a browser sends them; Bun's
 * WebSocket takes them, the DOM's constructor type knows only subprotocols) and resolves once it
 * is open, recording how it closes.
 */
export async function openSocket(url: string, headers: Record<string, string> = {}): Promise<WatchedSocket> {
  const options: Bun.WebSocketOptions = { headers };
  const ws: WebSocket = Reflect.construct(WebSocket, [url, options]);
  let closed: Close | null = null;
  ws.onclose = (event) => {
    closed = { code: event.code, reason: event.reason };
  };
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onerror = () => reject(new Error('the WebSocket did not open'));
  });
  return { ws, closed: () => closed };
}
