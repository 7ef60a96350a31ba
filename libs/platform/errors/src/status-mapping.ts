import { status as GrpcStatus } from '@grpc/grpc-js';

/**
 * The single place where gRPC status codes and HTTP statuses meet. Services throw AppError with an
 * HTTP status; it crosses gRPC as the closest gRPC code plus the full problem in metadata.
 */
const GRPC_TO_HTTP: Record<number, number> = {
  [GrpcStatus.OK]: 200,
  [GrpcStatus.CANCELLED]: 499,
  [GrpcStatus.UNKNOWN]: 500,
  [GrpcStatus.INVALID_ARGUMENT]: 400,
  [GrpcStatus.DEADLINE_EXCEEDED]: 504,
  [GrpcStatus.NOT_FOUND]: 404,
  [GrpcStatus.ALREADY_EXISTS]: 409,
  [GrpcStatus.PERMISSION_DENIED]: 403,
  [GrpcStatus.RESOURCE_EXHAUSTED]: 429,
  [GrpcStatus.FAILED_PRECONDITION]: 409,
  [GrpcStatus.ABORTED]: 409,
  [GrpcStatus.OUT_OF_RANGE]: 400,
  [GrpcStatus.UNIMPLEMENTED]: 501,
  [GrpcStatus.INTERNAL]: 500,
  [GrpcStatus.UNAVAILABLE]: 503,
  [GrpcStatus.DATA_LOSS]: 500,
  [GrpcStatus.UNAUTHENTICATED]: 401,
};

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

export function grpcStatusToHttp(code: number): number {
  return GRPC_TO_HTTP[code] ?? 500;
}

export function httpStatusToGrpc(status: number): GrpcStatus {
  return HTTP_TO_GRPC[status] ?? (status >= 500 ? GrpcStatus.INTERNAL : GrpcStatus.UNKNOWN);
}

/** Stable problem code for a gRPC failure that carried no problem of its own (e.g. a timeout). */
export function grpcStatusToProblemCode(code: number): string {
  switch (code) {
    case GrpcStatus.DEADLINE_EXCEEDED:
      return 'UPSTREAM_TIMEOUT';
    case GrpcStatus.UNAVAILABLE:
      return 'SERVICE_UNAVAILABLE';
    case GrpcStatus.UNIMPLEMENTED:
      return 'NOT_IMPLEMENTED';
    default:
      return GrpcStatus[code] ?? 'INTERNAL_ERROR';
  }
}
