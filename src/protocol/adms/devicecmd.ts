import { createDict, type Dict, parseIntStrict, splitPair } from './fields';
import type { LineError } from './types';

/**
 * One command result from `POST /iclock/devicecmd` (§5.4). Match it to the queued command by `id`
 * only: `cmd` merely names the family (`DATA` for every DATA UPDATE/DELETE/QUERY).
 */
export interface CommandResult {
  /** Echoed command ID; alphanumeric (`info8487`), never assumed numeric. */
  id: string;
  /** Return code; null when missing or garbled. */
  returnCode: number | null;
  cmd: string;
  /** Every other key: `SN`, `AttLogSum`, `FILENAME`, and the Key=Value lines of an INFO reply. */
  fields: Dict;
  /** Shell/GetFile output: everything after `Content=` up to the next result. */
  content?: string;
}

export interface DeviceCmdParse {
  results: CommandResult[];
  errors: LineError[];
}

interface OpenResult {
  result: CommandResult;
  returnSeen: boolean;
  cmdSeen: boolean;
}

/** A line that starts a result: `ID=x&Return=…` on one line, or `ID=x` alone (multi-line form). */
const RESULT_START = /^ID=/i;

function setField(open: OpenResult, key: string, value: string): void {
  const k = key.toLowerCase();
  if (k === 'return' && !open.returnSeen) {
    open.returnSeen = true;
    open.result.returnCode = parseIntStrict(value);
  } else if (k === 'cmd' && !open.cmdSeen) {
    open.cmdSeen = true;
    open.result.cmd = value.trim();
  } else if (k === 'content' && open.result.content === undefined) {
    open.result.content = value;
  } else if (key !== '' && !(key in open.result.fields)) {
    open.result.fields[key] = value;
  }
}

function startResult(line: string): OpenResult | string {
  const pairs = line
    .split('&')
    .filter((p) => p !== '')
    .map(splitPair);
  const id = (pairs[0]?.[1] ?? '').trim();
  if (id === '') return 'result without an ID';
  const open: OpenResult = { result: { id, returnCode: null, cmd: '', fields: createDict() }, returnSeen: false, cmdSeen: false };
  for (const [key, value] of pairs.slice(1)) setField(open, key, value);
  return open;
}

/**
 * Parse a devicecmd body. Supports several one-line results per body, the multi-line form
 * (`ID=32\nReturn=0\nCMD=Shell\nContent=…`) and INFO replies whose following `Key=Value` lines go
 * into `fields`. `Content=` is greedy: it runs, line breaks included, until the next `ID=` line,
 * because shell output spans lines. (GetFile content is binary and must be parsed on bytes instead.)
 */
export function parseDeviceCmdBody(text: string): DeviceCmdParse {
  const results: CommandResult[] = [];
  const errors: LineError[] = [];
  const lines = text.split('\n');
  // The body's final LF terminates the last line; it does not start an empty one.
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  let open: OpenResult | null = null;
  let contentLines: string[] | null = null;

  const close = (): void => {
    if (open && contentLines) open.result.content = contentLines.join('\n');
    if (open) results.push(open.result);
    open = null;
    contentLines = null;
  };

  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] ?? '').replace(/\r$/, '');
    const lineNo = i + 1;
    if (RESULT_START.test(line)) {
      close();
      const started = startResult(line);
      if (typeof started === 'string') errors.push({ line: lineNo, raw: line, reason: started });
      else open = started;
      continue;
    }
    if (contentLines) {
      contentLines.push(line);
      continue;
    }
    if (line.trim() === '') continue;
    if (!open) {
      errors.push({ line: lineNo, raw: line, reason: 'line outside of a command result (expected ID=…)' });
      continue;
    }
    const eq = line.indexOf('=');
    if (eq <= 0) {
      errors.push({ line: lineNo, raw: line, reason: 'expected Key=Value inside a command result' });
      continue;
    }
    const [key, value] = splitPair(line);
    if (key.toLowerCase() === 'content' && open.result.content === undefined) {
      contentLines = [value];
      continue;
    }
    setField(open, key, value);
  }
  close();
  return { results, errors };
}

/**
 * Whether a body is command results (`ID=…&Return=…&CMD=…` lines): some firmware (a U300-C
 * rebrand) posts them to `cdata` without a `table` parameter instead of to `devicecmd`. The
 * first line that is not blank decides.
 */
export function isCommandResultBody(text: string): boolean {
  const first = text.split('\n').find((line) => line.trim() !== '');
  return first !== undefined && RESULT_START.test(first.trim());
}

/** Serialise a result as a one-line device reply (simulators, round-trip tests). */
export function formatDeviceCmdResult(r: Pick<CommandResult, 'id' | 'returnCode' | 'cmd'> & { fields?: Readonly<Record<string, string>> }): string {
  const extra = Object.entries(r.fields ?? {}).map(([k, v]) => `&${k}=${v}`);
  return `ID=${r.id}&Return=${r.returnCode ?? ''}&CMD=${r.cmd}${extra.join('')}`;
}
