/**
 * Reads a request body stream up to a byte limit, for both the terminals' raw bodies and the
 * API's JSON bodies: a chunked body carries no length, so the cap is checked on what arrives.
 */
export async function readCapped(stream: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array | null> {
  const reader = stream.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      // Not awaited: the body of a request rebuilt from the one Bun received (routable-url.ts, a
      // short or missing Host) is fed from the original's stream, and its cancel settles only
      // once the read in progress there does: never, while the client holds back the rest of
      // its body for an answer, until Bun's idle timeout resets the connection with no answer.
      reader.cancel().catch(() => undefined);
      return null;
    }
    parts.push(value);
  }
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}
