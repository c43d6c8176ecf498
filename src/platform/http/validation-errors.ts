/**
 * A request refused by its route's model, in words a caller can act on: each error names the
 * property or parameter (`path`) and says what it takes. TypeBox's own messages say that well
 * for a string too long or a property missing, but of a union only "Expected union value", often
 * with an empty path (a command's body, `{"kind":"clear_logs"}` without its `confirm`). A union's
 * ValueError carries its schema and the errors of each of its branches, so here:
 * - a union of literals (OneOf, nullable or not) lists them: *must be one of: oldest, newest*;
 * - a query parameter's integer or boolean (Elysia's text-or-value unions) says what it takes:
 *   *must be a whole number from 1 to 1000*, *must be true or false*;
 * - a union of objects told apart by one literal property (the commands' `kind`) takes the
 *   branch that property names and reports its errors (*field "confirm" is required for
 *   clear_logs*), or says which values that property takes;
 * - any other union reports the one branch of the value's JSON type, or what the branches are;
 * - a string's pattern or format says what it stands for where the schema names it (SAID_AS in
 *   ./model.ts): *must be an e-mail address*.
 * Elysia's summary is never used: it quotes the value sent, which may be template base64.
 */
import { Kind } from '@sinclair/typebox';
import { ValueErrorType } from '@sinclair/typebox/errors';
import { QUERY_PARAMETER, SAID_AS } from './model';

/** One refused value: where (a JSON Pointer) and why. */
interface FieldError {
  path: string;
  message: string;
}

/** The part of TypeBox's ValueError read here (Elysia hands them on with a `summary` added). */
interface ValueErrorLike {
  type?: unknown;
  schema?: unknown;
  path?: unknown;
  value?: unknown;
  message?: unknown;
  /** A union's: the errors of each branch, in the order of `anyOf`. */
  errors?: unknown;
}

/** Errors of the request and, when a branch of a union was chosen by its literal property, which (`clear_logs`). */
interface ReadableErrors {
  errors: FieldError[];
  branch?: string;
}

/** What a missing parameter or property is told, as the console's forms say it ("This is required."). */
const REQUIRED = 'required';
/** What an error says of a query parameter the route does not take (NoOtherParameters in ./model.ts). */
const UNKNOWN_PARAMETER = 'Unknown parameter';
/** How many errors of one branch of a union are read. */
const BRANCH_ERRORS = 20;

type Schema = Record<string | symbol, unknown>;

const isSchema = (value: unknown): value is Schema => typeof value === 'object' && value !== null;
const kindOf = (schema: Schema): unknown => schema[Kind];
const branchesOf = (schema: Schema): Schema[] => (Array.isArray(schema.anyOf) ? schema.anyOf.filter(isSchema) : []);

/** A caller's text, as an error repeats it: at most 100 characters. */
const bounded = (text: string) => (text.length > 100 ? `${text.slice(0, 100)}…` : text);

/**
 * TypeBox says `Never` for a property an object does not name (NoOtherProperties in
 * ./model.ts): of a body, an unknown property; of a query, an unknown parameter.
 */
function messageOf(message: unknown, where: string | undefined): string {
  if (typeof message !== 'string') return 'invalid';
  if (message !== 'Never') return message.slice(0, 200);
  return where === 'query' ? UNKNOWN_PARAMETER : 'Unknown property';
}

/** `a whole number from 1 to 1000`, `… of at least 1`, or just `a whole number`. */
function wholeNumber(schema: Schema): string {
  const min = typeof schema.minimum === 'number' ? schema.minimum : undefined;
  const max = typeof schema.maximum === 'number' ? schema.maximum : undefined;
  if (min !== undefined && max !== undefined) return `a whole number from ${min} to ${max}`;
  if (min !== undefined) return `a whole number of at least ${min}`;
  return max === undefined ? 'a whole number' : `a whole number of at most ${max}`;
}

/** Every value of a union made only of literals (and null), flattened; null when it has other kinds. */
function literalsOf(schema: Schema): unknown[] | null {
  if (kindOf(schema) === 'Literal') return [schema.const];
  if (kindOf(schema) === 'Null') return [null];
  if (kindOf(schema) !== 'Union') return null;
  const out: unknown[] = [];
  for (const branch of branchesOf(schema)) {
    const values = literalsOf(branch);
    if (!values) return null;
    out.push(...values);
  }
  return out;
}

const oneOf = (values: readonly unknown[]) => `must be one of: ${values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ')}`;

/** Elysia's text-or-value union of a query parameter (`t.Integer`, `t.Boolean`): the format of its text branch. */
function coercedFormat(schema: Schema): string | null {
  const text = branchesOf(schema).find((b) => kindOf(b) === 'String' && typeof b.format === 'string');
  return text && branchesOf(schema).length === 2 ? String(text.format) : null;
}

/** The JSON type of a value, as a schema's kind is matched against it. */
function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

const KIND_TYPES: Record<string, readonly string[]> = {
  Null: ['null'],
  String: ['string'],
  Integer: ['integer'],
  Number: ['integer', 'number'],
  Boolean: ['boolean'],
  Array: ['array'],
  Tuple: ['array'],
  Object: ['object'],
  Record: ['object'],
};

/** Whether a schema could take a value of this JSON type (its checks aside). */
function takesType(schema: Schema, type: string): boolean {
  const kind = String(kindOf(schema));
  if (kind === 'Literal') return jsonType(schema.const) === type || (type === 'integer' && typeof schema.const === 'number');
  if (kind === 'Union') return branchesOf(schema).some((b) => takesType(b, type));
  if (kind === 'Unknown' || kind === 'Any') return true;
  return KIND_TYPES[kind]?.includes(type) ?? false;
}

/** What a schema takes, in a few words, for a value of none of a union's types. */
function described(schema: Schema): string {
  const kind = kindOf(schema);
  if (typeof schema[SAID_AS] === 'string') return schema[SAID_AS];
  if (kind === 'Literal') return JSON.stringify(schema.const);
  if (kind === 'Union') return [...new Set(branchesOf(schema).map(described))].join(' or ');
  if (kind === 'Integer') return wholeNumber(schema);
  const words: Record<string, string> = { Null: 'null', String: 'text', Number: 'a number', Boolean: 'true or false', Array: 'a list', Object: 'an object' };
  return words[String(kind)] ?? 'another value';
}

/** The property every branch (an object) names with a literal: the union's discriminator (`kind`). */
function discriminatorOf(branches: readonly Schema[]): string | null {
  if (branches.length < 2 || !branches.every((b) => kindOf(b) === 'Object' && isSchema(b.properties))) return null;
  const first = branches[0]!.properties as Schema;
  return (
    Object.keys(first).find((key) =>
      branches.every((b) => {
        const property = (b.properties as Schema)[key];
        return isSchema(property) && kindOf(property) === 'Literal';
      }),
    ) ?? null
  );
}

const isIterable = (value: unknown): value is Iterable<unknown> =>
  typeof value === 'object' && value !== null && Symbol.iterator in value && typeof value[Symbol.iterator] === 'function';

/** The errors of branch `index` of a union's error, as ValueErrors. */
function branchErrors(error: ValueErrorLike, index: number): ValueErrorLike[] {
  const all = Array.isArray(error.errors) ? error.errors : [];
  const iterator: unknown = all[index];
  const out: ValueErrorLike[] = [];
  if (!isIterable(iterator)) return out;
  for (const item of iterator) {
    if (isSchema(item)) out.push(item);
    if (out.length >= BRANCH_ERRORS) break;
  }
  return out;
}

/** The errors of a union of objects told apart by `key`: those of the branch the value names, or what `key` takes. */
function fromTaggedUnion(error: ValueErrorLike, branches: readonly Schema[], key: string, where: string | undefined): ReadableErrors {
  const path = `${String(error.path ?? '')}/${key}`;
  const values = branches.map((b) => ((b.properties as Schema)[key] as Schema).const);
  const tag = isSchema(error.value) ? error.value[key] : undefined;
  if (tag === undefined) return { errors: [{ path, message: REQUIRED }] };
  const index = values.indexOf(tag);
  if (index < 0) return { errors: [{ path, message: oneOf(values) }] };
  return { errors: branchErrors(error, index).flatMap((e) => readable(e, where).errors), branch: String(tag) };
}

/** A union's error in words: see the file's comment for each kind of union. */
function fromUnion(error: ValueErrorLike, schema: Schema, where: string | undefined): ReadableErrors {
  const path = String(error.path ?? '');
  const literals = literalsOf(schema);
  if (literals) return { errors: [{ path, message: oneOf(literals) }] };
  const format = coercedFormat(schema);
  if (format === 'integer') return { errors: [{ path, message: `must be ${wholeNumber(schema)}` }] };
  if (format === 'boolean') return { errors: [{ path, message: 'must be true or false' }] };
  const branches = branchesOf(schema);
  const key = discriminatorOf(branches);
  if (key !== null && isSchema(error.value) && !Array.isArray(error.value)) return fromTaggedUnion(error, branches, key, where);
  const type = jsonType(error.value);
  const matching = branches.flatMap((b, i) => (takesType(b, type) ? [i] : []));
  if (matching.length === 1) return { errors: branchErrors(error, matching[0]!).flatMap((e) => readable(e, where).errors) };
  return { errors: [{ path, message: `must be ${described(schema)}` }] };
}

const INTEGER_ERRORS = new Set<unknown>([
  ValueErrorType.Integer,
  ValueErrorType.IntegerMinimum,
  ValueErrorType.IntegerMaximum,
  ValueErrorType.IntegerExclusiveMinimum,
  ValueErrorType.IntegerExclusiveMaximum,
]);
const SHAPE_OF_TEXT_ERRORS = new Set<unknown>([ValueErrorType.StringPattern, ValueErrorType.StringFormat]);

/** One of TypeBox's errors in words: `required` when nothing was given there (a query or body never holds `undefined`). */
function readable(error: ValueErrorLike, where: string | undefined): ReadableErrors {
  const path = bounded(String(error.path ?? ''));
  if (error.value === undefined) return { errors: [{ path, message: REQUIRED }] };
  const schema = isSchema(error.schema) ? error.schema : {};
  if (error.type === ValueErrorType.Union) return fromUnion({ ...error, path }, schema, where);
  if (INTEGER_ERRORS.has(error.type) && kindOf(schema) === 'Integer') return { errors: [{ path, message: `must be ${wholeNumber(schema)}` }] };
  if (SHAPE_OF_TEXT_ERRORS.has(error.type) && typeof schema[SAID_AS] === 'string') return { errors: [{ path, message: `must be ${schema[SAID_AS]}` }] };
  return { errors: [{ path, message: messageOf(error.message, where) }] };
}

/** A missing property is said once: TypeBox adds what its type would have been ("Expected string"). */
function withoutRepeats(errors: readonly FieldError[]): FieldError[] {
  const missing = new Set(errors.filter((x) => x.message === REQUIRED).map((x) => x.path));
  return errors
    .filter((x) => x.message === REQUIRED || !missing.has(x.path))
    .filter((x, i, all) => all.findIndex((y) => y.path === x.path && y.message === x.message) === i);
}

/** The errors of a refused request (`all` of Elysia's ValidationError), at most `max`, in words. */
function readableErrors(all: readonly unknown[], where: string | undefined, max = 10): ReadableErrors {
  let branch: string | undefined;
  const errors: FieldError[] = [];
  for (const error of all.slice(0, max)) {
    if (!isSchema(error)) continue;
    const read = readable(error, where);
    errors.push(...read.errors);
    branch ??= read.branch;
  }
  return { errors: withoutRepeats(errors).slice(0, max), ...(branch === undefined ? {} : { branch }) };
}

/** Whether the schema of a query parameter's range check names the parameter (QueryInt in ./model.ts): its name. */
function queryParameterOf(validator: unknown): string | undefined {
  if (!isSchema(validator)) return undefined;
  const named = validator[QUERY_PARAMETER];
  return typeof named === 'string' ? named : undefined;
}

/** The words of a refused shape: the general ones unless every error says what to do (`required`, `must …`). */
const GENERAL = 'the request does not match the expected shape';

/** A pointer's name as a message quotes it: a JSON string (a name may be empty, or hold a space or a line break). */
const nameOf = (path: string) => JSON.stringify(path.slice(1).replaceAll('~1', '/').replaceAll('~0', '~'));

/**
 * The message of a refused shape: for parameters the route does not take, which ones and what it
 * takes (a clerk reads it in the console: `unknown query parameter "employee"; this route takes
 * from, to, area, bom`); what is missing or wrong when each error says it in words (`query
 * parameter "order" must be one of: oldest, newest`, `field "confirm" is required for
 * clear_logs`); else the general words (`details` say the rest).
 */
function summaryOf(errors: readonly FieldError[], where: unknown, parameters: readonly string[] | undefined, branch: string | undefined): string {
  const unknown = errors.filter((x) => x.message === UNKNOWN_PARAMETER).map((x) => nameOf(x.path));
  if (unknown.length > 0) {
    const takes = parameters && parameters.length > 0 ? `this route takes ${parameters.join(', ')}` : 'this route takes none';
    return `unknown query parameter${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; ${takes}`;
  }
  if (errors.length === 1 && errors[0]!.path === '' && errors[0]!.message === REQUIRED && where === 'body') return 'a JSON body is required';
  if (errors.length === 0 || errors.some((x) => x.path === '' || (x.message !== REQUIRED && !x.message.startsWith('must ')))) return GENERAL;
  const what = where === 'query' ? 'query parameter' : 'field';
  const missing = errors.filter((x) => x.message === REQUIRED).map((x) => nameOf(x.path));
  const said = [
    ...(missing.length > 0 ? [`${what}${missing.length > 1 ? 's' : ''} ${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} required`] : []),
    ...errors.filter((x) => x.message !== REQUIRED).map((x) => `${what} ${nameOf(x.path)} ${x.message}`),
  ];
  if (branch === undefined) return said.join('; ');
  return said.length === 1 ? `${said[0]} for ${branch}` : `for ${branch}: ${said.join('; ')}`;
}

/** The part of Elysia's ValidationError read here. */
interface ValidationErrorLike {
  all?: unknown;
  type?: unknown;
  validator?: unknown;
}

/**
 * The details (`{ in, errors, parameters? }`) and the message of a request its route's model
 * refused (Elysia's ValidationError; `in: "response"` for an answer that broke its own schema).
 */
export function refusedShape(error: unknown): { details: Record<string, unknown>; message: string } {
  const e: ValidationErrorLike = isSchema(error) ? error : {};
  const where = typeof e.type === 'string' ? e.type : undefined;
  const { errors, branch } = readableErrors(Array.isArray(e.all) ? e.all : [], where);
  // A query integer's range is checked on the number alone ("property", no path): its schema
  // names the parameter (QueryInt in ./model.ts), so the error says which one, as for the others.
  const parameter = where === 'property' ? queryParameterOf(e.validator) : undefined;
  if (parameter !== undefined) {
    const named = errors.map((x) => ({ ...x, path: `/${parameter}${x.path}` }));
    return { details: { in: 'query', errors: named }, message: summaryOf(named, 'query', undefined, undefined) };
  }
  if (where === 'query' && errors.some((x) => x.message === UNKNOWN_PARAMETER)) {
    // The parameters the route does take, so the caller sees at once what it meant.
    const schema = isSchema(e.validator) && isSchema(e.validator.schema) ? e.validator.schema : {};
    const parameters = isSchema(schema.properties) ? Object.keys(schema.properties) : [];
    return { details: { in: 'query', errors, parameters }, message: summaryOf(errors, where, parameters, undefined) };
  }
  return { details: { in: where ?? 'body', errors }, message: summaryOf(errors, where ?? 'body', undefined, branch) };
}
