import Ajv, { AnySchemaObject, ErrorObject, ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { TObject, TSchema } from '@sinclair/typebox';
import { exceedsDepth, SCHEMA_KEYWORD_RULES } from '@contracts/domain';
import { FieldError } from '@platform/errors';

/**
 * Bodies are validated as sent (no coercion: "1" is not an integer in JSON); path and query values
 * arrive as strings, so their validator coerces before checking, after a check of its own that an
 * integer is spelled as a plain decimal literal ("1e3", "0x10" and " 7" are refused, not read).
 */
// verbose: an error carries the schema it broke, whose description says what a pattern means (describe).
const bodyAjv = withFreeFormKeywords(addFormats(new Ajv({ allErrors: true, strict: false, verbose: true })));
const parameterAjv = withFreeFormKeywords(addFormats(new Ajv({ allErrors: true, strict: false, verbose: true, coerceTypes: true, useDefaults: true })));

export type Location = 'body' | 'path' | 'query';

export interface CompiledValidator {
  /** Mutates `value` in place (coercion, defaults) and returns the field errors, empty when valid. */
  (value: unknown): FieldError[];
}

/** Deepest nesting the size check will serialize; beyond it the depth check has already refused. */
const SERIALIZABLE_DEPTH = 256;

/** `x-maxDepth` and `x-maxBytes` bound the free-form objects that common.schemas.ts builds. */
function withFreeFormKeywords(ajv: Ajv): Ajv {
  const maxDepth = (limit: number, data: object): boolean => {
    if (!exceedsDepth(data, limit)) return true;
    maxDepth.errors = [{ keyword: 'x-maxDepth', message: `must not nest objects or arrays more than ${limit} deep`, params: { limit } }];
    return false;
  };
  maxDepth.errors = [] as Partial<ErrorObject>[];
  const maxBytes = (limit: number, data: object): boolean => {
    if (exceedsDepth(data, SERIALIZABLE_DEPTH)) return true;
    const size = Buffer.byteLength(JSON.stringify(data));
    if (size <= limit) return true;
    maxBytes.errors = [{ keyword: 'x-maxBytes', message: `must serialize to at most ${limit} bytes; got ${size}`, params: { limit } }];
    return false;
  };
  maxBytes.errors = [] as Partial<ErrorObject>[];
  // int32/int64 name the proto type an integer feeds; its minimum and maximum already say the range.
  for (const format of ['int32', 'int64']) ajv.addFormat(format, { type: 'number', validate: () => true });
  ajv.addKeyword({ keyword: 'x-maxDepth', type: 'object', schemaType: 'number', errors: true, validate: maxDepth });
  ajv.addKeyword({ keyword: 'x-maxBytes', type: 'object', schemaType: 'number', errors: true, validate: maxBytes });
  ajv.addKeyword({ keyword: 'x-decimalString', type: 'string', schemaType: 'boolean', modifying: true, errors: true, validate: decimalString });
  return ajv;
}

/** How an integer is spelled where it arrives as text: digits, an optional minus, no leading zero. */
export const PLAIN_DECIMAL_PATTERN = '^-?(0|[1-9][0-9]*)$';
const PLAIN_DECIMAL = new RegExp(PLAIN_DECIMAL_PATTERN);

/**
 * `x-decimalString` (IdInt64 in common.schemas.ts): a string of decimal digits stands for the integer
 * it spells. The integer's own minimum and maximum apply to it, and it is replaced by that number,
 * so the handler sees one type.
 */
function decimalString(
  _enabled: boolean,
  data: string,
  parentSchema?: AnySchemaObject,
  context?: { parentData: unknown; parentDataProperty: string | number },
): boolean {
  // Another spelling is `pattern`'s to refuse, and a longer one `maxLength`'s.
  if (!PLAIN_DECIMAL.test(data) || data.length > ((parentSchema?.maxLength as number | undefined) ?? Infinity)) return true;
  const value = Number(data);
  const [minimum, maximum] = [(parentSchema?.minimum as number | undefined) ?? -Infinity, (parentSchema?.maximum as number | undefined) ?? Infinity];
  if (value < minimum || value > maximum) {
    const below = value < minimum;
    decimalString.errors = [
      {
        keyword: below ? 'minimum' : 'maximum',
        message: `must be ${below ? '>=' : '<='} ${below ? minimum : maximum}`,
        params: { comparison: below ? '>=' : '<=', limit: below ? minimum : maximum },
      },
    ];
    return false;
  }
  if (context?.parentData !== undefined) (context.parentData as Record<string | number, unknown>)[context.parentDataProperty] = value;
  return true;
}
decimalString.errors = [] as Partial<ErrorObject>[];

/**
 * Checks the raw strings of path and query parameters before coercion: each given once, and
 * integers as plain decimal literals (ajv's coercion would read "1e3" as 1000 and "0x10" as 16).
 */
function rawParameterErrors(schema: TObject, values: Record<string, unknown>): FieldError[] {
  const errors: FieldError[] = [];
  for (const [name, property] of Object.entries(schema.properties)) {
    const raw = values[name];
    if (Array.isArray(raw)) {
      errors.push({ parameter: name, code: 'DUPLICATE_PARAMETER', detail: `${name} must be given once; got ${raw.length} values.` });
    } else if (typeof raw === 'string' && (property as TSchema).type === 'integer' && !PLAIN_DECIMAL.test(raw)) {
      // "ten" is not a number at all; "1e3" or "0x10" is one, spelled in a way we do not read.
      errors.push(
        raw.trim() === '' || Number.isNaN(Number(raw))
          ? { parameter: name, code: 'INVALID_TYPE', detail: `${name} must be of type integer.` }
          : { parameter: name, code: 'INVALID_FORMAT', detail: `${name} must be a plain decimal integer (digits only, no exponent, sign or spaces).` },
      );
    }
  }
  return errors;
}

/** In a `u` regex a surrogate pair is one code point, so this matches only a surrogate left alone. */
const LONE_SURROGATE = /\p{Surrogate}/u;
/** Enough to show the caller the pattern; the body may hold thousands of such strings. */
const UNICODE_ERRORS_MAX = 10;

const escapePointer = (name: string) => name.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Every string a request carries (values and member names, free-form JSON included) must be valid
 * Unicode. JSON's \u escapes can spell a lone UTF-16 surrogate, which no UTF-8 store or encoder
 * takes: refused here, once for the whole request, before any schema or service reads it. The walk
 * is iterative, so a body nested thousands deep costs a loop, not the stack.
 */
export function invalidUnicode(value: unknown, location: Location): FieldError[] {
  const errors: FieldError[] = [];
  const refuse = (pointer: string, detail: string): FieldError =>
    location === 'body' ? { pointer, code: 'INVALID_UNICODE', detail } : { parameter: pointer.slice(1).split('/')[0] ?? '', code: 'INVALID_UNICODE', detail };
  const pending: [unknown, string][] = [[value, '']];
  while (pending.length > 0 && errors.length < UNICODE_ERRORS_MAX) {
    const [current, pointer] = pending.pop() as [unknown, string];
    if (typeof current === 'string') {
      if (LONE_SURROGATE.test(current)) errors.push(refuse(pointer, 'The string holds a lone UTF-16 surrogate; send valid Unicode text.'));
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) pending.push([current[i], `${pointer}/${i}`]);
    } else if (current !== null && typeof current === 'object') {
      const entries = Object.entries(current);
      if (entries.some(([name]) => LONE_SURROGATE.test(name)))
        errors.push(refuse(pointer, 'A member name holds a lone UTF-16 surrogate; send valid Unicode text.'));
      for (let i = entries.length - 1; i >= 0; i--) pending.push([entries[i][1], `${pointer}/${escapePointer(entries[i][0])}`]);
    }
  }
  return errors;
}

export function compileValidator(schema: TSchema, location: Location): CompiledValidator {
  const validate: ValidateFunction = (location === 'body' ? bodyAjv : parameterAjv).compile(schema);
  const check: CompiledValidator = (value) => (validate(value) ? [] : toFieldErrors(validate.errors ?? [], location));
  return (value) => {
    const unicode = invalidUnicode(value, location);
    if (unicode.length > 0) return unicode;
    const raw = location === 'body' ? [] : rawParameterErrors(schema as TObject, value as Record<string, unknown>);
    return raw.length > 0 ? raw : check(value);
  };
}

function fieldName(error: ErrorObject): string {
  const missing = (error.params as { missingProperty?: string; additionalProperty?: string }).missingProperty;
  const extra = (error.params as { additionalProperty?: string }).additionalProperty;
  const child = missing ?? extra;
  return child === undefined ? error.instancePath : `${error.instancePath}/${escapePointer(child)}`;
}

function describe(error: ErrorObject, name: string): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `${name} is required.`;
    case 'additionalProperties':
      return `${name} is not a known field.`;
    case 'type':
      return `${name} must be of type ${String(params.type)}.`;
    case 'enum':
      return `${name} must be one of: ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}.`;
    case 'pattern': {
      const meaning = typeof error.parentSchema?.description === 'string' ? error.parentSchema.description.replace(/\.$/, '') : '';
      return `${name} must match ${String(params.pattern)}${meaning ? ` (${meaning})` : ''}.`;
    }
    case 'minLength':
      return `${name} must be at least ${String(params.limit)} character${params.limit === 1 ? '' : 's'} long.`;
    case 'maxLength':
      return `${name} must be at most ${String(params.limit)} characters long.`;
    case 'minimum':
    case 'maximum':
      return `${name} must be ${error.keyword === 'minimum' ? '>=' : '<='} ${String(params.limit)}.`;
    default:
      return `${name} ${error.message ?? 'is invalid'}.`;
  }
}

/**
 * A field that may be null (`Nullable` in common.schemas.ts: anyOf the field's schema or null) and got
 * a wrong value that is not null fails both branches: ajv reports the field's own rule, "must be of
 * type null" and "must match a schema in anyOf". Only the first says what is wrong: the other two are
 * dropped, so each such field gets the errors of its schema alone. Any other anyOf is reported whole.
 */
function withoutNullBranchNoise(errors: ErrorObject[]): ErrorObject[] {
  const dropped = new Set<ErrorObject>();
  for (const anyOf of errors) {
    if (anyOf.keyword !== 'anyOf') continue;
    const branches = new Map<string, ErrorObject[]>();
    for (const error of errors) {
      if (!error.schemaPath.startsWith(`${anyOf.schemaPath}/`) || error.instancePath !== anyOf.instancePath) continue;
      const branch = error.schemaPath.slice(anyOf.schemaPath.length + 1).split('/')[0];
      branches.set(branch, [...(branches.get(branch) ?? []), error]);
    }
    const nullBranch = [...branches.values()].find(
      (branch) => branch.length === 1 && branch[0].keyword === 'type' && (branch[0].params as { type?: unknown }).type === 'null',
    );
    if (branches.size !== 2 || !nullBranch) continue;
    dropped.add(anyOf);
    dropped.add(nullBranch[0]);
  }
  return dropped.size === 0 ? errors : errors.filter((error) => !dropped.has(error));
}

function toFieldErrors(errors: ErrorObject[], location: Location): FieldError[] {
  const seen = new Set<string>();
  const result: FieldError[] = [];
  for (const error of withoutNullBranchNoise(errors)) {
    const pointer = fieldName(error);
    const code = SCHEMA_KEYWORD_RULES[error.keyword] ?? error.keyword.toUpperCase();
    const key = `${pointer}|${code}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (location === 'body') {
      const name = pointer === '' ? 'The body' : pointer.slice(1).replace(/\//g, '.');
      result.push({ pointer, code, detail: describe(error, name) });
    } else {
      const parameter = pointer.slice(1).split('/')[0] ?? '';
      result.push({ parameter, code, detail: describe(error, parameter) });
    }
  }
  return result;
}
