import type { ProblemCode } from '@contracts/domain';
import { status as GrpcStatus } from '@grpc/grpc-js';

/**
 * The single place where gRPC status codes and HTTP statuses meet. Services throw AppError, whose
 * status comes from the problem catalog; it crosses gRPC as the closest gRPC code plus the full
 * problem in metadata, so the edge answers the problem itself and never reads the gRPC code back.
 */
const HTTP_TO_GRPC: Record<number, GrpcStatus> = {
  400: GrpcStatus.INVALID_ARGUMENT,
  401: GrpcStatus.UNAUTHENTICATED,
  403: GrpcStatus.PERMISSION_DENIED,
  404: GrpcStatus.NOT_FOUND,
  409: GrpcStatus.FAILED_PRECONDITION,
  413: GrpcStatus.OUT_OF_RANGE,
  415: GrpcStatus.INVALID_ARGUMENT,
  424: GrpcStatus.FAILED_PRECONDITION,
  429: GrpcStatus.RESOURCE_EXHAUSTED,
  501: GrpcStatus.UNIMPLEMENTED,
  502: GrpcStatus.UNAVAILABLE,
  503: GrpcStatus.UNAVAILABLE,
  504: GrpcStatus.DEADLINE_EXCEEDED,
};

export function httpStatusToGrpc(status: number): GrpcStatus {
  return HTTP_TO_GRPC[status] ?? (status >= 500 ? GrpcStatus.INTERNAL : GrpcStatus.UNKNOWN);
}

/**
 * Stable problem code for a gRPC failure that carried no problem of its own: the call never reached a
 * handler (a timeout, a service down, a method it lacks) or grpc-js itself failed it.
 */
export function grpcStatusToProblemCode(code: number): ProblemCode {
  switch (code) {
    case GrpcStatus.DEADLINE_EXCEEDED:
      return 'UPSTREAM_TIMEOUT';
    case GrpcStatus.UNAVAILABLE:
      return 'SERVICE_UNAVAILABLE';
    case GrpcStatus.UNIMPLEMENTED:
      return 'NOT_IMPLEMENTED';
    default:
      return 'INTERNAL_ERROR';
  }
}
