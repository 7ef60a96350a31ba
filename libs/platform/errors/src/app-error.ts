/** Where a field error points: a JSON pointer into the body, a query/path parameter, or a header. */
export type FieldError =
  { pointer: string; code: string; detail: string } | { parameter: string; code: string; detail: string } | { header: string; code: string; detail: string };

export interface AppErrorOptions {
  errors?: FieldError[];
  /** Extra problem members clients may branch on, e.g. requiredPermission. Never secrets. */
  extensions?: Record<string, string | number | boolean>;
  headers?: Record<string, string>;
  cause?: unknown;
}

/**
 * The one error type domain code throws. `status` is the HTTP status the edge will answer with;
 * `code` is the stable UPPER_SNAKE value clients branch on.
 */
export class AppError extends Error {
  readonly errors?: FieldError[];
  readonly extensions?: Record<string, string | number | boolean>;
  readonly headers?: Record<string, string>;

  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    options: AppErrorOptions = {},
  ) {
    super(detail, { cause: options.cause });
    this.name = 'AppError';
    this.errors = options.errors;
    this.extensions = options.extensions;
    this.headers = options.headers;
  }
}

export const validationFailed = (errors: FieldError[]) =>
  new AppError(400, 'VALIDATION_FAILED', `The request has ${errors.length} invalid field${errors.length === 1 ? '' : 's'}.`, { errors });

export const unauthorized = (code: string, detail: string) =>
  new AppError(401, code, detail, { headers: { 'WWW-Authenticate': 'Bearer realm="retail-media"' } });

export const forbidden = (requiredPermission: string) =>
  new AppError(403, 'PERMISSION_DENIED', `This operation requires the permission ${requiredPermission}.`, {
    extensions: { requiredPermission },
  });

export const notFound = (code: string, detail: string) => new AppError(404, code, detail);

export const conflict = (code: string, detail: string) => new AppError(409, code, detail);

export const unavailable = (code: string, detail: string) => new AppError(503, code, detail);

export const internal = (detail = 'An unexpected error occurred.', cause?: unknown) => new AppError(500, 'INTERNAL_ERROR', detail, { cause });
