/** A key or prefix that could escape its namespace or break a path-mapped store; a caller bug, never retried. */
export class InvalidObjectKeyError extends Error {
  readonly code = 'INVALID_OBJECT_KEY';

  constructor(
    readonly key: string,
    reason: string,
  ) {
    // JSON.stringify so control characters in the key show up escaped instead of garbling the log line.
    super(`Invalid object key ${JSON.stringify(key)}: ${reason}`);
    this.name = 'InvalidObjectKeyError';
  }
}

export class ObjectNotFoundError extends Error {
  readonly code = 'OBJECT_NOT_FOUND';

  constructor(readonly key: string) {
    super(`Object ${JSON.stringify(key)} does not exist`);
    this.name = 'ObjectNotFoundError';
  }
}

/** The store could not be reached, timed out, or the bucket is missing: a readiness failure, not a caller bug. */
export class ObjectStoreUnavailableError extends Error {
  readonly code = 'OBJECT_STORE_UNAVAILABLE';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ObjectStoreUnavailableError';
  }
}

/** A streamed upload ended with a different byte count than the caller declared; nothing was stored. */
export class ObjectSizeMismatchError extends Error {
  readonly code = 'OBJECT_SIZE_MISMATCH';

  constructor(
    readonly key: string,
    readonly expected: number,
    readonly actual: number,
  ) {
    super(`Object ${JSON.stringify(key)}: expected ${expected} bytes, the stream delivered ${actual}`);
    this.name = 'ObjectSizeMismatchError';
  }
}

/** The S3 error code ("NoSuchKey", "NotFound", ...) carried by a minio error, if any. */
export function s3ErrorCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const { code } = error as { code: unknown };
    return typeof code === 'string' ? code : undefined;
  }
  return undefined;
}
