/**
 * The served OpenAPI document, read the way an outside client reads it: fetched from `docs/json`,
 * walked operation by operation, its schemas compiled by Ajv (JSON Schema 2020-12, the dialect of
 * OpenAPI 3.1, with formats) so answers can be checked against them.
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { adminToken, type TestServer } from './harness';

export const API = '/api/fingerprint/v1';

export type Schema = { [key: string]: unknown };

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  description?: string;
  schema: Schema;
}

export interface MediaType {
  schema: Schema;
  examples?: Record<string, { value: unknown }>;
}

export interface Response {
  description: string;
  headers?: Record<string, { schema: Schema }>;
  content?: Record<string, MediaType>;
}

export interface Operation {
  operationId: string;
  summary?: string;
  tags: string[];
  security?: Record<string, string[]>[];
  parameters?: Parameter[];
  requestBody?: { required: boolean; content: Record<string, MediaType> };
  responses: Record<string, Response>;
  'x-websocket'?: boolean;
}

export interface Document {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; securitySchemes: Record<string, Schema> };
}

export async function fetchDocument(server: TestServer): Promise<Document> {
  const res = await fetch(`${server.url}${API}/docs/json`, { headers: { authorization: `Bearer ${await adminToken()}` } });
  if (res.status !== 200) throw new Error(`docs/json answered ${res.status}`);
  return (await res.json()) as Document;
}

export interface DocumentedOperation {
  method: string;
  path: string;
  operation: Operation;
}

export function operationsOf(doc: Document): DocumentedOperation[] {
  return Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ method, path, operation })));
}

const REF = '#/components/schemas/';
const DEFS = 'fpa-openapi';

/** Compiles the document's schemas (with their `$ref`s into components) and checks values against them. */
export class SchemaCheck {
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly doc: Document) {
    // Not strict: OpenAPI documents carry keywords of their own (`x-…`, `examples`).
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: DEFS, $defs: this.rewrite(doc.components.schemas) });
  }

  private rewrite<T>(schema: T): T {
    return JSON.parse(JSON.stringify(schema).replaceAll(`"${REF}`, `"${DEFS}#/$defs/`)) as T;
  }

  /** Throws when the schema does not compile. */
  compile(schema: Schema): ValidateFunction {
    const key = JSON.stringify(schema);
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(this.rewrite(schema));
      this.compiled.set(key, validate);
    }
    return validate;
  }

  /** The problems of `value` against `schema`, none when it matches. */
  problems(schema: Schema, value: unknown): string[] {
    const validate = this.compile(schema);
    if (validate(value)) return [];
    return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'invalid'}`);
  }

  /** The schema a `$ref` points to (one level), or the schema itself. */
  resolve(schema: Schema): Schema {
    const ref = schema.$ref;
    if (typeof ref === 'string' && ref.startsWith(REF)) {
      const target = this.doc.components.schemas[ref.slice(REF.length)];
      if (!target) throw new Error(`unresolved ${ref}`);
      return this.resolve(target);
    }
    return schema;
  }
}

/** Every Schema Object of the document, with where it is. */
export function schemasOf(doc: Document): [string, Schema][] {
  const out: [string, Schema][] = Object.entries(doc.components.schemas).map(([name, s]) => [`components.schemas.${name}`, s]);
  for (const { method, path, operation } of operationsOf(doc)) {
    for (const p of operation.parameters ?? []) out.push([`${method} ${path} parameter ${p.name}`, p.schema]);
    for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) out.push([`${method} ${path} body ${type}`, media.schema]);
    for (const [status, response] of Object.entries(operation.responses)) {
      for (const [type, media] of Object.entries(response.content ?? {})) out.push([`${method} ${path} ${status} ${type}`, media.schema]);
      for (const [name, header] of Object.entries(response.headers ?? {})) out.push([`${method} ${path} ${status} header ${name}`, header.schema]);
    }
  }
  return out;
}
