import Ajv, { ErrorObject, ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { TSchema } from '@sinclair/typebox';
import { FieldError } from '@platform/errors';

/**
 * Bodies are validated as sent (no coercion: "1" is not an integer in JSON); path and query values
 * arrive as strings, so their validator coerces before checking.
 */
const bodyAjv = addFormats(new Ajv({ allErrors: true, strict: false }));
const parameterAjv = addFormats(new Ajv({ allErrors: true, strict: false, coerceTypes: true, useDefaults: true }));

export type Location = 'body' | 'path' | 'query';

export interface CompiledValidator {
  /** Mutates `value` in place (coercion, defaults) and returns the field errors, empty when valid. */
  (value: unknown): FieldError[];
}

export function compileValidator(schema: TSchema, location: Location): CompiledValidator {
  const validate: ValidateFunction = (location === 'body' ? bodyAjv : parameterAjv).compile(schema);
  return (value) => (validate(value) ? [] : toFieldErrors(validate.errors ?? [], location));
}

function fieldName(error: ErrorObject): string {
  const missing = (error.params as { missingProperty?: string; additionalProperty?: string }).missingProperty;
  const extra = (error.params as { additionalProperty?: string }).additionalProperty;
  const child = missing ?? extra;
  return child === undefined ? error.instancePath : `${error.instancePath}/${child.replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

const CODES: Record<string, string> = {
  required: 'REQUIRED',
  type: 'INVALID_TYPE',
  enum: 'NOT_ALLOWED',
  const: 'NOT_ALLOWED',
  additionalProperties: 'UNKNOWN_FIELD',
  minLength: 'TOO_SHORT',
  maxLength: 'TOO_LONG',
  minimum: 'OUT_OF_RANGE',
  maximum: 'OUT_OF_RANGE',
  exclusiveMinimum: 'OUT_OF_RANGE',
  exclusiveMaximum: 'OUT_OF_RANGE',
  minItems: 'TOO_FEW_ITEMS',
  maxItems: 'TOO_MANY_ITEMS',
  uniqueItems: 'DUPLICATE_ITEMS',
  pattern: 'INVALID_FORMAT',
  format: 'INVALID_FORMAT',
  minProperties: 'TOO_FEW_PROPERTIES',
  maxProperties: 'TOO_MANY_PROPERTIES',
};

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
    case 'pattern':
      return `${name} must match ${String(params.pattern)}${error.parentSchema?.description ? ` (${error.parentSchema.description})` : ''}.`;
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

function toFieldErrors(errors: ErrorObject[], location: Location): FieldError[] {
  const seen = new Set<string>();
  const result: FieldError[] = [];
  for (const error of errors) {
    const pointer = fieldName(error);
    const code = CODES[error.keyword] ?? error.keyword.toUpperCase();
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
