import { randomBytes } from 'node:crypto';
import { connect, NatsConnection, StringCodec } from 'nats';
import { channelsPlansV1 as v1 } from '@contracts/proto';
import { AppError } from '@platform/errors';
import { callUnary, createGrpcClient, Metadata, Principal, principalMetadata } from '@platform/grpc';
import { createLogger } from '@platform/logging';
import { startGrpcService, type RunningGrpcService } from '@platform/service';
import { deletePrefixedStreams, dropPrefixedSchemas, uniquePrefix } from '@platform/testing';
import { loadChannelsPlansConfig } from './channels-plans.config';
import { channelsPlansService } from './channels-plans.module';

jest.setTimeout(60_000);

describe('channels-plans service over gRPC (real MariaDB and NATS)', () => {
  const prefix = uniquePrefix('cp');
  const principalKey = randomBytes(32);
  const env = { MYSQL_SCHEMA_PREFIX: prefix, NATS_PREFIX: prefix, GRPC_PORT: '0', INTERNAL_AUTH_KEY: principalKey.toString('hex'), NODE_ENV: 'test' as const };
  const logger = createLogger({ service: 'channels-plans-test', level: 'silent' });
  const principal: Principal = { keyId: 'k', orgId: 'acme', accountIds: [7], permissions: ['*'], org: { isRetailer: true, dimensionWhitelist: [] } };
  let module: RunningGrpcService;
  let client: v1.ChannelsPlansServiceClient;
  let nc: NatsConnection;

  const call = <Req, Res>(
    method: (r: Req, m: Metadata, o: { deadline: Date }, cb: (e: import('@grpc/grpc-js').ServiceError | null, r: Res) => void) => unknown,
    request: Req,
    metadata = principalMetadata(principal, principalKey),
  ) => callUnary(client, method, request, { metadata, deadlineMs: 5_000, target: 'channels-plans' });
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => {
        throw new Error('expected a failure');
      },
      (e: AppError) => e,
    );
  const channel = (name: string, adServerId = 'gam') => ({
    orgId: 'acme',
    name,
    adServerId,
    type: 'Off-site',
    activationConfiguration: { tagGeneration: true, creativeGeneration: true },
    additionalConfigurationJson: JSON.stringify({ k: 'v' }),
  });

  beforeAll(async () => {
    module = await startGrpcService(loadChannelsPlansConfig(env), logger, channelsPlansService);
    client = createGrpcClient(v1.ChannelsPlansServiceClient, `127.0.0.1:${module.grpcPort}`);
    nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
  });

  afterAll(async () => {
    client?.close();
    await nc?.close();
    await module?.drain();
    await module?.close();
    await Promise.all([dropPrefixedSchemas(prefix), deletePrefixedStreams(prefix)]);
  });

  describe('re-checks the principal itself', () => {
    it('refuses a call without a principal', async () => {
      const error = await failure(call(client.listMediaChannels, { orgId: 'acme', page: undefined }, new Metadata()));
      expect(error).toMatchObject({ status: 401, code: 'PRINCIPAL_MISSING' });
    });

    it('refuses a principal signed with another key', async () => {
      const error = await failure(call(client.listMediaChannels, { orgId: 'acme', page: undefined }, principalMetadata(principal, randomBytes(32))));
      expect(error).toMatchObject({ status: 401, code: 'PRINCIPAL_INVALID' });
    });

    it('refuses a principal without the permission, and another org as 404', async () => {
      const weak = principalMetadata({ ...principal, permissions: ['RetailCampaigns_View'] }, principalKey);
      expect(await failure(call(client.createMediaChannel, channel('x'), weak))).toMatchObject({
        status: 403,
        extensions: { requiredPermission: 'MediaChannel_All' },
      });
      expect(await failure(call(client.listMediaChannels, { orgId: 'other', page: undefined }))).toMatchObject({ status: 404, code: 'ORG_NOT_FOUND' });
      const outside = await failure(call(client.listRetailCampaigns, { accountId: 8, page: undefined }));
      expect(outside).toMatchObject({ status: 404, code: 'ACCOUNT_NOT_FOUND' });
    });
  });

  it('relays a media-channel event through the outbox to JetStream, without secrets', async () => {
    const sc = StringCodec();
    const received: { subject: string; data: Record<string, unknown> }[] = [];
    const sub = nc.subscribe(`${prefix}channels-plans.media-channel.>`, {
      callback: (_err, msg) => received.push({ subject: msg.subject, data: JSON.parse(sc.decode(msg.data)) }),
    });
    const { idx } = await call(client.createMediaChannel, channel('Evented', 'onsite-rm'));
    const deadline = Date.now() + 5_000;
    while (received.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    sub.unsubscribe();
    expect(received[0]).toEqual({
      subject: `${prefix}channels-plans.media-channel.created`,
      data: expect.objectContaining({ type: 'media-channel.created', orgId: 'acme', idx }),
    });
    const { apiKey } = await call(client.getAdServerConnection, { orgId: 'acme', adServerId: 'onsite-rm' });
    expect(JSON.stringify(received)).not.toContain(apiKey as string);
  });

  it('lets exactly one of two concurrent creates with the same name win', async () => {
    const results = await Promise.allSettled([call(client.createMediaChannel, channel('Race')), call(client.createMediaChannel, channel('Race'))]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(rejected.reason).toMatchObject({ status: 409, code: 'MEDIA_CHANNEL_NAME_TAKEN' });
  });

  it('stores the on-site API key sealed, not in clear text', async () => {
    const { apiKey } = await call(client.getAdServerConnection, { orgId: 'acme', adServerId: 'onsite-rm' });
    const mysql = await import('mysql2/promise');
    const connection = await mysql.createConnection({ uri: 'mysql://root@127.0.0.1:3306', database: `${prefix}channels_plans` });
    const [rows] = await connection.query<import('mysql2').RowDataPacket[]>('SELECT api_key_sealed FROM media_channels WHERE api_key_sealed IS NOT NULL');
    await connection.end();
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect((row.api_key_sealed as Buffer).toString('latin1')).not.toContain(apiKey as string);
  });

  it('answers a refused status move as a 409 problem across gRPC', async () => {
    const { retailCampaignId } = await call(client.createRetailCampaign, { accountId: 7, campaignName: 'Moves', isAdGroupCampaign: false, isSbt: false });
    const refused = await failure(call(client.updateRetailCampaign, { accountId: 7, retailCampaignId, status: 'PAUSED' }));
    expect(refused).toMatchObject({
      status: 409,
      code: 'RETAIL_CAMPAIGN_STATUS_TRANSITION_NOT_ALLOWED',
      detail: `Retail campaign ${retailCampaignId} is DRAFT; it cannot move to PAUSED. Allowed from DRAFT: ACTIVE.`,
    });
    await call(client.updateRetailCampaign, { accountId: 7, retailCampaignId, status: 'ACTIVE' });
    const { retailCampaign } = await call(client.getRetailCampaign, { accountId: 7, retailCampaignId });
    expect(retailCampaign?.status).toBe('ACTIVE');
  });

  it('starts again on the same schema: migrations and seed are idempotent', async () => {
    const second = await startGrpcService(loadChannelsPlansConfig(env), logger, channelsPlansService);
    try {
      const secondClient = createGrpcClient(v1.ChannelsPlansServiceClient, `127.0.0.1:${second.grpcPort}`);
      const listed = await callUnary(
        secondClient,
        secondClient.listAdServers,
        {},
        { metadata: principalMetadata(principal, principalKey), deadlineMs: 5_000, target: 'cp' },
      );
      secondClient.close();
      expect(listed.adServers).toHaveLength(9);
      expect(await second.ready()).toBe(true);
    } finally {
      await second.drain();
      await second.close();
    }
  });

  describe('peer methods: the signed principal and the account scope, no operation permission', () => {
    const planner = principalMetadata({ ...principal, accountIds: [7, 9], org: { isRetailer: true, dimensionWhitelist: ['300x250', '728x90'] } }, principalKey);
    /** A peer acting for a caller whose key holds no permission at all: the calling service checked its own. */
    const peer = (accountIds = [7, 9]) => principalMetadata({ ...principal, accountIds, permissions: [] }, principalKey);
    let retailCampaignId: number;
    let mediaPlanId: number;

    beforeAll(async () => {
      ({ retailCampaignId } = await call(client.createRetailCampaign, { accountId: 7, campaignName: 'Peers', isAdGroupCampaign: true, isSbt: true }, planner));
      await call(client.createAdGroup, { accountId: 7, retailCampaignId, adGroupName: 'Snacks' }, planner);
      const { idx } = await call(client.createMediaChannel, channel('Peer channel'), planner);
      ({ mediaPlanId } = await call(
        client.createAutoMediaPlan,
        { accountId: 7, retailCampaignId, mediaChannelIdx: idx, dimensions: ['728x90', '300x250'] },
        planner,
      ));
    });

    it('GetAdServerCatalog answers the catalog to any signed principal, without AdServers_View', async () => {
      const { adServers } = await call(client.getAdServerCatalog, {}, peer([]));
      expect(adServers.map((a) => a.adServerId)).toEqual(expect.arrayContaining(['onsite-rm', 'gam']));
      expect(await failure(call(client.listAdServers, {}, peer()))).toMatchObject({ status: 403 });
    });

    it('GetCampaignFacts answers the facts within the scope, and 404 outside the account or the scope', async () => {
      const facts = await call(client.getCampaignFacts, { accountId: 7, retailCampaignId }, peer());
      expect(facts).toEqual({
        retailCampaignId,
        campaignName: 'Peers',
        status: 'DRAFT',
        isAdGroupCampaign: true,
        isSbt: true,
        templateIdx: undefined,
        adGroups: [{ adGroupId: expect.any(Number), adGroupName: 'Snacks' }],
      });
      expect(await failure(call(client.getCampaignFacts, { accountId: 9, retailCampaignId }, peer()))).toMatchObject({
        status: 404,
        code: 'RETAIL_CAMPAIGN_NOT_FOUND',
      });
      expect(await failure(call(client.getCampaignFacts, { accountId: 7, retailCampaignId }, peer([9])))).toMatchObject({
        status: 404,
        code: 'ACCOUNT_NOT_FOUND',
      });
      expect(await failure(call(client.getCampaignFacts, { accountId: 7, retailCampaignId }, new Metadata()))).toMatchObject({ status: 401 });
    });

    it('ListPlanPlacements answers every placement with its ad server, and 404 for another account', async () => {
      const listed = await call(client.listPlanPlacements, { accountId: 7, mediaPlanId }, peer());
      expect(listed).toMatchObject({ mediaPlanId, retailCampaignId, mediaPlanName: 'Peers - Peer channel' });
      expect(listed.placements.map((p) => [p.dimension, p.adServerId, p.adServerName, p.adServerKind, p.adUnitType, p.paramsJson, p.isTagPresent])).toEqual([
        ['300x250', 'gam', 'Google Ad Manager', 'display', 'display', '{}', false],
        ['728x90', 'gam', 'Google Ad Manager', 'display', 'display', '{}', false],
      ]);
      expect(await failure(call(client.listPlanPlacements, { accountId: 9, mediaPlanId }, peer()))).toMatchObject({
        status: 404,
        code: 'MEDIA_PLAN_NOT_FOUND',
      });
      expect(await failure(call(client.listPlanPlacements, { accountId: 8, mediaPlanId }, peer()))).toMatchObject({ status: 404, code: 'ACCOUNT_NOT_FOUND' });
    });

    it('MarkTagsPresent marks idempotently, refuses an unknown id without marking anything, and shows in the plan read', async () => {
      const [first, second] = (await call(client.listPlanPlacements, { accountId: 7, mediaPlanId }, peer())).placements.map((p) => p.placementId);
      const unknown = await failure(call(client.markTagsPresent, { accountId: 7, mediaPlanId, placementIds: [first, second + 1000] }, peer()));
      expect(unknown).toMatchObject({ status: 404, code: 'PLACEMENT_NOT_FOUND' });
      expect(await failure(call(client.markTagsPresent, { accountId: 9, mediaPlanId, placementIds: [first] }, peer()))).toMatchObject({
        status: 404,
        code: 'MEDIA_PLAN_NOT_FOUND',
      });
      const tagged = async () => (await call(client.listPlanPlacements, { accountId: 7, mediaPlanId }, peer())).placements.map((p) => p.isTagPresent);
      expect(await tagged()).toEqual([false, false]);
      expect(await call(client.markTagsPresent, { accountId: 7, mediaPlanId, placementIds: [second] }, peer())).toEqual({ marked: 1 });
      expect(await call(client.markTagsPresent, { accountId: 7, mediaPlanId, placementIds: [second, second] }, peer())).toEqual({ marked: 1 });
      expect(await tagged()).toEqual([false, true]);
      const plan = await call(client.getMediaPlan, { accountId: 7, mediaPlanId, fields: [], page: undefined }, planner);
      expect(plan.adServers[0].placements.map((p) => p.isTagPresent)).toEqual([false, true]);
    });
  });
});
