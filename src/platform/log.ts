/**
 * A small leveled logger writing one JSON line per entry. Callers pass structured fields;
 * template bytes, keys and tokens are never among them (see redact()). A line written while a
 * request is served carries its `request_id` (request-context.ts).
 */
import { currentRequestId } from './request-context';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** Field names whose values never reach a log line. */
const SECRET_FIELD = /^(template|tmp|content|key|token|secret|authorization|password|passwd|ciphertext)$/i;

export function redact(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) {
    out[name] = SECRET_FIELD.test(name) ? '[redacted]' : value instanceof Error ? value.message : value;
  }
  return out;
}

export function createLogger(level: string, sink: (line: string) => void = (l) => console.log(l)): Logger {
  const threshold = ORDER[(level as LogLevel) in ORDER ? (level as LogLevel) : 'info'];
  const write = (lvl: LogLevel, message: string, fields?: Record<string, unknown>) => {
    if (ORDER[lvl] < threshold) return;
    const requestId = currentRequestId();
    sink(
      JSON.stringify({
        time: new Date().toISOString(),
        level: lvl,
        msg: message,
        ...(requestId ? { request_id: requestId } : {}),
        ...(fields ? redact(fields) : {}),
      }),
    );
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
  };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
