import { exceedsDepth, FREE_FORM_JSON_MAX_DEPTH } from '@contracts/domain';
import type { FieldError } from '@platform/errors';

const fieldName = (pointer: string) => pointer.slice(1).replace(/\//g, '.');

/** A free-form JSON object as text: an object, at most maxBytes serialized, nested at most the platform's depth. */
export function jsonObjectErrors(pointer: string, json: string, maxBytes: number): { errors: FieldError[]; value?: Record<string, unknown> } {
  const text = json === '' ? '{}' : json;
  const size = Buffer.byteLength(text);
  if (size > maxBytes)
    return { errors: [{ pointer, code: 'TOO_LARGE', detail: `${fieldName(pointer)} must serialize to at most ${maxBytes} bytes; got ${size}.` }] };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { errors: [{ pointer, code: 'INVALID_FORMAT', detail: `${fieldName(pointer)} must be JSON.` }] };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { errors: [{ pointer, code: 'INVALID_TYPE', detail: `${fieldName(pointer)} must be a JSON object.` }] };
  }
  if (exceedsDepth(value, FREE_FORM_JSON_MAX_DEPTH)) {
    return { errors: [{ pointer, code: 'TOO_DEEP', detail: `${fieldName(pointer)} must not nest more than ${FREE_FORM_JSON_MAX_DEPTH} deep.` }] };
  }
  return { errors: [], value: value as Record<string, unknown> };
}

/** A required bounded text matching a pattern. */
export function patternedText(pointer: string, value: string, max: number, pattern: RegExp, rule: string): FieldError[] {
  if (value.length === 0) return [{ pointer, code: 'REQUIRED', detail: `${fieldName(pointer)} is required.` }];
  if (value.length > max) return [{ pointer, code: 'TOO_LONG', detail: `${fieldName(pointer)} must be at most ${max} characters.` }];
  return pattern.test(value) ? [] : [{ pointer, code: 'INVALID_FORMAT', detail: `${fieldName(pointer)} ${rule}.` }];
}
