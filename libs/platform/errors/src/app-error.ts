import { PROBLEMS, type FieldErrorCode, type ProblemCode, type ProblemCodeWithStatus, type ProblemEntry, type Refusal } from '@contracts/domain';

export type { FieldErrorCode };

/** Where a field error points: a JSON pointer into the body, a query/path parameter, or a header. */
export type FieldError =
  | { pointer: string; code: FieldErrorCode; detail: string }
  | { parameter: string; code: FieldErrorCode; detail: string }
  | { header: string; code: FieldErrorCode; detail: string };

export interface AppErrorOptions {
  errors?: FieldError[];
  /** Extra problem members clients may branch on, e.g. requiredPermission. Never secrets. */
  extensions?: Record<string, string | number | boolean>;
  headers?: Record<string, string>;
  cause?: unknown;
}

/**
 * The one error type domain code throws. `code` is a code of the problem catalog (`PROBLEMS` in
 * `@contracts/domain`), and `status` is the HTTP status the catalog gives it: no call site states a
 * status, so one code never answers two.
 */
export class AppError extends Error {
  readonly status: number;
  readonly errors?: FieldError[];
  readonly extensions?: Record<string, string | number | boolean>;
  readonly headers?: Record<string, string>;

  constructor(
    readonly code: ProblemCode,
    readonly detail: string,
    options: AppErrorOptions = {},
  ) {
    super(detail, { cause: options.cause });
    this.name = 'AppError';
    this.status = PROBLEMS[code].status;
    this.errors = options.errors;
    this.extensions = options.extensions;
    this.headers = options.headers;
  }

  /**
   * A problem a peer service answered, as it crossed gRPC: its status travels with it, so a code this
   * process's catalog does not know yet (a peer deployed ahead of it) keeps the meaning it was sent with.
   */
  static fromPeer(status: number, code: string, detail: string, options: AppErrorOptions = {}): AppError {
    const error = new AppError('INTERNAL_ERROR', detail, options);
    Object.assign(error, { code, status });
    return error;
  }
}

/**
 * How a failed call is logged, by the problem it is answered with: `error` (with its stack) for a 5xx, this
 * platform's to mend (anything that is not an AppError becomes one); `warn` for a 5xx the catalog marks
 * `external` (a customer's feed host failing: the answer says so, nothing here needs mending); `none` for
 * every other answer (the client's to fix).
 */
export function failureLogLevel(answered: AppError): 'error' | 'warn' | 'none' {
  if (answered.status < 500) return 'none';
  // By code, not by class: a problem from a peer service carries its code as sent (`fromPeer`).
  const entry = (PROBLEMS as Record<string, ProblemEntry | undefined>)[answered.code];
  return entry?.external ? 'warn' : 'error';
}

/** An AppError as plain data, for crossing a boundary (gRPC metadata, a worker thread's message) whole. */
export interface WireProblem {
  status: number;
  code: string;
  detail: string;
  errors?: FieldError[];
  extensions?: Record<string, string | number | boolean>;
  headers?: Record<string, string>;
}

export function toWireProblem(error: AppError): WireProblem {
  return { status: error.status, code: error.code, detail: error.detail, errors: error.errors, extensions: error.extensions, headers: error.headers };
}

/** The AppError a WireProblem was made from, its status as sent (see `fromPeer`). */
export function fromWireProblem(wire: WireProblem): AppError {
  return AppError.fromPeer(wire.status, wire.code, wire.detail, { errors: wire.errors, extensions: wire.extensions, headers: wire.headers });
}

/** The usual way to refuse: `throw problem('MEDIA_PLAN_NOT_FOUND', \`Media plan ${id} was not found.\`)`. */
export const problem = (code: ProblemCode, detail: string, options?: AppErrorOptions) => new AppError(code, detail, options);

/** Throws a domain rule's refusal (`@contracts/domain` rules are pure and answer one instead of throwing). */
export function enforce(refusal: Refusal | undefined): void {
  if (refusal) throw new AppError(refusal.code, refusal.detail);
}

/**
 * Throws a rule's refusal as one bad field of the request, for a reference the body carries: the
 * client named it, so the answer points at it (400, the rule's code at `pointer`). A reference in the
 * path is the resource itself and goes through `enforce` (the refusal's own status, usually 404).
 */
export function enforceAt(pointer: string, refusal: Refusal | undefined): void {
  if (refusal) throw validationFailed([{ pointer, code: refusal.code, detail: refusal.detail }]);
}

/** 400 with each bad field; `detail` defaults to a count of them. */
export const validationFailed = (errors: FieldError[], detail = `The request has ${errors.length} invalid field${errors.length === 1 ? '' : 's'}.`) =>
  new AppError('VALIDATION_FAILED', detail, { errors });

/** 401 with the challenge RFC 9110 requires beside it. */
export const unauthorized = (code: ProblemCodeWithStatus<401>, detail: string) =>
  new AppError(code, detail, { headers: { 'WWW-Authenticate': 'Bearer realm="retail-media"' } });

export const forbidden = (requiredPermission: string) =>
  new AppError('PERMISSION_DENIED', `This operation requires the permission ${requiredPermission}.`, {
    extensions: { requiredPermission },
  });

export const internal = (detail = 'An unexpected error occurred.', cause?: unknown) => new AppError('INTERNAL_ERROR', detail, { cause });
