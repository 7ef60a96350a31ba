/**
 * Field tables: a resource's fields declared once, and every layer derived from the declaration.
 * The key of an entry is the field's name in the record, in the proto message (ts-proto's
 * camelCase of the snake_case field) and, unless `json` says otherwise, in the gateway's JSON.
 * The gateway builds its request and response schemas from the table, the service its column
 * list, row mapping, insert/update columns and field checks, and the gRPC handlers map records
 * to messages and back with the generic functions below. Adding a field is then an entry here,
 * the proto field(s) and the migration (docs/architecture.md, "Adding a field").
 */

interface FieldBase {
  /** The SQL column; absent for a field that is not a column of its own (e.g. a member of a JSON column). */
  readonly column?: string;
  /** The gateway's JSON name, where the API spells the field differently from the record. */
  readonly json?: string;
  /** Null in the record when unset; absent (proto `optional`) in the message; null in JSON. */
  readonly nullable?: boolean;
  /** Settable on create: `required`, or `optional` (then `default` applies, or null when nullable). */
  readonly create?: 'required' | 'optional';
  /** Settable on update (an update names the fields it changes; proto `optional`). */
  readonly update?: boolean;
  /** Kept off the gateway's answers (e.g. the owning account, which the path names). */
  readonly hidden?: boolean;
  readonly description?: string;
}

/** Free text; `trim` stores it trimmed and, with minLength, refuses a blank one. */
export interface StringField extends FieldBase {
  readonly kind: 'string';
  readonly maxLength: number;
  readonly minLength?: number;
  readonly pattern?: string;
  readonly trim?: boolean;
}

/** An integer carried as a JS number (proto int64 unless `int32`). */
export interface IntField extends FieldBase {
  readonly kind: 'int';
  readonly minimum?: number;
  readonly maximum?: number;
  readonly int32?: boolean;
}

export interface BoolField extends FieldBase {
  readonly kind: 'bool';
  readonly default?: boolean;
}

/** One of a closed set of strings (a string in proto; checked by the gateway and the service). */
export interface EnumField extends FieldBase {
  readonly kind: 'enum';
  readonly values: readonly string[];
}

/** A free-form JSON object: JSON text in the column and in the proto message, an object in JSON. */
export interface JsonField extends FieldBase {
  readonly kind: 'json';
  readonly maxBytes: number;
}

/** Set by the database: a Date in the record, an ISO 8601 string in the message and in JSON. */
export interface TimestampField extends FieldBase {
  readonly kind: 'timestamp';
}

export type FieldSpec = StringField | IntField | BoolField | EnumField | JsonField | TimestampField;
export type FieldTable = Readonly<Record<string, FieldSpec>>;

/** Declares a table, keeping its literal types (the record and message types are derived from them). */
export const defineFields = <const T extends FieldTable>(table: T): T => table;

type BaseValue<F> = F extends { kind: 'string' }
  ? string
  : F extends { kind: 'int' }
    ? number
    : F extends { kind: 'bool' }
      ? boolean
      : F extends { kind: 'enum'; values: readonly (infer V)[] }
        ? V
        : F extends { kind: 'json' }
          ? Record<string, unknown>
          : F extends { kind: 'timestamp' }
            ? Date
            : never;
type OrNull<F, V> = F extends { nullable: true } ? V | null : V;
type KeysWhere<T, Condition> = { [K in keyof T]: T[K] extends Condition ? K : never }[keyof T];
type Flatten<T> = { [K in keyof T]: T[K] };

/** The record the service reads and returns. */
export type FieldRecord<T extends FieldTable> = Flatten<{ -readonly [K in keyof T]: OrNull<T[K], BaseValue<T[K]>> }>;

/** What a caller may send: an enum arrives as a plain string (the service checks it). */
type InputValue<F> = F extends { kind: 'enum' } ? string : F extends { kind: 'json' } ? Record<string, unknown> : BaseValue<F>;

type CreateKeysGiven<T> = KeysWhere<T, { create: 'required' } | { create: 'optional'; default: unknown }>;

/** A create request's fields: required ones and ones with a default are always there, other optional ones may be absent. */
export type FieldCreateInput<T extends FieldTable> = Flatten<
  { -readonly [K in CreateKeysGiven<T>]: InputValue<T[K]> } & {
    -readonly [K in Exclude<KeysWhere<T, { create: 'optional' }>, CreateKeysGiven<T>>]?: InputValue<T[K]>;
  }
>;

/** An update request's fields: the ones left undefined stay as they are. */
export type FieldUpdateInput<T extends FieldTable> = Flatten<{ -readonly [K in KeysWhere<T, { update: true }>]?: InputValue<T[K]> }>;

/** The values a create stores: every create field, defaults applied. */
export type FieldCreateValues<T extends FieldTable> = Flatten<{
  -readonly [K in KeysWhere<T, { create: 'required' | 'optional' }>]: OrNull<T[K], BaseValue<T[K]>>;
}>;

/** The values an update stores. */
export type FieldChanges<T extends FieldTable> = Flatten<{ -readonly [K in KeysWhere<T, { update: true }>]?: BaseValue<T[K]> }>;

type MessageValue<F> = F extends { kind: 'timestamp' } | { kind: 'json' } | { kind: 'enum' } ? string : BaseValue<F>;

/** The proto message ts-proto generates for the table: nullable fields are proto `optional`. */
export type FieldMessage<T extends FieldTable> = Flatten<
  { -readonly [K in Exclude<keyof T, KeysWhere<T, { nullable: true }>>]: MessageValue<T[K]> } & {
    -readonly [K in KeysWhere<T, { nullable: true }>]?: MessageValue<T[K]>;
  }
>;

const entries = (table: FieldTable): [string, FieldSpec][] => Object.entries(table);

/** A record as its proto message: timestamps as ISO strings, JSON as text, null as absent. */
export function toFieldMessage<T extends FieldTable>(table: T, record: FieldRecord<T>): FieldMessage<T> {
  const values = record as Record<string, unknown>;
  const message: Record<string, unknown> = {};
  for (const [name, field] of entries(table)) {
    const value = values[name];
    if (value === null || value === undefined) continue;
    if (field.kind === 'timestamp') message[name] = (value as Date).toISOString();
    else if (field.kind === 'json') message[name] = JSON.stringify(value);
    else message[name] = value;
  }
  return message as FieldMessage<T>;
}

/** A message as the gateway answers it: JSON names, absent nullable fields as null, hidden ones left out. */
export function toFieldJson<T extends FieldTable>(table: T, message: FieldMessage<T>): Record<string, unknown> {
  const values = message as Record<string, unknown>;
  const json: Record<string, unknown> = {};
  for (const [name, field] of entries(table)) {
    if (field.hidden) continue;
    const value = values[name];
    if (value === undefined || value === null) json[field.json ?? name] = field.nullable ? null : value;
    else json[field.json ?? name] = field.kind === 'json' ? JSON.parse(value as string) : value;
  }
  return json;
}

/** The fields a create or an update takes, picked from a request (a message, or a JSON body by JSON name); defaults filled in on create. */
export function pickFieldInput<T extends FieldTable>(table: T, op: 'create', source: object): FieldCreateInput<T>;
export function pickFieldInput<T extends FieldTable>(table: T, op: 'update', source: object): FieldUpdateInput<T>;
export function pickFieldInput(table: FieldTable, op: 'create' | 'update', source: object): Record<string, unknown> {
  const values = source as Record<string, unknown>;
  const input: Record<string, unknown> = {};
  for (const [name, field] of entries(table)) {
    if (!isWritable(field, op)) continue;
    const value = values[field.json ?? name] ?? values[name];
    if (value !== undefined) input[name] = value;
    else if (op === 'create' && field.kind === 'bool' && field.default !== undefined) input[name] = field.default;
  }
  return input;
}

export const isWritable = (field: FieldSpec, op: 'create' | 'update'): boolean => (op === 'create' ? field.create !== undefined : field.update === true);

/** The names of a table's fields of one kind (e.g. the boolean params), in declaration order. */
export const fieldNamesOfKind = <T extends FieldTable>(table: T, kind: FieldSpec['kind']): (keyof T & string)[] =>
  entries(table)
    .filter(([, field]) => field.kind === kind)
    .map(([name]) => name);

const stored = (field: FieldSpec, value: unknown): unknown => (field.kind === 'string' && field.trim && typeof value === 'string' ? value.trim() : value);

/** What a checked create stores: strings trimmed where the table says so, defaults (or null) for absent optional fields. */
export function fieldCreateValues<T extends FieldTable>(table: T, input: FieldCreateInput<T>): FieldCreateValues<T> {
  const given = input as Record<string, unknown>;
  const values: Record<string, unknown> = {};
  for (const [name, field] of entries(table)) {
    if (!isWritable(field, 'create')) continue;
    const value = given[name];
    if (value !== undefined) values[name] = stored(field, value);
    else if (field.kind === 'bool' && field.default !== undefined) values[name] = field.default;
    else values[name] = null;
  }
  return values as FieldCreateValues<T>;
}

/** What a checked update stores: the fields given (strings trimmed where the table says so). */
export function fieldChanges<T extends FieldTable>(table: T, input: FieldUpdateInput<T>): FieldChanges<T> {
  const given = input as Record<string, unknown>;
  const changes: Record<string, unknown> = {};
  for (const [name, field] of entries(table)) {
    if (isWritable(field, 'update') && given[name] !== undefined) changes[name] = stored(field, given[name]);
  }
  return changes as FieldChanges<T>;
}
