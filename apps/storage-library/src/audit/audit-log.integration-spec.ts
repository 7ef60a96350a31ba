import { randomUUID } from 'node:crypto';
import { AUDIT_CHANGE_SUBJECT, AUDIT_REDACTED, AUDIT_STREAM, type AuditChangeEvent } from '@contracts/domain';
import { createLogger } from '@platform/logging';
import { DEAD_LETTER_STREAM, ensureStream, naming, OUTBOX_TABLE, type RunningConsumer } from '@platform/nats';
import { deletePrefixedStreams, waitUntil } from '@platform/testing';
import { connect, type NatsConnection } from 'nats';
import { openStorageLibraryTestBed, rejectionOf, type StorageLibraryTestBed } from '../storage-library.test-support';
import { startAuditLogConsumer } from './audit-log.consumer';

jest.setTimeout(60_000);

const event = (overrides: Partial<AuditChangeEvent> = {}): AuditChangeEvent => ({
  id: randomUUID(),
  occurredAt: new Date().toISOString(),
  actor: { type: 'api-key', keyId: 'key-1' },
  action: 'update',
  resourceType: 'cloud-service',
  resourceId: '1',
  orgId: 'org-a',
  accountId: 40,
  requestId: 'req-1',
  operation: 'RenameCloudService',
  before: { name: 'a' },
  after: { name: 'b' },
  changedFields: ['name'],
  ...overrides,
});

describe('audit log (real MariaDB and NATS)', () => {
  let bed: StorageLibraryTestBed;
  let nc: NatsConnection;
  let consumer: RunningConsumer | undefined;

  beforeAll(async () => {
    bed = await openStorageLibraryTestBed('audit');
    nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222', name: 'audit-log-spec' });
  });

  afterAll(async () => {
    await consumer?.stop();
    await nc?.drain();
    await deletePrefixedStreams(bed.prefix);
    await bed?.close();
  });

  const rows = (id: string) => bed.db.knex('audit_log').where({ id }).count({ n: '*' });

  it('folds each event once, however often it is delivered', async () => {
    const names = naming(bed.prefix);
    const jsm = await nc.jetstreamManager();
    await ensureStream(jsm, names.streamSpec(AUDIT_STREAM));
    await ensureStream(jsm, names.streamSpec(DEAD_LETTER_STREAM));
    consumer = await startAuditLogConsumer({ nats: nc, names, logger: createLogger({ service: 'audit-spec', level: 'silent' }), auditLog: bed.auditLog });
    const one = event();
    const js = nc.jetstream();
    const data = Buffer.from(JSON.stringify(one));
    // Two publishes the stream does not recognise as one (as after the duplicate window), then a marker.
    await js.publish(names.subject(AUDIT_CHANGE_SUBJECT), data, { msgID: `a-${one.id}` });
    await js.publish(names.subject(AUDIT_CHANGE_SUBJECT), data, { msgID: `b-${one.id}` });
    const marker = event();
    await js.publish(names.subject(AUDIT_CHANGE_SUBJECT), Buffer.from(JSON.stringify(marker)));
    await waitUntil(async () => Number((await rows(marker.id))[0]?.n) === 1, { what: 'the marker to be folded', timeoutMs: 10_000, everyMs: 50 });
    expect(Number((await rows(one.id))[0]?.n)).toBe(1);
    expect(await bed.auditLog.apply(one)).toBe(false);
  });

  it('records a cloud service create, rename and delete in the transaction of each, credentials redacted', async () => {
    const customer = bed.s3.client();
    await customer.makeBucket('customer', 'us-east-1');
    const outboxBefore = await bed.db.knex(OUTBOX_TABLE).where('subject', 'like', `%${AUDIT_CHANGE_SUBJECT}`).count({ n: '*' });
    expect(Number(outboxBefore[0]?.n)).toBe(0);
    const created = await bed.cloud.create(41, {
      name: 'Audited',
      serviceType: 'objstore',
      rootDir: 'customer',
      accessKey: 'S3RVER',
      secretKey: 'S3RVER',
      endpoint: bed.s3.endpoint,
      region: '',
    });
    await bed.cloud.rename(41, created.id, 'Renamed');
    expect(await rejectionOf(bed.cloud.rename(42, created.id, 'Other'))).toMatchObject({ code: 'CLOUD_SERVICE_NOT_FOUND' });
    await bed.cloud.delete(41, created.id);
    const recorded = (await bed.db.knex(OUTBOX_TABLE).where('subject', 'like', `%${AUDIT_CHANGE_SUBJECT}`).orderBy('id')).map(
      (row: { payload: Buffer }) => JSON.parse(Buffer.from(row.payload).toString('utf8')) as AuditChangeEvent,
    );
    expect(recorded.map((e) => e.action)).toEqual(['create', 'update', 'delete']);
    expect(recorded[0]).toMatchObject({
      actor: { keyId: 'test-key' },
      operation: 'create',
      accountId: 41,
      orgId: 'test-org',
      resourceId: String(created.id),
      before: null,
    });
    expect(recorded[0]?.after).toMatchObject({ name: 'Audited', bucket: 'customer', sealedCredentials: AUDIT_REDACTED });
    expect(recorded[1]).toMatchObject({ before: { name: 'Audited' }, after: { name: 'Renamed' }, changedFields: ['name'] });
    expect(recorded[2]).toMatchObject({ before: { name: 'Renamed' }, after: null });
    expect(JSON.stringify(recorded)).not.toContain('S3RVER');
  });

  /** The audit events the outbox holds past `afterId`, oldest first. */
  const auditEventsAfter = async (afterId: number): Promise<AuditChangeEvent[]> =>
    (await bed.db.knex(OUTBOX_TABLE).where('subject', 'like', `%${AUDIT_CHANGE_SUBJECT}`).andWhere('id', '>', afterId).orderBy('id')).map(
      (row: { payload: Buffer }) => JSON.parse(Buffer.from(row.payload).toString('utf8')) as AuditChangeEvent,
    );
  const lastOutboxId = async (): Promise<number> => Number((await bed.db.knex(OUTBOX_TABLE).max({ id: 'id' }))[0]?.id ?? 0);

  it('records a webhook create, disable, enable and delete, the signing secret never in the trail', async () => {
    const mark = await lastOutboxId();
    const { webhook, secret } = await bed.webhooks.create(43, { url: 'https://example.com/hook', events: ['cloud-copy'], description: 'Builds' });
    await bed.webhooks.setEnabled(43, webhook.id, false);
    await bed.webhooks.setEnabled(43, webhook.id, true);
    expect(await rejectionOf(bed.webhooks.delete(44, webhook.id))).toMatchObject({ code: 'WEBHOOK_NOT_FOUND' });
    await bed.webhooks.delete(43, webhook.id);
    const recorded = (await auditEventsAfter(mark)).filter((e) => e.resourceType === 'webhook');
    expect(recorded.map((e) => e.action)).toEqual(['create', 'update', 'update', 'delete']);
    expect(recorded[0]).toMatchObject({ operation: 'create', accountId: 43, resourceId: String(webhook.id), before: null });
    expect(recorded[0]?.after).toMatchObject({ url: 'https://example.com/hook', events: ['cloud-copy'], enabled: true, sealedSecret: AUDIT_REDACTED });
    expect(recorded[1]).toMatchObject({ before: { enabled: true }, after: { enabled: false }, changedFields: expect.arrayContaining(['enabled']) });
    expect(recorded[2]).toMatchObject({ before: { enabled: false }, after: { enabled: true } });
    expect(recorded[3]).toMatchObject({ before: { url: 'https://example.com/hook' }, after: null });
    expect(JSON.stringify(recorded)).not.toContain(secret);
  });

  it('records an accepted upload and cloud copy as the create of their job, without credentials', async () => {
    const customer = bed.s3.client();
    await customer.makeBucket('audited-copy', 'us-east-1');
    const service = await bed.cloud.create(45, {
      name: 'Copy source',
      serviceType: 'objstore',
      rootDir: 'audited-copy',
      accessKey: 'S3RVER',
      secretKey: 'S3RVER',
      endpoint: bed.s3.endpoint,
      region: '',
    });
    await bed.store.putObject('staging/uploads/45/abc', Buffer.from('12345'));
    const mark = await lastOutboxId();
    const uploadId = await bed.assets.startUpload(45, { stagingKey: 'staging/uploads/45/abc', path: 'images/', fileName: 'a.png', sizeBytes: 5 });
    const copyId = await bed.cloud.copy(45, service.id, { path: 'root/', files: ['a.png'], folders: ['sub/'] });
    const recorded = await auditEventsAfter(mark);
    expect(recorded.map((e) => [e.resourceType, e.action, e.resourceId])).toEqual([
      ['asset-library-upload', 'create', uploadId],
      ['cloud-copy', 'create', copyId],
    ]);
    expect(recorded[0]).toMatchObject({ accountId: 45, before: null, after: { path: 'images', fileName: 'a.png', sizeBytes: 5 } });
    expect(recorded[1]).toMatchObject({ accountId: 45, before: null, after: { cloudServiceId: service.id, path: 'root', files: ['a.png'], folders: ['sub'] } });
    expect(JSON.stringify(recorded)).not.toContain('S3RVER');
    expect(JSON.stringify(recorded)).not.toContain('sealedCredentials');
  });

  describe('reading', () => {
    const base = Date.parse('2026-03-01T00:00:00.000Z');
    const at = (minutes: number) => new Date(base + minutes * 60_000).toISOString();

    beforeAll(async () => {
      await bed.auditLog.apply(event({ accountId: 50, occurredAt: at(1), action: 'create', resourceId: '7', requestId: 'req-a' }));
      await bed.auditLog.apply(event({ accountId: 50, occurredAt: at(2), action: 'update', resourceId: '7', actor: { type: 'api-key', keyId: 'key-2' } }));
      await bed.auditLog.apply(event({ accountId: 50, occurredAt: at(3), action: 'delete', resourceId: '8', resourceType: 'tracker' }));
      await bed.auditLog.apply(event({ accountId: 51, occurredAt: at(4) }));
      const orgLevel = event({ orgId: 'org-b', occurredAt: at(5), resourceType: 'media-channel' });
      delete orgLevel.accountId;
      await bed.auditLog.apply(orgLevel);
      await bed.auditLog.apply(event({ orgId: 'org-b', accountId: 52, occurredAt: at(6) }));
    });

    it("answers the account's entries newest first, paged, with the total", async () => {
      const page = await bed.auditLog.list({ accountId: 50 }, {}, { offset: 0, limit: 2 });
      expect(page.total).toBe(3);
      expect(page.items.map((e) => e.occurredAt)).toEqual([at(3), at(2)]);
      const next = await bed.auditLog.list({ accountId: 50 }, {}, { offset: 2, limit: 2 });
      expect(next.items.map((e) => e.occurredAt)).toEqual([at(1)]);
    });

    it('filters by resource, action, actor, request id and time', async () => {
      const ids = async (query: Parameters<StorageLibraryTestBed['auditLog']['list']>[1]) =>
        (await bed.auditLog.list({ accountId: 50 }, query, {})).items.map((e) => e.occurredAt);
      expect(await ids({ resourceType: 'tracker' })).toEqual([at(3)]);
      expect(await ids({ resourceId: '7' })).toEqual([at(2), at(1)]);
      expect(await ids({ action: 'create' })).toEqual([at(1)]);
      expect(await ids({ actor: 'key-2' })).toEqual([at(2)]);
      expect(await ids({ requestId: 'req-a' })).toEqual([at(1)]);
      expect(await ids({ from: at(2), to: at(3) })).toEqual([at(2)]);
    });

    it("answers the org's own resources only on the org's read", async () => {
      const page = await bed.auditLog.list({ orgId: 'org-b' }, {}, {});
      expect(page.items.map((e) => [e.resourceType, e.accountId])).toEqual([['media-channel', null]]);
    });

    it('refuses a bad filter naming the parameter', async () => {
      expect(await rejectionOf(bed.auditLog.list({ accountId: 50 }, { action: 'rename', from: 'yesterday' }, {}))).toMatchObject({
        status: 400,
        errors: [expect.objectContaining({ parameter: 'action' }), expect.objectContaining({ parameter: 'from' })],
      });
    });
  });
});
