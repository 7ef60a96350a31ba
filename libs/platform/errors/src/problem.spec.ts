import { status as GrpcStatus } from '@grpc/grpc-js';
import { AppError, forbidden, validationFailed } from './app-error';
import { toProblem } from './problem';
import { grpcStatusToHttp, httpStatusToGrpc } from './status-mapping';

describe(toProblem.name, () => {
  const context = { instance: '/v2/org/o1/retail-media-channels', requestId: 'r-1' };

  it('builds an RFC 9457 problem with the stable code and each field error', () => {
    const problem = toProblem(validationFailed([{ pointer: '/name', code: 'REQUIRED', detail: 'name is required' }]), context);
    expect(problem).toEqual({
      type: 'urn:retail-media:problem:validation-failed',
      title: 'Bad Request',
      status: 400,
      detail: 'The request has 1 invalid field.',
      instance: context.instance,
      code: 'VALIDATION_FAILED',
      requestId: 'r-1',
      errors: [{ pointer: '/name', code: 'REQUIRED', detail: 'name is required' }],
    });
  });

  it('carries requiredPermission on 403 and cannot be overridden by extensions', () => {
    const problem = toProblem(forbidden('MediaChannel_All'), context);
    expect(problem).toMatchObject({ status: 403, code: 'PERMISSION_DENIED', requiredPermission: 'MediaChannel_All' });
    const sneaky = new AppError(404, 'NOT_FOUND', 'x', { extensions: { status: 200 } });
    expect(toProblem(sneaky, context).status).toBe(404);
  });
});

describe('status mapping', () => {
  it.each([
    [400, GrpcStatus.INVALID_ARGUMENT],
    [403, GrpcStatus.PERMISSION_DENIED],
    [404, GrpcStatus.NOT_FOUND],
    [409, GrpcStatus.FAILED_PRECONDITION],
    [503, GrpcStatus.UNAVAILABLE],
    [504, GrpcStatus.DEADLINE_EXCEEDED],
  ])('HTTP %i crosses gRPC as %i and comes back the same', (http, grpc) => {
    expect(httpStatusToGrpc(http)).toBe(grpc);
    expect(grpcStatusToHttp(grpc)).toBe(http);
  });

  it('treats unknown gRPC codes as 500', () => {
    expect(grpcStatusToHttp(99)).toBe(500);
  });
});
