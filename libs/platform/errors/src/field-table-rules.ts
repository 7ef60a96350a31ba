import { isWritable, type FieldRuleCode, type FieldSpec, type FieldTable } from '@contracts/domain';
import type { FieldError } from './app-error';
import { blankOrTooLong, notOneOf } from './field-rules';

/** A refusal by a field rule of the catalog (`FIELD_RULES` in @contracts/domain). */
const refusal = (pointer: string, code: FieldRuleCode, detail: string): FieldError => ({ pointer, code, detail });

/**
 * The service's re-check of a create or an update against its field table: the same bounds the
 * gateway's schemas carry (they are built from the same table), for callers that are not the gateway.
 */
export function fieldTableErrors(
  table: FieldTable,
  op: 'create' | 'update',
  input: object,
  options: { pointerPrefix?: string; rejectUnknown?: string } = {},
): FieldError[] {
  const given = input as Record<string, unknown>;
  const prefix = options.pointerPrefix ?? '';
  const errors: FieldError[] = [];
  // In the order the caller gave the fields, as a reader of the answer expects them; missing ones last.
  for (const [name, value] of Object.entries(given)) {
    if (value === undefined) continue;
    const field = table[name];
    if (field === undefined) {
      if (options.rejectUnknown !== undefined) errors.push(refusal(`${prefix}/${name}`, 'UNKNOWN_FIELD', `${name} is not ${options.rejectUnknown}.`));
    } else if (isWritable(field, op)) {
      errors.push(...valueErrors(`${prefix}/${field.json ?? name}`, name, field, value));
    }
  }
  if (op === 'create') {
    for (const [name, field] of Object.entries(table)) {
      if (field.create === 'required' && given[name] === undefined) errors.push(refusal(`${prefix}/${field.json ?? name}`, 'REQUIRED', `${name} is required.`));
    }
  }
  return errors;
}

function valueErrors(pointer: string, name: string, field: FieldSpec, value: unknown): FieldError[] {
  const wrongType = (type: string): FieldError[] => [refusal(pointer, 'INVALID_TYPE', `${name} must be ${type}.`)];
  switch (field.kind) {
    case 'string':
      if (typeof value !== 'string') return wrongType('a string');
      if (field.trim && (field.minLength ?? 0) > 0) return blankOrTooLong(pointer, value, field.maxLength);
      if (value.length > field.maxLength) return [refusal(pointer, 'TOO_LONG', `${name} must be at most ${field.maxLength} characters.`)];
      if (value.length < (field.minLength ?? 0)) return [refusal(pointer, 'TOO_SHORT', `${name} must be at least ${field.minLength} characters.`)];
      if (field.pattern !== undefined && !new RegExp(field.pattern).test(value))
        return [refusal(pointer, 'INVALID_FORMAT', `${name} must match ${field.pattern}.`)];
      return [];
    case 'int': {
      const minimum = field.minimum ?? Number.MIN_SAFE_INTEGER;
      const maximum = field.maximum ?? Number.MAX_SAFE_INTEGER;
      if (typeof value === 'number' && Number.isSafeInteger(value) && value >= minimum && value <= maximum) return [];
      const range = field.minimum === 1 && field.maximum === undefined ? 'a positive integer' : `an integer from ${minimum} to ${maximum}`;
      return [refusal(pointer, 'OUT_OF_RANGE', `${name} must be ${range}.`)];
    }
    case 'bool':
      return typeof value === 'boolean' ? [] : wrongType('a boolean');
    case 'enum':
      return typeof value === 'string' ? notOneOf(pointer, value, field.values) : wrongType('a string');
    case 'json':
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return wrongType('a JSON object');
      if (Buffer.byteLength(JSON.stringify(value)) > field.maxBytes)
        return [refusal(pointer, 'TOO_LARGE', `${name} must be at most ${field.maxBytes} bytes serialized.`)];
      return [];
    case 'timestamp':
      return value instanceof Date ? [] : wrongType('a date');
  }
}
