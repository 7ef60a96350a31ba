import { Type, type Static } from '@sinclair/typebox';
import { ASSET_SOURCES_ACCESS } from '@contracts/domain';
import { AccountId, PathParams } from './common.schemas';
import { feedReadMembers } from './feed-source.routes';
import { defineRoute } from './route.types';

const ProcessBody = Type.Object(feedReadMembers, { additionalProperties: false });

const FeedConfigSchema = Type.Object(
  {
    rootIsObject: Type.Boolean({ description: 'json: the rows are an array under a key of a root object (rowXPath names it).' }),
    rowXPath: Type.String({ description: 'xml: the repeating row element (/rss/channel/item); json: the dotted key of the row array.' }),
    xpathMap: Type.Record(Type.String(), Type.String(), {
      description: 'Column -> path of a leaf or attribute relative to the row (xml), or the column itself (json).',
    }),
    csvColumns: Type.Record(Type.String(), Type.Integer(), {
      description: 'csv: column -> field position (0-based). With a header row a source reads each column by its name there, so columns may move.',
    }),
    memPerRow: Type.Integer({ description: 'Average bytes of a row of the head.' }),
    estRowsPerChunk: Type.Integer({ description: 'Rows of memPerRow bytes in a 4 MiB chunk.' }),
    oneRowPerObject: Type.Boolean({ description: 'json: every top-level object is a row (JSON Lines, or a single object).' }),
    rootIsArray: Type.Boolean({ description: 'json: the root is the array of rows.' }),
    cdp: Type.Boolean(),
    fileId: Type.String(),
    cdpXpathMap: Type.Record(Type.String(), Type.String(), { description: 'cdp: the columns customCode produced.' }),
  },
  { description: 'Hand it back as feedConfig to create the source.' },
);

const ProcessAnswer = Type.Object({
  config: FeedConfigSchema,
  sample: Type.Record(Type.String(), Type.Array(Type.String()), { description: 'Column -> up to 5 distinct values of the head of the feed.' }),
  cdpLogs: Type.Array(Type.String(), { description: "customCode's console output and errors (with the line of the row), at most 200 lines." }),
  warnings: Type.Array(Type.String(), {
    description:
      '(extension) What the owner should know about the head read: bytes that are not UTF-8 in a feed read as UTF-8 (its accented letters then read wrong; ' +
      'set characterEncoding); rows of the head a run would reject (another width than the header, two JSON members naming one column, customCode failing), ' +
      'which the sample leaves out, and rows over the size a stored row may have, each with examples by line. Empty when nothing is amiss.',
  }),
  hostKeyFingerprint: Type.Optional(
    Type.String({
      description:
        "sftp (extension): the fingerprint of the host key the server presented (SHA256:..., as ssh-keygen -lf prints it). Check it against the server's own, " +
        'then give it as urlConfig.hostKeyFingerprint on create; without one, the first run pins the key it meets.',
    }),
  ),
});

/** Every cause a feed can fail for, each with its own code: the customer's to fix (424) or the host's (502). */
const FEED_READ_PROBLEMS = [
  'FEED_REFUSED',
  'FEED_AUTH_FAILED',
  'FEED_NOT_FOUND',
  'FEED_TOO_LARGE',
  'FEED_NOT_A_FEED',
  'FEED_UNREACHABLE',
  'FEED_BAD_STATUS',
] as const;

type ProcessBodyType = Static<typeof ProcessBody>;

/** Process (36): the first step of a feed source. */
/** How long process may wait on the feed's host: a slow FTP or SFTP server can take seconds to hand over the head. */
const FEED_PROCESS_DEADLINE_MS = 30_000;

export const feedProcessRoutes = [
  defineRoute({
    operationId: 'processFeedAssetSource',
    method: 'post',
    path: '/v2/accounts/:accountId/asset-sources/feed/process',
    tag: 'asset sources',
    summary: 'Read the head of a feed and answer what creating a source from it needs',
    description:
      'Reads only the head of the feed (its first 100 rows; the connection is then closed) over its urlType, through the outbound guard (loopback, private and metadata addresses refused, ' +
      'the size and time capped), decodes it (characterEncoding, or the BOM), detects its shape (csv separator when auto, the json row array, the xml row element) and answers config, sample ' +
      'values per column and, with cdp, the console output and errors of customCode, which runs over each row in a sandbox (no require, network or file system; CPU time and memory capped). ' +
      'urlConfig must carry what urlType needs and nothing another urlType takes; customCode must not be empty when cdp is true: each broken rule is 400 naming the field. ' +
      'A feed that cannot be read answers its cause: FEED_REFUSED (an address or URL that may not be fetched), FEED_AUTH_FAILED, FEED_NOT_FOUND, FEED_TOO_LARGE, FEED_NOT_A_FEED (424), ' +
      'FEED_UNREACHABLE or FEED_BAD_STATUS (502); a host that has not handed over the head within 25 seconds (the platform cap) is FEED_UNREACHABLE with cause OUTBOUND_TIMEOUT. Credentials are never echoed.',
    permission: ASSET_SOURCES_ACCESS.processFeed,
    deadlineMs: FEED_PROCESS_DEADLINE_MS,
    scope: { account: 'accountId' },
    params: PathParams({ accountId: AccountId }),
    body: ProcessBody,
    problems: [...FEED_READ_PROBLEMS],
    success: { status: 200, description: 'The head of the feed, read', schema: ProcessAnswer },
    example: {
      params: { accountId: 1001 },
      request: {
        url: 'https://feeds.example.com/products.csv',
        urlType: 'https',
        urlConfig: { httpMethod: 'GET', username: '<USERNAME>', password: '<PASSWORD>' },
        firstRowIsHeader: true,
        characterEncoding: 'UTF_8',
        csvSeparator: 'auto',
        contentType: 'csv',
        cdp: false,
      },
      response: {
        config: {
          rootIsObject: false,
          rowXPath: '',
          xpathMap: {},
          csvColumns: { sku: 0, name: 1, price: 2 },
          memPerRow: 52,
          estRowsPerChunk: 80659,
          oneRowPerObject: false,
          rootIsArray: false,
          cdp: false,
          fileId: '',
          cdpXpathMap: {},
        },
        sample: { sku: ['A1', 'A2'], name: ['Shirt', 'Hat'], price: ['10.00', '4.50'] },
        cdpLogs: [],
        warnings: [],
      },
    },
    async handle({ params, body, backends }) {
      const answer = await backends.assetSources.processFeed(processRequestOf(params.accountId, body));
      return {
        status: 200,
        body: {
          config: JSON.parse(answer.configJson) as Static<typeof FeedConfigSchema>,
          sample: JSON.parse(answer.sampleJson) as Record<string, string[]>,
          cdpLogs: answer.cdpLogs,
          warnings: answer.warnings,
          ...(answer.hostKeyFingerprint !== undefined ? { hostKeyFingerprint: answer.hostKeyFingerprint } : {}),
        },
      };
    },
  }),
];

function processRequestOf(accountId: number, body: ProcessBodyType) {
  return {
    accountId,
    urlType: body.urlType,
    url: body.url ?? '',
    urlConfig: body.urlConfig ?? {},
    customCode: body.customCode ?? undefined,
    firstRowIsHeader: body.firstRowIsHeader ?? true,
    characterEncoding: body.characterEncoding ?? 'UTF_8',
    csvSeparator: body.csvSeparator ?? 'auto',
    contentType: body.contentType,
    cdp: body.cdp ?? false,
    fileId: body.fileId || undefined,
  };
}
