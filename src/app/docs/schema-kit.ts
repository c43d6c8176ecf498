/** A few helpers that write JSON Schema (OpenAPI 3.1 dialect) tersely for the document. */
export type JsonSchema = { [key: string]: unknown };

export const str = (description?: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'string', ...(description ? { description } : {}), ...extra });
export const dateTime = (description?: string): JsonSchema => str(description, { format: 'date-time' });
export const uuid = (description?: string): JsonSchema => str(description, { format: 'uuid' });
export const int = (description?: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'integer', ...(description ? { description } : {}), ...extra });
export const bool = (description?: string): JsonSchema => ({ type: 'boolean', ...(description ? { description } : {}) });
export const arr = (items: JsonSchema, description?: string): JsonSchema => ({ type: 'array', items, ...(description ? { description } : {}) });
export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
export const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] });
export const freeObject = (description?: string): JsonSchema => ({ type: 'object', additionalProperties: true, ...(description ? { description } : {}) });
export const oneOfStrings = (values: readonly string[], description?: string): JsonSchema => str(description, { enum: [...values] });

/**
 * An object schema. Every property is required unless listed in `optional`: response shapes
 * always carry every field (null when empty), request bodies name their optional fields.
 */
export function obj(properties: Record<string, JsonSchema>, options: { optional?: string[]; description?: string; closed?: boolean } = {}): JsonSchema {
  const optional = new Set(options.optional ?? []);
  const required = Object.keys(properties).filter((k) => !optional.has(k));
  return {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    ...(options.closed ? { additionalProperties: false } : {}),
    ...(options.description ? { description: options.description } : {}),
  };
}

/** `{ results: [...], next_cursor }` of every administrator list (docs/api.md). */
export function page(item: JsonSchema): JsonSchema {
  return obj({ results: arr(item), next_cursor: nullable(str('Opaque cursor of the next page; null on the last page.')) });
}
