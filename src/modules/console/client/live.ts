/**
 * Following the punch stream without a gap. A page reads the newest punch's sequence BEFORE it
 * reads its data (`punchHead`), then opens the stream after that sequence (`followPunches`):
 * a punch stored between the page's read and the socket's opening is replayed, not missed (at
 * worst it is counted in the data and replayed too, which a redraw absorbs). A reconnection
 * resumes after the last punch received (or after the server's head, when the database went back
 * to an older copy). The WebSocket authenticates with the session cookie.
 */

import type { PunchView } from '../../punches';
import { API, api, type List } from './api';

/** The newest stored punch's sequence now (0 when there is none). */
export async function punchHead(): Promise<number> {
  const newest = await api.get<List<PunchView>>('punches/?limit=1');
  return newest.results[0]?.sequence ?? 0;
}

export interface LiveOptions {
  onPunch(punch: PunchView): void;
  /** Connected, reconnecting: for a status line. */
  onState?(state: 'live' | 'reconnecting'): void;
}

/** Opens the punch stream after `after`; returns the cleanup (close it, stop reconnecting). */
export function followPunches(after: number, options: LiveOptions): () => void {
  let last = after;
  let socket: WebSocket | null = null;
  let closed = false;
  let retry: ReturnType<typeof setTimeout> | undefined;
  const connect = () => {
    const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${API}/punches/stream/?after=${last}`;
    socket = new WebSocket(url);
    socket.addEventListener('open', () => options.onState?.('live'));
    socket.addEventListener('message', (event) => {
      const punch = JSON.parse(String(event.data)) as PunchView;
      if (punch.sequence <= last) return;
      last = punch.sequence;
      options.onPunch(punch);
    });
    socket.addEventListener('close', (event) => {
      if (closed) return;
      // 4409: `last` is beyond every sequence handed out (the database was restored from an
      // older copy); the server's head is in the reason, and the punches after it are new.
      const head = event.code === 4409 ? /last_sequence=(\d+)/.exec(event.reason)?.[1] : undefined;
      if (head !== undefined) last = Number(head);
      options.onState?.('reconnecting');
      retry = setTimeout(connect, 3000);
    });
  };
  connect();
  return () => {
    closed = true;
    clearTimeout(retry);
    socket?.close();
  };
}
