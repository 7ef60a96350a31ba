import { Type, type TObject, type TOptional, type TProperties, type TSchema } from '@sinclair/typebox';
import { isWritable, type FieldSpec, type FieldTable } from '@contracts/domain';
import { BoundedString, FreeFormObject, Int32, Int64, Nullable, StringEnum } from './common.schemas';

/**
 * Request and response schemas built from a resource's field table (@contracts/domain): a field
 * declared there is in the body it may be written by and in the answer, with the table's bounds
 * (through the bounded builders, so route-table.spec.ts holds them to the same rules).
 */

const described = (field: FieldSpec) => (field.description === undefined ? {} : { description: field.description });

/** The schema a request value must satisfy. */
function requestSchema(field: FieldSpec): TSchema {
  switch (field.kind) {
    case 'string':
      return BoundedString(field.maxLength, {
        ...(field.minLength !== undefined && { minLength: field.minLength }),
        ...(field.pattern !== undefined && { pattern: field.pattern }),
        ...described(field),
      });
    case 'int': {
      const bounds = { minimum: field.minimum, maximum: field.maximum, ...described(field) };
      return field.int32 ? Int32(bounds) : Int64(bounds);
    }
    case 'bool':
      return Type.Boolean({ ...(field.default !== undefined && { default: field.default }), ...described(field) });
    case 'enum':
      return StringEnum(field.values, described(field));
    case 'json':
      return FreeFormObject(field.maxBytes, field.description ?? '');
    case 'timestamp':
      throw new Error('A timestamp is set by the database, never by a request');
  }
}

/** The schema an answered value has. */
function responseSchema(field: FieldSpec): TSchema {
  const options = described(field);
  const schema =
    field.kind === 'int'
      ? Type.Integer(options)
      : field.kind === 'bool'
        ? Type.Boolean(options)
        : field.kind === 'json'
          ? Type.Object({}, { additionalProperties: true, ...options })
          : field.kind === 'timestamp'
            ? Type.String({ format: 'date-time', ...options })
            : Type.String(options);
  return field.nullable ? Nullable(schema) : schema;
}

type UpdateKeys<T> = { [K in keyof T & string]: T[K] extends { update: true } ? K : never }[keyof T & string];

/** The answer's object: every field not hidden, by its JSON name, nullable ones as `x | null`. */
export function fieldResponseSchema(table: FieldTable, options: { allOptional?: boolean; description?: string } = {}): TObject {
  const properties: TProperties = {};
  for (const [name, field] of Object.entries(table)) {
    if (field.hidden) continue;
    const schema = responseSchema(field);
    properties[field.json ?? name] = options.allOptional ? Type.Optional(schema) : schema;
  }
  return Type.Object(properties, {
    ...(options.allOptional && { additionalProperties: false }),
    ...(options.description !== undefined && { description: options.description }),
  });
}

/** A create body's properties: the fields writable on create, required ones required. */
export function fieldCreateProperties(table: FieldTable): TProperties {
  const properties: TProperties = {};
  for (const [name, field] of Object.entries(table)) {
    if (!isWritable(field, 'create')) continue;
    properties[field.json ?? name] = field.create === 'required' ? requestSchema(field) : Type.Optional(requestSchema(field));
  }
  return properties;
}

/** An update body's properties: the fields writable on update, each optional (absent ones stay as they are). */
export function fieldUpdateProperties<T extends FieldTable>(table: T): { [K in UpdateKeys<T>]: TOptional<TSchema> } {
  const properties: TProperties = {};
  for (const [name, field] of Object.entries(table)) {
    if (isWritable(field, 'update')) properties[field.json ?? name] = Type.Optional(requestSchema(field));
  }
  return properties as { [K in UpdateKeys<T>]: TOptional<TSchema> };
}
