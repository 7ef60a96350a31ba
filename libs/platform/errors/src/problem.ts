import { STATUS_CODES } from 'node:http';
import { isProblemCode, PROBLEMS } from '@contracts/domain';
import { AppError, FieldError } from './app-error';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  code: string;
  requestId: string;
  errors?: FieldError[];
  [extension: string]: unknown;
}

/** A dereferenceable-looking, stable type URI per code, as RFC 9457 suggests. */
export function problemType(code: string): string {
  return `urn:retail-media:problem:${code.toLowerCase().replace(/_/g, '-')}`;
}

export function toProblem(error: AppError, context: { instance: string; requestId: string }): Problem {
  const problem: Problem = {
    ...(error.extensions ?? {}),
    type: problemType(error.code),
    // The catalog's title; a code only a newer peer knows falls back to the status's reason phrase.
    title: isProblemCode(error.code) ? PROBLEMS[error.code].title : (STATUS_CODES[error.status] ?? 'Error'),
    status: error.status,
    detail: error.detail,
    instance: context.instance,
    code: error.code,
    requestId: context.requestId,
  };
  if (error.errors && error.errors.length > 0) problem.errors = error.errors;
  return problem;
}
