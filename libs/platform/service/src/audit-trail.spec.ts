import { AUDIT_REDACTED } from '@contracts/domain';
import type { Principal } from '@platform/grpc';
import { withRequestId } from '@platform/logging';
import { auditEvent, changedFields, currentActor, recordChange, redactRecord } from './audit-trail';
import { declareCall, inCall } from './unary-handlers';

const principal: Principal = { keyId: 'key-7', orgId: 'org-1', accountIds: [5], permissions: ['*'], org: { isRetailer: false, dimensionWhitelist: [] } };

/** Runs `work` as a guarded call of `method` would run it. */
function asCall<T>(method: string, work: () => T): T {
  const declaration = declareCall({}, method, 'CloudStorage_Edit');
  declaration.checked = true;
  declaration.principal = principal;
  return inCall(declaration, work);
}

describe('redactRecord', () => {
  it('replaces every secret member at any depth, whatever its spelling, and keeps the rest', () => {
    const redacted = redactRecord({
      name: 'bucket',
      secretKey: 'S3CR3T',
      nested: { access_key: 'AKIA', list: [{ Password: 'pw', keep: 1 }] },
      sealedCredentials: Buffer.from('sealed'),
      when: new Date('2026-01-02T03:04:05.000Z'),
    });
    expect(redacted).toEqual({
      name: 'bucket',
      secretKey: AUDIT_REDACTED,
      nested: { access_key: AUDIT_REDACTED, list: [{ Password: AUDIT_REDACTED, keep: 1 }] },
      sealedCredentials: AUDIT_REDACTED,
      when: '2026-01-02T03:04:05.000Z',
    });
    expect(JSON.stringify(redacted)).not.toMatch(/S3CR3T|AKIA|"pw"|sealed"/);
  });

  it('redacts secrets inside free-form JSON held as text, and keeps text that is not JSON', () => {
    const redacted = redactRecord({ configurationJson: '{"url":"https://x","headers":{"Authorization":"Bearer abc"}}', note: '{not json' });
    expect(redacted).toEqual({ configurationJson: JSON.stringify({ url: 'https://x', headers: AUDIT_REDACTED }), note: '{not json' });
  });

  it('hides the password and secret query values of a URL, and keeps other URLs as they are', () => {
    const redacted = redactRecord({ url: 'https://feed:hunter2@feeds.example.com/p.csv?token=abc&page=2', plain: 'https://example.com/a?b=1' }) as Record<
      string,
      string
    >;
    expect(redacted.url).not.toMatch(/hunter2|abc/);
    expect(redacted.url).toContain('page=2');
    expect(redacted.plain).toBe('https://example.com/a?b=1');
  });

  it('hides secret values of form-encoded parameters', () => {
    expect(redactRecord({ additionalParams: 'region=eu&apiKey=k-123' })).toEqual({
      additionalParams: `region=eu&apiKey=${encodeURIComponent(AUDIT_REDACTED)}`,
    });
    expect(redactRecord({ additionalParams: 'region=eu' })).toEqual({ additionalParams: 'region=eu' });
  });

  it('answers null for no record', () => {
    expect(redactRecord(null)).toBeNull();
    expect(redactRecord(undefined)).toBeNull();
  });
});

describe('changedFields', () => {
  it('lists the top-level fields whose values differ, in name order', () => {
    expect(changedFields({ a: 1, b: { x: [1] }, c: 'same' }, { a: 2, b: { x: [1, 2] }, c: 'same', d: null })).toEqual(['a', 'b', 'd']);
  });

  it('lists every field of a create and of a delete', () => {
    expect(changedFields(null, { name: 'n', id: 1 })).toEqual(['id', 'name']);
    expect(changedFields({ name: 'n' }, null)).toEqual(['name']);
  });

  it('names a changed secret, compared before redaction', () => {
    expect(changedFields({ secretKey: 'old', sealed: Buffer.from('a') }, { secretKey: 'new', sealed: Buffer.from('b') })).toEqual(['sealed', 'secretKey']);
  });
});

describe('auditEvent', () => {
  it('takes the actor and operation from the guarded call and the request id from the request context', () => {
    const event = asCall('RenameCloudService', () =>
      withRequestId('req-audit-1', () =>
        auditEvent({
          resourceType: 'cloud-service',
          resourceId: 9,
          action: 'update',
          accountId: 5,
          before: { name: 'a', secretKey: 's' },
          after: { name: 'b', secretKey: 's' },
        }),
      ),
    );
    expect(event).toMatchObject({
      actor: { type: 'api-key', keyId: 'key-7' },
      operation: 'RenameCloudService',
      requestId: 'req-audit-1',
      orgId: 'org-1',
      accountId: 5,
      resourceId: '9',
      before: { name: 'a', secretKey: AUDIT_REDACTED },
      after: { name: 'b', secretKey: AUDIT_REDACTED },
      changedFields: ['name'],
    });
    expect(event.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('refuses a change recorded outside a guarded call', () => {
    expect(() => currentActor()).toThrow(/guarded gRPC call/);
    const unchecked = declareCall({}, 'DeleteCloudService', 'CloudStorage_Edit');
    expect(() => inCall(unchecked, () => currentActor())).toThrow(/guarded gRPC call/);
  });

  it('records through the outbox with the audit subject and a message id unique to the change', async () => {
    const recorded: { subject: string; msgId: string; payload: unknown }[] = [];
    const outbox = { record: async (_trx: unknown, event: { subject: string; msgId: string; payload: unknown }) => void recorded.push(event) };
    const trx = {} as never;
    await asCall('DeleteCloudService', async () => {
      await recordChange(trx, outbox, { resourceType: 'cloud-service', resourceId: 1, action: 'delete', before: { name: 'x' } });
      await recordChange(trx, outbox, { resourceType: 'cloud-service', resourceId: 1, action: 'delete', before: { name: 'x' } });
    });
    expect(recorded.map((r) => r.subject)).toEqual(['audit.change', 'audit.change']);
    expect(new Set(recorded.map((r) => r.msgId)).size).toBe(2);
    expect(recorded[0]?.payload).toMatchObject({ action: 'delete', after: null, before: { name: 'x' } });
  });
});
