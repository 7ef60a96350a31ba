import type { FieldRuleCode } from '@contracts/domain';
import type { FieldError } from './app-error';

/** A field rule of the catalog (`FIELD_RULES` in @contracts/domain), checked when it is written. */
const rule = (code: FieldRuleCode) => code;

/** How a JSON pointer reads in a sentence: `/creativeStyle/1` as `creativeStyle.1`. */
const fieldName = (pointer: string) => pointer.slice(1).replace(/\//g, '.');

/**
 * The rules a service re-checks on what reaches it over gRPC (the gateway checks them too, but is
 * not the only caller), phrased the same way in every service.
 */

/** A value outside an enumeration; nothing when the value is absent. */
export function notOneOf(pointer: string, value: string | undefined, allowed: readonly string[]): FieldError[] {
  if (value === undefined || allowed.includes(value)) return [];
  return [{ pointer, code: rule('NOT_ALLOWED'), detail: `${fieldName(pointer)} must be one of ${allowed.join(', ')}; got ${JSON.stringify(value)}.` }];
}

/** A name that is blank once trimmed, or longer than `max` characters. */
export function blankOrTooLong(pointer: string, text: string, max: number): FieldError[] {
  const trimmed = text.trim();
  if (trimmed.length === 0) return [{ pointer, code: rule('REQUIRED'), detail: `${fieldName(pointer)} must not be blank.` }];
  if (trimmed.length > max) return [{ pointer, code: rule('TOO_LONG'), detail: `${fieldName(pointer)} must be at most ${max} characters.` }];
  return [];
}
