import { status } from '@grpc/grpc-js';
import { AppError } from './app-error';
import { grpcStatusToProblemCode, httpStatusToGrpc } from './status-mapping';

// The mapping writes gRPC's codes out instead of loading grpc-js: they must be grpc-js's own values.
describe('status mapping', () => {
  it.each([
    [400, status.INVALID_ARGUMENT],
    [401, status.UNAUTHENTICATED],
    [403, status.PERMISSION_DENIED],
    [404, status.NOT_FOUND],
    [409, status.FAILED_PRECONDITION],
    [413, status.OUT_OF_RANGE],
    [415, status.INVALID_ARGUMENT],
    [424, status.FAILED_PRECONDITION],
    [429, status.RESOURCE_EXHAUSTED],
    [501, status.UNIMPLEMENTED],
    [502, status.UNAVAILABLE],
    [503, status.UNAVAILABLE],
    [504, status.DEADLINE_EXCEEDED],
    [500, status.INTERNAL],
    [418, status.UNKNOWN],
  ])('HTTP %i crosses gRPC as %i', (http, grpc) => {
    expect(httpStatusToGrpc(http)).toBe(grpc);
  });

  it.each([
    [status.DEADLINE_EXCEEDED, 'UPSTREAM_TIMEOUT', 504],
    [status.UNAVAILABLE, 'SERVICE_UNAVAILABLE', 503],
    [status.UNIMPLEMENTED, 'NOT_IMPLEMENTED', 501],
    [status.INTERNAL, 'INTERNAL_ERROR', 500],
    [status.RESOURCE_EXHAUSTED, 'INTERNAL_ERROR', 500],
    [99, 'INTERNAL_ERROR', 500],
  ])('a gRPC failure without a problem (%i) answers %s, %i', (grpc, code, httpStatus) => {
    expect(grpcStatusToProblemCode(grpc)).toBe(code);
    expect(new AppError(grpcStatusToProblemCode(grpc), 'x')).toMatchObject({ code, status: httpStatus });
  });
});
