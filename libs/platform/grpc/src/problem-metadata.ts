import { Metadata, ServiceError, status as GrpcStatus } from '@grpc/grpc-js';
import { AppError, FieldError, grpcStatusToProblemCode, httpStatusToGrpc } from '@platform/errors';

/** Trailer carrying the full problem across gRPC, so the edge answers what the service meant. */
const PROBLEM_TRAILER = 'x-problem-bin';

interface WireProblem {
  status: number;
  code: string;
  detail: string;
  errors?: FieldError[];
  extensions?: Record<string, string | number | boolean>;
  headers?: Record<string, string>;
}

export function appErrorToServiceError(error: AppError): Partial<ServiceError> {
  const metadata = new Metadata();
  const wire: WireProblem = {
    status: error.status,
    code: error.code,
    detail: error.detail,
    errors: error.errors,
    extensions: error.extensions,
    headers: error.headers,
  };
  metadata.set(PROBLEM_TRAILER, Buffer.from(JSON.stringify(wire)));
  return { code: httpStatusToGrpc(error.status), details: error.detail, metadata };
}

/** Turns any failed call back into an AppError; calls that never reached a service keep gRPC's meaning. */
export function serviceErrorToAppError(error: ServiceError, target: string): AppError {
  const [raw] = error.metadata?.get(PROBLEM_TRAILER) ?? [];
  if (Buffer.isBuffer(raw)) {
    const wire = JSON.parse(raw.toString('utf8')) as WireProblem;
    return AppError.fromPeer(wire.status, wire.code, wire.detail, {
      errors: wire.errors,
      extensions: wire.extensions,
      headers: wire.headers,
    });
  }
  const detail =
    error.code === GrpcStatus.DEADLINE_EXCEEDED
      ? `The ${target} service did not answer in time.`
      : error.code === GrpcStatus.UNAVAILABLE
        ? `The ${target} service is unavailable.`
        : `The ${target} service failed.`;
  // A backend that is down is usually back within seconds (restarted by its supervisor), so tell the client when to retry.
  const headers = error.code === GrpcStatus.UNAVAILABLE ? { 'Retry-After': '1' } : undefined;
  return new AppError(grpcStatusToProblemCode(error.code), detail, { cause: error, headers });
}
