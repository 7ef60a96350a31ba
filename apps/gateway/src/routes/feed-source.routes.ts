import { Readable } from 'node:stream';
import { Type, type Static } from '@sinclair/typebox';
import { stringify } from 'csv-stringify';
import {
  ASSET_SOURCES_ACCESS,
  FEED_ADDITIONAL_PARAMS_MAX,
  FEED_CHARACTER_ENCODINGS,
  FEED_CONFIG_MAX_BYTES,
  FEED_CONFIG_PATH_MAX,
  FEED_CSV_FIELD_POSITION_MAX,
  INT32_MAX,
  FEED_CONTENT_TYPES,
  FEED_CREDENTIAL_MAX,
  FEED_CSV_SEPARATORS,
  FEED_CUSTOM_CODE_MAX,
  FEED_FILE_ID_MAX,
  FEED_FREQUENCIES,
  FEED_HTTP_METHODS,
  FEED_MISSING_ROW_POLICIES,
  FEED_PRIVATE_KEY_MAX,
  FEED_S3_ENDPOINT_MAX,
  FEED_RUN_STATUSES,
  FEED_RUNS_KEPT,
  FEED_RUN_TRIGGERS,
  FEED_S3_REGION_PATTERN,
  FEED_SSH_FINGERPRINT_PATTERN,
  FEED_REPORT_PAGE_ROWS,
  FEED_SHRINK_GUARD_DEFAULT_PERCENT,
  FEED_URL_MAX,
  FEED_URL_TYPES,
  type FeedRunStatus,
  type FeedRunTrigger,
} from '@contracts/domain';
import type { assetSourcesV1 as v1 } from '@contracts/proto';
import { sourceDefinitionMembers } from './asset-source.routes';
import { PageQuery } from '../http/pagination';
import { AccountId, BoundedString, Int32, Int64, Nullable, PageLinksSchema, PathParams, StringEnum } from './common.schemas';
import { defineRoute } from './route.types';
import { neutraliseCell } from './tagging.routes';

const TAG = 'asset sources';

const AccountPath = PathParams({ accountId: AccountId });
const FeedPath = PathParams({ accountId: AccountId, assetSourceId: Int64({ minimum: 1, description: 'The feed source' }) });
const RunPath = PathParams({
  accountId: AccountId,
  queueId: BoundedString(64, {
    minLength: 1,
    pattern: '^[A-Za-z0-9_-]+$',
    description: 'The queue id of a feed run (answered by create and update, or shown on the source)',
  }),
});

const Secret = (max: number, description: string) =>
  Type.Optional(BoundedString(max, { description: `${description} Write-only: sealed at rest, never answered.` }));
const UrlConfig = Type.Object(
  {
    additionalParams: Type.Optional(BoundedString(FEED_ADDITIONAL_PARAMS_MAX, { description: 'http, https: query string (GET) or form body (POST).' })),
    httpMethod: Type.Optional(StringEnum(FEED_HTTP_METHODS, { description: 'http, https: GET (default) or POST.' })),
    username: Secret(FEED_CREDENTIAL_MAX, 'http, https (basic auth), ftp, sftp.'),
    password: Secret(FEED_CREDENTIAL_MAX, 'http, https (basic auth), ftp, sftp.'),
    accessKey: Secret(FEED_CREDENTIAL_MAX, 'objstore.'),
    secretKey: Secret(FEED_CREDENTIAL_MAX, 'objstore.'),
    portNumber: Type.Optional(Int32({ minimum: 1, maximum: 65_535, description: 'sftp (default 22).' })),
    privateKey: Secret(FEED_PRIVATE_KEY_MAX, 'sftp: a PEM or OpenSSH private key.'),
    hostKeyFingerprint: Type.Optional(
      Type.String({
        maxLength: 50,
        pattern: FEED_SSH_FINGERPRINT_PATTERN,
        description:
          "sftp (extension): the fingerprint the server's host key must have, as ssh-keygen -lf prints it (SHA256:...). Not given, the first run pins the key it meets; " +
          'a server presenting another key is then refused before any credential is sent (FEED_REFUSED).',
      }),
    ),
    endpoint: Type.Optional(
      BoundedString(FEED_S3_ENDPOINT_MAX, {
        description:
          'objstore (extension), with an s3://<bucket>/<key> url: the base URL of the S3-compatible server it is on, http(s)://host[:port] (default AWS S3).',
      }),
    ),
    region: Type.Optional(
      Type.String({
        maxLength: 63,
        pattern: FEED_S3_REGION_PATTERN,
        description: 'objstore (extension): the region requests are signed for (default: the one an AWS S3 host names, else us-east-1).',
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      'Depends on urlType: http and https take additionalParams, httpMethod, username and password; ftp username and password; objstore accessKey and secretKey (both required), endpoint and region; ' +
      'sftp portNumber, privateKey, username (required), password (a privateKey or a password is required) and hostKeyFingerprint. A member of another urlType is 400. ' +
      'On update a secret member left out keeps its stored value while the feed stays with the same urlType and server (host and port; for objstore the S3 endpoint and the bucket); for another server it must be given again.',
  },
);

/** The members of process (36) that a create or update carries too. */
export const feedReadMembers = {
  url: Type.Optional(
    BoundedString(FEED_URL_MAX, {
      description:
        'Where the feed is, with the scheme of urlType (objstore: s3://bucket/key or an http(s) URL). Not needed with fileId. ' +
        'A gzip-compressed feed (a .gz export) or a zip archive of one file (a .zip export) is read as the feed it holds; ' +
        'a zip of several files or an HTML page is refused as FEED_NOT_A_FEED.',
    }),
  ),
  urlType: StringEnum(FEED_URL_TYPES),
  urlConfig: Type.Optional(UrlConfig),
  customCode: Type.Optional(
    Nullable(
      BoundedString(FEED_CUSTOM_CODE_MAX, { description: 'JavaScript that transforms each row, run in a sandbox; must not be empty when cdp is true.' }),
    ),
  ),
  firstRowIsHeader: Type.Optional(Type.Boolean({ description: 'csv: the first row names the columns (default true).' })),
  characterEncoding: Type.Optional(StringEnum(FEED_CHARACTER_ENCODINGS, { description: 'Default UTF_8; a BOM is honoured.' })),
  csvSeparator: Type.Optional(StringEnum(FEED_CSV_SEPARATORS, { description: 'csv: default auto.' })),
  contentType: StringEnum(FEED_CONTENT_TYPES),
  cdp: Type.Optional(Type.Boolean({ description: 'Run customCode over each row (default false).' })),
  fileId: Type.Optional(
    Nullable(BoundedString(FEED_FILE_ID_MAX, { description: "A file of the account's asset library read instead of url; empty for none." })),
  ),
};

const scheduleMembers = {
  isScheduled: Type.Optional(Type.Boolean({ description: 'Fetch the feed again on a schedule (default false); frequency and startTime are then required.' })),
  frequency: Type.Optional(
    Nullable(
      StringEnum(FEED_FREQUENCIES, {
        description: 'HOURLY runs at the startTime minute of every hour; DAILY at startTime; WEEKLY at startTime on the weekday of its first run.',
      }),
    ),
  ),
  startTime: Type.Optional(
    Nullable(BoundedString(5, { pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: 'hh:mm in US Eastern time (daylight saving time followed).' })),
  ),
  endDate: Type.Optional(
    Nullable(
      BoundedString(10, {
        pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$',
        description:
          'yyyy-mm-dd (US Eastern): no scheduled run starts after this day. A scheduled feed must have a run left before it (400 OUT_OF_RANGE otherwise); to end a schedule, set isScheduled false.',
      }),
    ),
  ),
};

const policyMembers = {
  missingRowPolicy: Type.Optional(
    StringEnum(FEED_MISSING_ROW_POLICIES, {
      description:
        'Extension. A row whose key is gone from a new version: delete (default) drops it, disable keeps it aside (never served or mapped; restored when the key returns), keep keeps serving it. ' +
        'Applies to sources with an assetKeyColumn. Left out on update: unchanged.',
    }),
  ),
  shrinkGuardPercent: Type.Optional(
    Int32({
      minimum: 0,
      maximum: 100,
      description: `Extension. A new version with more than this share fewer rows than those serving, or with none, is held (the old rows keep serving) until confirmed; under missingRowPolicy keep only an empty one (the rows it lacks keep serving). Default ${FEED_SHRINK_GUARD_DEFAULT_PERCENT}; left out on update: unchanged.`,
    }),
  ),
};

/** A feed path (xml: a leaf or attribute under the row, or the row element itself; json: a dotted key). */
const FeedConfigPath = BoundedString(FEED_CONFIG_PATH_MAX);
/**
 * The config object process answered, handed back as it came: each member typed as process answers it,
 * so a hand-edited one is refused here naming the member rather than read wrong (every cell empty) or
 * failing the run.
 */
const FeedConfig = Type.Object(
  {
    rootIsObject: Type.Optional(Type.Boolean()),
    rowXPath: Type.Optional(FeedConfigPath),
    xpathMap: Type.Optional(Type.Record(Type.String(), FeedConfigPath, { additionalProperties: false, description: 'Column -> its path (xml, json).' })),
    csvColumns: Type.Optional(
      Type.Record(Type.String(), Int32({ minimum: 0, maximum: FEED_CSV_FIELD_POSITION_MAX }), {
        additionalProperties: false,
        description: 'csv: column -> field position (0-based); with a header row each column is read by its name there, without one by its position.',
      }),
    ),
    memPerRow: Type.Optional(Int32({ minimum: 0, maximum: INT32_MAX })),
    estRowsPerChunk: Type.Optional(Int32({ minimum: 0, maximum: INT32_MAX })),
    oneRowPerObject: Type.Optional(Type.Boolean()),
    rootIsArray: Type.Optional(Type.Boolean()),
    cdp: Type.Optional(Type.Boolean()),
    fileId: Type.Optional(BoundedString(FEED_FILE_ID_MAX)),
    cdpXpathMap: Type.Optional(
      Type.Record(Type.String(), FeedConfigPath, { additionalProperties: false, description: 'cdp: the columns customCode produced.' }),
    ),
  },
  {
    additionalProperties: false,
    'x-maxBytes': FEED_CONFIG_MAX_BYTES,
    description:
      'The config object process answered (rootIsObject, rowXPath, xpathMap, csvColumns, memPerRow, estRowsPerChunk, oneRowPerObject, rootIsArray, cdp, fileId, cdpXpathMap), ' +
      `as it answered it, at most ${FEED_CONFIG_MAX_BYTES} bytes serialized. Every columnNames entry must be a column it names.`,
  },
);
const DirectBody = Type.Object({ ...sourceDefinitionMembers, ...feedReadMembers, ...scheduleMembers, ...policyMembers }, { additionalProperties: false });
const FromProcessBody = Type.Object(
  { ...sourceDefinitionMembers, ...feedReadMembers, feedConfig: FeedConfig, ...scheduleMembers, ...policyMembers },
  { additionalProperties: false },
);
const UpdateBody = Type.Object(
  { ...sourceDefinitionMembers, ...feedReadMembers, feedConfig: Type.Optional(FeedConfig), ...scheduleMembers, ...policyMembers },
  { additionalProperties: false },
);

const Queued = Type.Object({
  id: Type.Integer({ description: 'The asset source id.' }),
  msg: Type.String(),
  queueId: Type.String({ description: 'The ingestion run: GET /v2/queues/:queueId shows its progress and end; the run extension its health report.' }),
});

const RunSchema = Type.Object({
  queueId: Type.String(),
  assetSourceId: Type.Integer(),
  trigger: StringEnum(FEED_RUN_TRIGGERS),
  status: StringEnum(FEED_RUN_STATUSES, {
    description:
      'Skipped: a scheduled run found the feed unchanged. Held: the shrink guard holds the version. Cancelled: the owner cancelled the run, or discarded the version it held. ' +
      'The queue shows Completed for Completed and Skipped, Failed for Held, Failed and Cancelled.',
  }),
  message: Type.String(),
  rows: Type.Integer({ description: 'Rows the feed held, rejected ones included.' }),
  rowsStored: Type.Integer(),
  duplicateKeys: Type.Integer({ description: 'Rows whose key (and variant) an earlier row had; stored, and listed in the report.' }),
  emptyKeys: Type.Integer({ description: 'Rows without a value in the asset key column; stored, and listed in the report.' }),
  rejectedRows: Type.Integer({ description: 'Rows not stored, each listed in the report with its line and reason.' }),
  createdTime: Type.String({ format: 'date-time' }),
  finishedTime: Nullable(Type.String({ format: 'date-time' })),
  cancelRequestedTime: Nullable(
    Type.String({ format: 'date-time', description: 'When the run was cancelled (extension): by its owner, or by an update of the settings (supersededBy).' }),
  ),
  supersededBy: Nullable(
    Type.String({
      description:
        'The queue id of the run of the settings update that cancelled this run before it was served; null when it was not, or its owner cancelled it.',
    }),
  ),
});

const EXAMPLE_QUEUE_ID = '5f0c6f9e-2b1a-4c39-9d7e-0a4b8f3c2d11';
const EXAMPLE_FEED = {
  assetSourceName: 'Retailer products',
  url: 'https://feeds.example.com/products.csv',
  urlType: 'https' as const,
  urlConfig: { httpMethod: 'GET' as const, username: '<USERNAME>', password: '<PASSWORD>' },
  firstRowIsHeader: true,
  characterEncoding: 'UTF_8' as const,
  csvSeparator: 'comma' as const,
  contentType: 'csv' as const,
  cdp: false,
  columnNames: ['sku', 'name', 'price', 'category'],
  assetKeyColumn: 'sku',
  assetGroupColumn: 'category',
  reportingColumn: 'name',
  isScheduled: true,
  frequency: 'DAILY' as const,
  startTime: '06:00',
  endDate: '2027-12-31',
  missingRowPolicy: 'disable' as const,
};
const EXAMPLE_CONFIG = {
  rootIsObject: false,
  rowXPath: '',
  xpathMap: {},
  csvColumns: { sku: 0, name: 1, price: 2, category: 3 },
  memPerRow: 96,
  estRowsPerChunk: 10_000,
  oneRowPerObject: false,
  rootIsArray: false,
  cdp: false,
  fileId: '',
  cdpXpathMap: {},
};

type FeedBody = Static<typeof UpdateBody>;

/** What create and update send: every member, urlConfig's secrets included (the service seals them), feedConfig as JSON text. */
function feedFieldsOf(body: FeedBody): v1.FeedSourceFields {
  const c = body.urlConfig ?? {};
  return {
    assetSourceName: body.assetSourceName,
    columnNames: body.columnNames,
    columns: {
      assetKeyColumn: body.assetKeyColumn ?? undefined,
      assetVariantColumn: body.assetVariantColumn ?? undefined,
      assetGroupColumn: body.assetGroupColumn ?? undefined,
      reportingColumn: body.reportingColumn ?? undefined,
      rotationWeightColumn: body.rotationWeightColumn ?? undefined,
    },
    urlType: body.urlType,
    url: body.url ?? '',
    urlConfig: c,
    customCode: body.customCode ?? undefined,
    firstRowIsHeader: body.firstRowIsHeader ?? true,
    characterEncoding: body.characterEncoding ?? 'UTF_8',
    csvSeparator: body.csvSeparator ?? 'auto',
    contentType: body.contentType,
    cdp: body.cdp ?? false,
    fileId: body.fileId || undefined,
    feedConfigJson: body.feedConfig === undefined ? undefined : JSON.stringify(body.feedConfig),
    isScheduled: body.isScheduled ?? false,
    frequency: body.frequency ?? undefined,
    startTime: body.startTime ?? undefined,
    endDate: body.endDate ?? undefined,
    missingRowPolicy: body.missingRowPolicy,
    shrinkGuardPercent: body.shrinkGuardPercent,
  };
}

const FEED_RULES =
  'The key, variant, group, reporting and rotation-weight columns must be among columnNames; urlConfig must carry what urlType needs; customCode must not be empty when cdp is true; ' +
  'a scheduled feed needs frequency and startTime, and a run left before its endDate. Each broken rule is 400 naming the field, and nothing is stored. ' +
  'The feed is then read by an ingestion job (queueId): the whole feed is streamed into the source, and its rows replace the old ones in one step only when it parsed to its end; ' +
  'a feed that cannot be read or breaks part-way leaves the old rows serving, and the queue says why. A special column the feed never carries fails the run.';

const FEED_CREATE_PROBLEMS = ['ASSET_SOURCE_IN_USE'] as const;
/** Every operation that queues an ingestion: the account's cap on feed runs queued or running at once. */
const FEED_RUN_PROBLEMS = ['JOB_LIMIT_REACHED'] as const;

/** What a refresh answers, by what it did (asset-sources' outcome). */
const REFRESH_MESSAGES: Record<string, string> = {
  queued: 'The feed is queued for ingestion.',
  joined: 'A run of this feed is already queued; it reads the feed as it is when it starts.',
  'read-now': 'The run waiting to read this feed again reads it now.',
};

/** Feed sources: create from process output (37), create directly (38), update (39), and the run, report and confirm extensions. */
export const feedSourceRoutes = [
  defineRoute({
    operationId: 'createFeedAssetSourceFromProcess',
    method: 'post',
    path: '/v2/accounts/:accountId/asset-sources/feed',
    tag: TAG,
    summary: 'Create a feed source from the output of process',
    description: `The body of process plus its config as feedConfig: every columnNames entry must be a column feedConfig names. ${FEED_RULES} Answers the run's queueId too (an extension member).`,
    permission: ASSET_SOURCES_ACCESS.createFeedSource,
    scope: { account: 'accountId' },
    params: AccountPath,
    body: FromProcessBody,
    success: { status: 201, description: 'Created; the first ingestion is queued', schema: Queued },
    problems: [...FEED_RUN_PROBLEMS],
    example: {
      params: { accountId: 1001 },
      request: { ...EXAMPLE_FEED, feedConfig: EXAMPLE_CONFIG },
      response: { id: 46, msg: 'Feed asset source created; its ingestion is queued.', queueId: EXAMPLE_QUEUE_ID },
    },
    async handle({ params, body, backends }) {
      const result = await backends.assetSources.createFeedSource({ accountId: params.accountId, fields: feedFieldsOf(body) });
      return { status: 201, body: { id: result.assetSourceId, msg: 'Feed asset source created; its ingestion is queued.', queueId: result.queueId } };
    },
  }),

  defineRoute({
    operationId: 'createFeedAssetSource',
    method: 'post',
    path: '/v2/accounts/:accountId/asset-sources/feed/create',
    tag: TAG,
    summary: 'Create a feed source directly',
    description: `Without process: the reader detects what it needs from the head of the feed. ${FEED_RULES}`,
    permission: ASSET_SOURCES_ACCESS.createFeedSource,
    scope: { account: 'accountId' },
    params: AccountPath,
    body: DirectBody,
    success: { status: 201, description: 'Created; the first ingestion is queued', schema: Queued },
    problems: [...FEED_RUN_PROBLEMS],
    example: {
      params: { accountId: 1001 },
      request: EXAMPLE_FEED,
      response: { id: 46, msg: 'Feed asset source created; its ingestion is queued.', queueId: EXAMPLE_QUEUE_ID },
    },
    async handle({ params, body, backends }) {
      const result = await backends.assetSources.createFeedSource({ accountId: params.accountId, fields: feedFieldsOf(body) });
      return { status: 201, body: { id: result.assetSourceId, msg: 'Feed asset source created; its ingestion is queued.', queueId: result.queueId } };
    },
  }),

  defineRoute({
    operationId: 'updateFeedAssetSource',
    method: 'put',
    path: '/v2/accounts/:accountId/asset-sources/feed/:assetSourceId',
    tag: TAG,
    summary: 'Update a feed source',
    description:
      `Every member as on create; feedConfig is optional, and without it the stored one stays while contentType does. an ingestion with the new settings is queued, and the old rows serve until it swaps its version in. ` +
      "While a version serves, the source's columns and special columns stay those of its rows (their keys were read with its assetKeyColumn): " +
      "new ones show as feed.pendingColumns in the detail and become the source's with the first version read into them that is served. " +
      "The source's run still queued is superseded, and its running run too when the update changes what a run reads (the location, a credential, the format, " +
      'the policies or the columns; not the name or the schedule): they end Cancelled, nothing they read served, naming this run (supersededBy). A running run left alone is waited for. ' +
      `${FEED_RULES} ` +
      'A source of another kind is 409; a change that drops a column a recommendation source maps is 409 ASSET_SOURCE_IN_USE.',
    permission: ASSET_SOURCES_ACCESS.replaceFeedSource,
    scope: { account: 'accountId' },
    params: FeedPath,
    body: UpdateBody,
    success: { status: 200, description: 'Updated; an ingestion is queued', schema: Queued },
    problems: ['ASSET_SOURCE_NOT_FOUND', 'ASSET_SOURCE_KIND_MISMATCH', ...FEED_CREATE_PROBLEMS, ...FEED_RUN_PROBLEMS],
    example: {
      params: { accountId: 1001, assetSourceId: 46 },
      request: EXAMPLE_FEED,
      response: { id: 46, msg: 'Feed asset source updated; its ingestion is queued.', queueId: EXAMPLE_QUEUE_ID },
    },
    async handle({ params, body, backends }) {
      const result = await backends.assetSources.replaceFeedSource({
        accountId: params.accountId,
        assetSourceId: params.assetSourceId,
        fields: feedFieldsOf(body),
      });
      return { body: { id: result.assetSourceId, msg: 'Feed asset source updated; its ingestion is queued.', queueId: result.queueId } };
    },
  }),

  defineRoute({
    operationId: 'refreshFeedSource',
    method: 'post',
    path: '/v2/accounts/:accountId/asset-sources/feed/:assetSourceId/refresh',
    tag: TAG,
    summary: 'Fetch and ingest a feed source now',
    description:
      "Queues an ingestion run of the stored settings at once, as an update with them would (the run's trigger is refresh): for a feed its owner knows changed, without waiting for the schedule " +
      'or sending every setting again. Read and swapped in even when the feed is unchanged; the shrink guard and missingRowPolicy apply as to any run. ' +
      'While a run of the source is still queued, that run is answered (it reads the feed as it is when it starts); so is a run waiting to read the feed again after a failure ' +
      '(its host unreachable, quiet or answering 5xx), which then reads at once; a run under way is waited for. msg says which.',
    permission: ASSET_SOURCES_ACCESS.refreshFeedSource,
    scope: { account: 'accountId' },
    extension: true,
    params: FeedPath,
    success: { status: 200, description: 'An ingestion is queued', schema: Type.Object({ msg: Type.String(), queueId: Type.String() }) },
    problems: ['ASSET_SOURCE_NOT_FOUND', 'ASSET_SOURCE_KIND_MISMATCH', ...FEED_RUN_PROBLEMS],
    example: {
      params: { accountId: 1001, assetSourceId: 46 },
      response: { msg: 'The feed is queued for ingestion.', queueId: EXAMPLE_QUEUE_ID },
    },
    async handle({ params, backends }) {
      const result = await backends.assetSources.refreshFeedSource({ accountId: params.accountId, assetSourceId: params.assetSourceId });
      return { body: { msg: REFRESH_MESSAGES[result.outcome] ?? REFRESH_MESSAGES.queued, queueId: result.queueId } };
    },
  }),

  defineRoute({
    operationId: 'confirmFeedVersion',
    method: 'post',
    path: '/v2/accounts/:accountId/asset-sources/feed/:assetSourceId/confirm',
    tag: TAG,
    summary: 'Serve the feed version the shrink guard holds',
    description:
      'The shrink guard holds a new version that lost more than shrinkGuardPercent of the rows serving, or came back empty, and keeps the old rows serving (the source detail shows feed.held, the run ends Held). ' +
      'This serves the held version, in one step, applying missingRowPolicy. 409 FEED_NOTHING_HELD when no version is held, or a newer run replaced the one held meanwhile. ' +
      'The run\'s queue keeps the ending it had (Failed, "Held: ..."; a job ends once): the run (GET .../asset-sources/feed/runs/:queueId) reads Completed, "Confirmed by the owner: ...", and the detail\'s rowCount counts the rows now serving.',
    permission: ASSET_SOURCES_ACCESS.confirmFeedVersion,
    scope: { account: 'accountId' },
    extension: true,
    params: FeedPath,
    success: {
      status: 200,
      description: 'The held version serves',
      schema: Type.Object({ msg: Type.String(), queueId: Type.String(), rowCount: Type.Integer({ description: 'Rows serving now.' }) }),
    },
    problems: ['ASSET_SOURCE_NOT_FOUND', 'ASSET_SOURCE_KIND_MISMATCH', 'FEED_NOTHING_HELD'],
    example: {
      params: { accountId: 1001, assetSourceId: 46 },
      response: { msg: 'The held feed version is serving.', queueId: EXAMPLE_QUEUE_ID, rowCount: 12 },
    },
    async handle({ params, backends }) {
      const result = await backends.assetSources.confirmFeedVersion({ accountId: params.accountId, assetSourceId: params.assetSourceId });
      return { body: { msg: 'The held feed version is serving.', queueId: result.queueId, rowCount: result.rowCount } };
    },
  }),

  defineRoute({
    operationId: 'listFeedRuns',
    method: 'get',
    path: '/v2/accounts/:accountId/asset-sources/feed/:assetSourceId/runs',
    tag: TAG,
    summary: "List a feed source's ingestion runs",
    description:
      'Newest first: the runs of create, update and the schedule, each with its queue id, state, message and health counts. ' +
      'A scheduled run is found here (its queue id is not answered to anyone): Skipped when the feed was unchanged, Failed with the reason when it could not be read. ' +
      `The newest ${FEED_RUNS_KEPT} runs are kept with their reports (and always the run serving, the run held and any run under way); older ones are dropped as runs end.`,
    permission: ASSET_SOURCES_ACCESS.listFeedRuns,
    scope: { account: 'accountId' },
    extension: true,
    params: FeedPath,
    query: PageQuery,
    success: {
      status: 200,
      description: 'A page of runs',
      schema: Type.Object({ runs: Type.Array(RunSchema), total: Type.Integer({ description: 'Runs of the source in all.' }), ...PageLinksSchema }),
    },
    problems: ['ASSET_SOURCE_NOT_FOUND', 'ASSET_SOURCE_KIND_MISMATCH'],
    example: {
      params: { accountId: 1001, assetSourceId: 46 },
      query: { offset: 0, limit: 1 },
      response: {
        runs: [
          {
            queueId: EXAMPLE_QUEUE_ID,
            assetSourceId: 46,
            trigger: 'schedule',
            status: 'Skipped',
            message: 'Skipped: the feed is unchanged (ETag).',
            rows: 0,
            rowsStored: 0,
            duplicateKeys: 0,
            emptyKeys: 0,
            rejectedRows: 0,
            createdTime: '2026-03-02T11:00:00.000Z',
            finishedTime: '2026-03-02T11:00:01.000Z',
            cancelRequestedTime: null,
            supersededBy: null,
          },
        ],
        total: 2,
        next: 'https://api.example.com/v2/accounts/1001/asset-sources/feed/46/runs?offset=1&limit=1',
        previous: null,
      },
    },
    async handle({ params, query, backends, links }) {
      const result = await backends.assetSources.listFeedRuns({ accountId: params.accountId, assetSourceId: params.assetSourceId, page: query });
      return { body: { runs: result.runs.map(presentRun), total: result.total, ...links({ ...query, total: result.total }) } };
    },
  }),

  defineRoute({
    operationId: 'listFeedDisabledRows',
    method: 'get',
    path: '/v2/accounts/:accountId/asset-sources/feed/:assetSourceId/disabled-rows',
    tag: TAG,
    summary: 'List the rows a feed source holds aside',
    description:
      'Under missingRowPolicy disable, a row whose key a new version of the feed lacks is held aside: never served or mapped, and dropped from here when its key returns. ' +
      'By key, each with when it was set aside and its values as last served; `total` is the count the detail shows as feed.disabledRows.',
    permission: ASSET_SOURCES_ACCESS.listFeedDisabledRows,
    scope: { account: 'accountId' },
    extension: true,
    params: FeedPath,
    query: PageQuery,
    success: {
      status: 200,
      description: 'A page of the rows held aside',
      schema: Type.Object({
        rows: Type.Array(
          Type.Object({
            key: Type.String({ description: 'The value of the asset key column.' }),
            disabledTime: Type.String({ description: 'When the row was last set aside (UTC).' }),
            data: Type.Record(Type.String(), Type.Unknown(), { description: 'The row as it was last served, keyed by column name.' }),
          }),
        ),
        total: Type.Integer({ description: 'Rows held aside in all.' }),
        ...PageLinksSchema,
      }),
    },
    problems: ['ASSET_SOURCE_NOT_FOUND', 'ASSET_SOURCE_KIND_MISMATCH'],
    example: {
      params: { accountId: 1001, assetSourceId: 46 },
      query: { offset: 0, limit: 1 },
      response: {
        rows: [{ key: 'SKU-1042', disabledTime: '2026-03-02T11:00:01.000Z', data: { sku: 'SKU-1042', name: 'Linen shirt', price: '39.00' } }],
        total: 2,
        next: 'https://api.example.com/v2/accounts/1001/asset-sources/feed/46/disabled-rows?offset=1&limit=1',
        previous: null,
      },
    },
    async handle({ params, query, backends, links }) {
      const result = await backends.assetSources.listFeedDisabledRows({ accountId: params.accountId, assetSourceId: params.assetSourceId, page: query });
      const rows = result.rows.map((row) => ({ key: row.keyValue, disabledTime: row.disabledTime, data: JSON.parse(row.rowJson) as Record<string, unknown> }));
      return { body: { rows, total: result.total, ...links({ ...query, total: result.total }) } };
    },
  }),

  defineRoute({
    operationId: 'cancelFeedRun',
    method: 'post',
    path: '/v2/accounts/:accountId/asset-sources/feed/runs/:queueId/cancel',
    tag: TAG,
    summary: 'Cancel a feed ingestion run, or discard the version it holds',
    description:
      'A queued run ends Cancelled at once (its queue Failed). A running run stops within about a second: its transfer and parsing end, nothing it read is served, and it ends Cancelled; ' +
      'the answer shows it still Processing with cancelRequestedTime set, and no later end of it can be anything but Cancelled. ' +
      'A run whose version the shrink guard holds (Held) has that version discarded: its rows are dropped and the source holds nothing. ' +
      'The rows already serving are unchanged in every case. 409 FEED_RUN_ENDED when the run has already ended (Completed, Skipped, Failed or Cancelled).',
    permission: ASSET_SOURCES_ACCESS.cancelFeedRun,
    scope: { account: 'accountId' },
    extension: true,
    params: RunPath,
    success: { status: 200, description: 'The run, as it stands after the cancel', schema: RunSchema },
    problems: ['FEED_RUN_NOT_FOUND', 'FEED_RUN_ENDED'],
    example: {
      params: { accountId: 1001, queueId: EXAMPLE_QUEUE_ID },
      response: {
        queueId: EXAMPLE_QUEUE_ID,
        assetSourceId: 46,
        trigger: 'refresh',
        status: 'Processing',
        message: 'Processing',
        rows: 0,
        rowsStored: 0,
        duplicateKeys: 0,
        emptyKeys: 0,
        rejectedRows: 0,
        createdTime: '2026-03-01T06:00:00.000Z',
        finishedTime: null,
        cancelRequestedTime: '2026-03-01T06:00:03.000Z',
        supersededBy: null,
      },
    },
    async handle({ params, backends }) {
      const { run } = await backends.assetSources.cancelFeedRun({ accountId: params.accountId, queueId: params.queueId });
      return { body: presentRun(run as v1.FeedRun) };
    },
  }),

  defineRoute({
    operationId: 'getFeedRun',
    method: 'get',
    path: '/v2/accounts/:accountId/asset-sources/feed/runs/:queueId',
    tag: TAG,
    summary: 'Read a feed ingestion run and its health counts',
    description:
      "The run's state and its health: rows, rows stored, duplicate keys, empty keys and rejected rows. Every entry, with its line and reason, is in the report (CSV).",
    permission: ASSET_SOURCES_ACCESS.listFeedReport,
    scope: { account: 'accountId' },
    extension: true,
    params: RunPath,
    success: { status: 200, description: 'The run', schema: RunSchema },
    problems: ['FEED_RUN_NOT_FOUND'],
    example: {
      params: { accountId: 1001, queueId: EXAMPLE_QUEUE_ID },
      response: {
        queueId: EXAMPLE_QUEUE_ID,
        assetSourceId: 46,
        trigger: 'create',
        status: 'Completed',
        message: 'Completed: 998 rows serving, 1000 read, 2 rejected.',
        rows: 1000,
        rowsStored: 998,
        duplicateKeys: 0,
        emptyKeys: 0,
        rejectedRows: 2,
        createdTime: '2026-03-01T06:00:00.000Z',
        finishedTime: '2026-03-01T06:00:04.000Z',
        cancelRequestedTime: null,
        supersededBy: null,
      },
    },
    async handle({ params, backends }) {
      const { run } = await backends.assetSources.listFeedReport({ accountId: params.accountId, queueId: params.queueId, afterLine: 0, afterSeq: 0, limit: 1 });
      return { body: presentRun(run as v1.FeedRun) };
    },
  }),

  defineRoute({
    operationId: 'downloadFeedReport',
    method: 'get',
    path: '/v2/accounts/:accountId/asset-sources/feed/runs/:queueId/report',
    tag: TAG,
    summary: 'Download the health report of a feed run as CSV',
    description:
      'Content type text/csv; every entry of the run, uncapped, in feed order: line (1-based, where the row starts), kind (rejected, duplicate-key or empty-key), key and reason. ' +
      "RFC 4180 quoting; a cell starting with = + - @ (or tab, CR) is prefixed with ' so a spreadsheet does not run it. The rows stream as they are read.",
    permission: ASSET_SOURCES_ACCESS.listFeedReport,
    scope: { account: 'accountId' },
    extension: true,
    params: RunPath,
    success: { status: 200, description: 'The report', mediaType: 'text/csv' },
    problems: ['FEED_RUN_NOT_FOUND'],
    example: { params: { accountId: 1001, queueId: EXAMPLE_QUEUE_ID } },
    async handle({ params, backends }) {
      const page = (afterLine: number, afterSeq: number) =>
        backends.assetSources.listFeedReport({ accountId: params.accountId, queueId: params.queueId, afterLine, afterSeq, limit: FEED_REPORT_PAGE_ROWS });
      // The first page answers the 404 while a problem can still be sent.
      const first = await page(0, 0);
      async function* rows() {
        let current = first;
        for (;;) {
          for (const e of current.entries) yield [String(e.line), e.kind, e.keyValue ?? '', e.reason];
          if (current.entries.length < FEED_REPORT_PAGE_ROWS) return;
          const last = current.entries[current.entries.length - 1];
          current = await page(last.line, last.seq);
        }
      }
      const csv = stringify({ header: true, columns: ['line', 'kind', 'key', 'reason'], cast: { string: neutraliseCell } });
      const source = Readable.from(rows());
      source.on('error', (error) => csv.destroy(error));
      return {
        headers: { 'Content-Disposition': `attachment; filename="feed-run-${params.queueId}-report.csv"`, 'Cache-Control': 'no-store' },
        stream: source.pipe(csv),
      };
    },
  }),
];

function presentRun(run: v1.FeedRun) {
  return {
    queueId: run.queueId,
    assetSourceId: run.assetSourceId,
    trigger: run.trigger as FeedRunTrigger,
    status: run.status as FeedRunStatus,
    message: run.message,
    rows: run.rowsRead,
    rowsStored: run.rowsStored,
    duplicateKeys: run.duplicateKeys,
    emptyKeys: run.emptyKeys,
    rejectedRows: run.rejectedRows,
    createdTime: run.createdTime,
    finishedTime: run.finishedTime ?? null,
    cancelRequestedTime: run.cancelRequestedTime ?? null,
    supersededBy: run.supersededBy ?? null,
  };
}
