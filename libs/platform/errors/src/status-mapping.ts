import type { ProblemCode } from '@contracts/domain';
import type { status as GrpcStatus } from '@grpc/grpc-js';

/**
 * The gRPC status codes used here, as the gRPC protocol fixes them (grpc-js's `status` enum has the
 * same values): written out so that loading the error types, as a worker thread's code does, does not
 * load grpc-js.
 */
const GRPC = {
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const satisfies Partial<Record<keyof typeof GrpcStatus, GrpcStatus>>;

/**
 * The single place where gRPC status codes and HTTP statuses meet. Services throw AppError, whose
 * status comes from the problem catalog; it crosses gRPC as the closest gRPC code plus the full
 * problem in metadata, so the edge answers the problem itself and never reads the gRPC code back.
 */
const HTTP_TO_GRPC: Record<number, GrpcStatus> = {
  400: GRPC.INVALID_ARGUMENT,
  401: GRPC.UNAUTHENTICATED,
  403: GRPC.PERMISSION_DENIED,
  404: GRPC.NOT_FOUND,
  409: GRPC.FAILED_PRECONDITION,
  413: GRPC.OUT_OF_RANGE,
  415: GRPC.INVALID_ARGUMENT,
  424: GRPC.FAILED_PRECONDITION,
  429: GRPC.RESOURCE_EXHAUSTED,
  501: GRPC.UNIMPLEMENTED,
  502: GRPC.UNAVAILABLE,
  503: GRPC.UNAVAILABLE,
  504: GRPC.DEADLINE_EXCEEDED,
};

export function httpStatusToGrpc(status: number): GrpcStatus {
  return HTTP_TO_GRPC[status] ?? (status >= 500 ? GRPC.INTERNAL : GRPC.UNKNOWN);
}

/**
 * Stable problem code for a gRPC failure that carried no problem of its own: the call never reached a
 * handler (a timeout, a service down, a method it lacks) or grpc-js itself failed it.
 */
export function grpcStatusToProblemCode(code: number): ProblemCode {
  switch (code) {
    case GRPC.DEADLINE_EXCEEDED:
      return 'UPSTREAM_TIMEOUT';
    case GRPC.UNAVAILABLE:
      return 'SERVICE_UNAVAILABLE';
    case GRPC.UNIMPLEMENTED:
      return 'NOT_IMPLEMENTED';
    default:
      return 'INTERNAL_ERROR';
  }
}
