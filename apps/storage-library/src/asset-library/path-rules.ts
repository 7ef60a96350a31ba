import { assetFileNameViolation, assetPathViolation } from '@contracts/domain';
import { type FieldError, problem, validationFailed } from '@platform/errors';

/** Where a checked value came from: a body member (JSON pointer) or a query parameter. */
export type FieldLocation = { pointer: string } | { parameter: string };

/** The library's path rules (1 to 6) as field errors; each detail names the rule broken. */
export function pathErrors(at: FieldLocation, path: string): FieldError[] {
  const broken = assetPathViolation(path);
  return broken ? [{ ...at, code: broken.code, detail: broken.detail }] : [];
}

/** Rules 1 to 7 for a file name. */
export function fileNameErrors(at: FieldLocation, name: string): FieldError[] {
  const broken = assetFileNameViolation(name);
  return broken ? [{ ...at, code: broken.code, detail: broken.detail }] : [];
}

/** Refuses the request when any rule broke; with one error its own text (which names the rule) is the problem's detail. */
export function assertNoErrors(errors: FieldError[]): void {
  if (errors.length === 1) throw problem('VALIDATION_FAILED', errors[0].detail, { errors });
  if (errors.length > 0) throw validationFailed(errors);
}
