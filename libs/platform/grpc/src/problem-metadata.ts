import { Metadata, ServiceError, status as GrpcStatus } from '@grpc/grpc-js';
import { AppError, fromWireProblem, grpcStatusToProblemCode, httpStatusToGrpc, toWireProblem, type WireProblem } from '@platform/errors';

/** Trailer carrying the full problem across gRPC, so the edge answers what the service meant. */
const PROBLEM_TRAILER = 'x-problem-bin';

export function appErrorToServiceError(error: AppError): Partial<ServiceError> {
  const metadata = new Metadata();
  metadata.set(PROBLEM_TRAILER, Buffer.from(JSON.stringify(toWireProblem(error))));
  return { code: httpStatusToGrpc(error.status), details: error.detail, metadata };
}

/** Turns any failed call back into an AppError; calls that never reached a service keep gRPC's meaning. */
export function serviceErrorToAppError(error: ServiceError, target: string): AppError {
  const [raw] = error.metadata?.get(PROBLEM_TRAILER) ?? [];
  if (Buffer.isBuffer(raw)) return fromWireProblem(JSON.parse(raw.toString('utf8')) as WireProblem);
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
