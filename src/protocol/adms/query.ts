/**
 * Query-string handling. Parameter order varies by firmware, so parse properly; names are
 * case-sensitive except that `sn` is accepted for `SN` ([IPY] does the same).
 */

const ALIASES: Readonly<Record<string, readonly string[]>> = {
  SN: ['sn'],
};

const NO_ALIASES: readonly string[] = [];

/** A parameter by name, or by one of its aliases, from `read` (null or undefined: absent). */
function byNameOrAlias(name: string, read: (name: string) => string | null | undefined): string | null {
  const direct = read(name);
  if (direct != null) return direct;
  // Every poll asks for every name: the aliases without building a list each time.
  for (const alias of ALIASES[name] ?? NO_ALIASES) {
    const value = read(alias);
    if (value != null) return value;
  }
  return null;
}

export interface AdmsQuery {
  sn: string | null;
  /** `table=` with its case preserved: 2.x sends `ATTLOG`, 3.x sends `rtlog`/`tabledata`. */
  table: string | null;
  /** `options=all` on the handshake. */
  options: string | null;
  pushver: string | null;
  language: string | null;
  /** Raw `INFO=` value (already percent-decoded); see parseInfoParam. */
  info: string | null;
  /** `Stamp`, or `OpStamp` (MB360 OPERLOG), or `PhotoStamp` (legacy fdata). */
  stamp: string | null;
  pushOptionsFlag: string | null;
  pushCommKey: string | null;
  /** `type=` (3.x querydata, `type=time`, `PostVerifyData`, exchange). */
  type: string | null;
  /** 3.x `tablename=` for tabledata/querydata. */
  tableName: string | null;
  /** `PIN=` on legacy fdata photo posts and RemoteAtt. */
  pin: string | null;
  cmdId: string | null;
  /** `ContentType=tgz` data packs. */
  contentType: string | null;
}

function searchPart(url: string): string {
  const hash = url.indexOf('#');
  const noFragment = hash < 0 ? url : url.slice(0, hash);
  const q = noFragment.indexOf('?');
  if (q >= 0) return noFragment.slice(q + 1);
  // A bare path has no parameters; anything else is taken to be a query string itself.
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(noFragment) || noFragment.startsWith('/') ? '' : noFragment;
}

/** What URLSearchParams would decode: a percent sign, a plus (a space), anything beyond ASCII. */
const ENCODED_OR_WIDE = /[%+\u0080-\uffff]/;

/**
 * The parameters of a query string, the first value of each name, as URLSearchParams reads
 * them. A terminal's query is nearly always plain (`SN=…&table=ATTLOG&Stamp=…`): in ASCII,
 * with nothing percent-encoded and no `+`, reading it is only splitting it, done here by
 * hand (URLSearchParams was the largest part of an idle poll's own work). Anything else goes to
 * URLSearchParams. Both ways agree on any text (test/property/adms-protocol.property.test.ts).
 */
export function firstParams(search: string): Map<string, string> {
  const first = new Map<string, string>();
  if (ENCODED_OR_WIDE.test(search)) {
    for (const [name, value] of new URLSearchParams(search)) if (!first.has(name)) first.set(name, value);
    return first;
  }
  for (const pair of (search.startsWith('?') ? search.slice(1) : search).split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const name = equals < 0 ? pair : pair.slice(0, equals);
    if (!first.has(name)) first.set(name, equals < 0 ? '' : pair.slice(equals + 1));
  }
  return first;
}

function paramsOf(url: URL | string): Map<string, string> {
  return firstParams(typeof url === 'string' ? searchPart(url) : url.search);
}

function nonEmpty(value: string | null): string | null {
  const t = value?.trim() ?? '';
  return t === '' ? null : t;
}

/** Parse the query of any /iclock request. Accepts a URL, a full URL string, a path, or a bare query. */
export function parseQuery(url: URL | string): AdmsQuery {
  // The first of a repeated name wins, as with URLSearchParams.get.
  const first = paramsOf(url);
  const read = (n: string) => first.get(n);
  const get = (name: string): string | null => nonEmpty(byNameOrAlias(name, read));
  return {
    sn: get('SN'),
    table: get('table'),
    options: get('options'),
    pushver: get('pushver'),
    language: get('language'),
    info: get('INFO'),
    stamp: get('Stamp') ?? get('OpStamp') ?? get('PhotoStamp'),
    pushOptionsFlag: get('PushOptionsFlag'),
    pushCommKey: get('pushcommkey'),
    type: get('type'),
    tableName: get('tablename'),
    pin: get('PIN'),
    cmdId: get('cmdid'),
    contentType: get('ContentType'),
  };
}
