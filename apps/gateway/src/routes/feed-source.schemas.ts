import { Type } from '@sinclair/typebox';
import { FEED_FREQUENCIES, FEED_MISSING_ROW_POLICIES, FEED_SECRET_FIELDS } from '@contracts/domain';
import type { assetSourcesV1 as v1 } from '@contracts/proto';
import { StringEnum } from './common.schemas';
import { presentSourceColumns, SourceColumnsMembers } from './source-columns.schemas';

const optionalString = (description?: string) => Type.Optional(Type.String(description ? { description } : {}));

/** A feed source's settings in its detail: the secret urlConfig members by name only, never their values. */
export const FeedSettingsSchema = Type.Object(
  {
    urlType: Type.String(),
    url: Type.String(),
    fileId: optionalString(),
    urlConfig: Type.Object({
      additionalParams: optionalString(),
      httpMethod: optionalString(),
      portNumber: Type.Optional(Type.Integer()),
      endpoint: optionalString('objstore (extension): the S3-compatible server of an s3:// url.'),
      region: optionalString('objstore (extension): the signing region given.'),
      hostKeyFingerprint: optionalString("sftp (extension): the fingerprint the server's host key must have, given or pinned by the first run."),
    }),
    credentialsSet: Type.Array(StringEnum(FEED_SECRET_FIELDS), {
      description: 'The secret urlConfig members stored (write-only: their values are never answered).',
    }),
    contentType: Type.String(),
    characterEncoding: Type.String(),
    csvSeparator: Type.String(),
    firstRowIsHeader: Type.Boolean(),
    cdp: Type.Boolean(),
    customCode: optionalString(),
    isScheduled: Type.Boolean(),
    frequency: Type.Optional(StringEnum(FEED_FREQUENCIES)),
    startTime: optionalString('hh:mm, US Eastern.'),
    endDate: optionalString('yyyy-mm-dd.'),
    nextRunTime: optionalString('When the next scheduled run starts (UTC); absent when none will.'),
    missingRowPolicy: StringEnum(FEED_MISSING_ROW_POLICIES),
    shrinkGuardPercent: Type.Integer(),
    held: Type.Optional(
      Type.Object(
        { queueId: Type.String(), reason: Type.String() },
        { description: 'A version the shrink guard holds: the old rows keep serving until the owner confirms it (confirm extension).' },
      ),
    ),
    servingQueueId: optionalString('The run whose rows are serving.'),
    disabledRows: Type.Integer({
      description: 'Rows missing from the feed that missingRowPolicy disable holds aside: never served or mapped, dropped from there when their key returns.',
    }),
    pendingColumns: Type.Optional(
      Type.Object(SourceColumnsMembers, {
        description:
          "The columns an update gave while a version serves. The source's own columns stay those of the rows serving (their keys were " +
          'read with its assetKeyColumn) until a run that read the feed into these swaps its version in; absent when none wait.',
      }),
    ),
  },
  { description: 'Feed sources only (extension).' },
);

export const presentFeedSettings = (f: v1.FeedSettings) => ({
  urlType: f.urlType,
  url: f.url,
  ...(f.fileId !== undefined ? { fileId: f.fileId } : {}),
  urlConfig: {
    ...(f.additionalParams !== undefined ? { additionalParams: f.additionalParams } : {}),
    ...(f.httpMethod !== undefined ? { httpMethod: f.httpMethod } : {}),
    ...(f.portNumber !== undefined ? { portNumber: f.portNumber } : {}),
    ...(f.endpoint !== undefined ? { endpoint: f.endpoint } : {}),
    ...(f.region !== undefined ? { region: f.region } : {}),
    ...(f.hostKeyFingerprint !== undefined ? { hostKeyFingerprint: f.hostKeyFingerprint } : {}),
  },
  credentialsSet: f.credentialsSet as (typeof FEED_SECRET_FIELDS)[number][],
  contentType: f.contentType,
  characterEncoding: f.characterEncoding,
  csvSeparator: f.csvSeparator,
  firstRowIsHeader: f.firstRowIsHeader,
  cdp: f.cdp,
  ...(f.customCode !== undefined ? { customCode: f.customCode } : {}),
  isScheduled: f.isScheduled,
  ...(f.frequency !== undefined ? { frequency: f.frequency as (typeof FEED_FREQUENCIES)[number] } : {}),
  ...(f.startTime !== undefined ? { startTime: f.startTime } : {}),
  ...(f.endDate !== undefined ? { endDate: f.endDate } : {}),
  ...(f.nextRunTime !== undefined ? { nextRunTime: f.nextRunTime } : {}),
  missingRowPolicy: f.missingRowPolicy as (typeof FEED_MISSING_ROW_POLICIES)[number],
  shrinkGuardPercent: f.shrinkGuardPercent,
  ...(f.heldQueueId !== undefined ? { held: { queueId: f.heldQueueId, reason: f.heldReason ?? '' } } : {}),
  ...(f.servingQueueId !== undefined ? { servingQueueId: f.servingQueueId } : {}),
  disabledRows: f.disabledRows,
  ...(f.pendingColumns !== undefined ? { pendingColumns: presentSourceColumns(f.pendingColumns.columnNames, f.pendingColumns.columns) } : {}),
});
