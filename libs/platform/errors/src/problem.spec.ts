import { AppError, enforce, enforceAt, forbidden, problem, validationFailed } from './app-error';
import { toProblem } from './problem';

describe(toProblem.name, () => {
  const context = { instance: '/v2/org/o1/retail-media-channels', requestId: 'r-1' };

  it('builds an RFC 9457 problem with the stable code and each field error', () => {
    const problem = toProblem(validationFailed([{ pointer: '/name', code: 'REQUIRED', detail: 'name is required' }]), context);
    expect(problem).toEqual({
      type: 'urn:retail-media:problem:validation-failed',
      title: 'The request is not valid',
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
    const sneaky = new AppError('ACCOUNT_NOT_FOUND', 'x', { extensions: { status: 200 } });
    expect(toProblem(sneaky, context).status).toBe(404);
  });
});

describe('the problem catalog', () => {
  it('gives every answer of a code its status and title, stated by no call site', () => {
    const error = problem('MEDIA_PLAN_NOT_FOUND', 'Media plan 7 was not found.');
    expect(toProblem(error, { instance: '/x', requestId: 'r' })).toMatchObject({
      status: 404,
      code: 'MEDIA_PLAN_NOT_FOUND',
      title: 'Media plan not found',
      type: 'urn:retail-media:problem:media-plan-not-found',
    });
  });

  it('refuses, at compile time, a code the catalog does not declare', () => {
    // @ts-expect-error NOT_A_CODE is not in PROBLEMS
    expect(() => new AppError('NOT_A_CODE', 'x')).toThrow(TypeError);
  });

  it('throws a pure rule refusal and passes when there is none', () => {
    expect(() => enforce({ code: 'RETAIL_CAMPAIGN_NOT_ACTIVE', detail: 'no' })).toThrow(
      expect.objectContaining({ status: 409, code: 'RETAIL_CAMPAIGN_NOT_ACTIVE' }),
    );
    expect(() => enforce(undefined)).not.toThrow();
    expect(() => enforceAt('/campaignId', { code: 'MEDIA_PLAN_NOT_FOUND', detail: 'no' })).toThrow(
      expect.objectContaining({ status: 400, code: 'VALIDATION_FAILED', errors: [{ pointer: '/campaignId', code: 'MEDIA_PLAN_NOT_FOUND', detail: 'no' }] }),
    );
  });

  it('keeps the status a peer sent with a code this process does not know yet', () => {
    const error = AppError.fromPeer(409, 'SOMETHING_NEW', 'x');
    expect(toProblem(error, { instance: '/x', requestId: 'r' })).toMatchObject({ status: 409, code: 'SOMETHING_NEW', title: 'Conflict' });
  });
});
