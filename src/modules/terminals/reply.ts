/**
 * Replies to terminals: always plain text in the device's own dialect (never JSON, errors
 * included), always with a `Date` header in RFC 1123 GMT, because the terminal sets its clock
 * from it (docs/protocol/adms.md §1.1, §7).
 */
import { formatHttpDate } from '../../protocol/adms';

/** A refusal that becomes a plain-text reply with this status (403, 413, 400). */
export class AdmsRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'AdmsRefusal';
  }
}

export function plainText(body: string, status: number, now: number): Response {
  return new Response(body, {
    status,
    headers: { 'content-type': 'text/plain', date: formatHttpDate(new Date(now)) },
  });
}
