import { Type } from '@sinclair/typebox';
import {
  CACHED_VIEWS,
  CONTENT_CREATIVE_ACCESS,
  EXPORT_ASSET_TYPES,
  EXPORT_JOB_KIND,
  EXPORT_STATUSES,
  EXPORT_LIMITS,
  HIGH_RESOLUTION_EXPORT_TYPES,
  JOB_CONCURRENCY_CAPS,
  type ProblemCode,
} from '@contracts/domain';
import { AccountId, BoundedString, Idx, Int32, Nullable, PathParams, StringEnum } from './common.schemas';
import { defineRoute } from './route.types';
import { cdnUrl, publicBase } from './storage.routes';

const TAG = 'exports';

const CampaignPath = PathParams({ accountId: AccountId, retailCampaignIdx: Idx });
const Resolution = (description: string) => Int32({ minimum: 1, maximum: 2, description });
const QueueId = BoundedString(64, { minLength: 1, pattern: '^[A-Za-z0-9_-]+$', description: 'The queueId the start answered' });

const EXAMPLE_QUEUE_ID = '3f0c1a2b-4d5e-4f60-8a7b-9c0d1e2f3a4b';
const EXAMPLE_URL = `https://api.example.com/files/accounts/1001/exports/retail-campaign-7/${EXAMPLE_QUEUE_ID}/Spring-sale_png_2x.zip`;

/** Reading the campaign (channels-plans) is part of every export operation. */
const CAMPAIGN_PROBLEMS: ProblemCode[] = ['RETAIL_CAMPAIGN_NOT_FOUND'];

const ResolutionStatus = Type.Object({
  status: StringEnum(EXPORT_STATUSES),
  url: Nullable(Type.String({ format: 'uri', description: 'The zip; set only for COMPLETED and AVAILABLE. A plain GET returns its bytes.' })),
  resolution: Type.Integer({ minimum: 1, maximum: 2 }),
  statusMessage: Type.String(),
  queueId: Type.String({ description: 'The export; empty for NOT_INITIATED.' }),
});

const PREVIEW_EXPORTS =
  `A preview export (isPreviewExport true on the start, an extension member) is png at resolution 1 of the first ${EXPORT_LIMITS.previewItemsPerPlacement} ` +
  'content items of each placement: a small zip, and each file also stored on its own, which the content map read shows as the items previewUrls ' +
  '(the newest completed preview export; the product image for an item it did not draw, or until one exists), not a full png export.';

/** Exporting a retail campaign's creatives: start (14), status (15) and the manifest (extension). */
export const exportRoutes = [
  defineRoute({
    operationId: 'startExport',
    method: 'post',
    path: '/v2/accounts/:accountId/retail-campaigns/:retailCampaignIdx/exportAssets',
    tag: TAG,
    summary: 'Start exporting the creatives of a retail campaign',
    description:
      'Renders every content item on every placement of the campaign content maps from the campaign retail template, at the placement dimension ' +
      `times resolution, and packs the files with a manifest.json into one zip. resolution 2 only for ${HIGH_RESOLUTION_EXPORT_TYPES.join(', ')} ` +
      '(400 EXPORT_RESOLUTION_NOT_SUPPORTED at /resolution). The campaign must be ACTIVE (409 naming its status). A start while an export of ' +
      'the same format and resolution is INITIATED or PROCESSING answers that export (its queueId and status) instead of starting another; ' +
      `past ${JOB_CONCURRENCY_CAPS[EXPORT_JOB_KIND]} running exports of the account (previews included), a new one is refused with 429 JOB_LIMIT_REACHED. ` +
      `${PREVIEW_EXPORTS} A preview export runs beside a full export of the same format and resolution. ` +
      'Poll exportAssetStatus (isPreviewExport=true for preview exports; or GET /v2/queues/:queueId for the item counts).',
    permission: CONTENT_CREATIVE_ACCESS.startExport,
    scope: { account: 'accountId' },
    params: CampaignPath,
    body: Type.Object(
      {
        assetExportType: StringEnum(EXPORT_ASSET_TYPES, { description: 'gif is an animated carousel; mp4 a short H.264 video of the same frames.' }),
        resolution: Resolution('1 or 2: each file is its placement dimension times this.'),
        isPreviewExport: Type.Optional(
          Type.Boolean({
            description:
              'Extension, default false. true starts a preview export: assetExportType must be png and resolution 1 (else 400 NOT_ALLOWED at the field).',
          }),
        ),
      },
      { additionalProperties: false },
    ),
    success: {
      status: 200,
      description: 'The export started (or the running one of the same kind)',
      schema: Type.Object({
        queueId: Nullable(Type.String()),
        status: StringEnum(EXPORT_STATUSES),
        message: Type.String(),
      }),
    },
    problems: [...CAMPAIGN_PROBLEMS, 'RETAIL_CAMPAIGN_NOT_ACTIVE', 'EXPORT_RESOLUTION_NOT_SUPPORTED', 'JOB_LIMIT_REACHED'],
    example: {
      params: { accountId: 1001, retailCampaignIdx: 7 },
      request: { assetExportType: 'png', resolution: 2 },
      response: { queueId: EXAMPLE_QUEUE_ID, status: 'INITIATED', message: 'The export has started.' },
    },
    async handle({ params, body, backends }) {
      const started = await backends.contentCreative.startExport({
        accountId: params.accountId,
        retailCampaignId: params.retailCampaignIdx,
        assetExportType: body.assetExportType,
        resolution: body.resolution,
        isPreviewExport: body.isPreviewExport === true,
      });
      return { body: { queueId: started.queueId, status: started.status, message: started.message } };
    },
  }),

  defineRoute({
    operationId: 'getExportStatus',
    method: 'get',
    path: '/v2/accounts/:accountId/retail-campaigns/:retailCampaignIdx/exportAssetStatus',
    tag: TAG,
    summary: 'Read the status of a retail campaign exports',
    description:
      'One entry per format exported, each with one line per resolution: the newest export of that format and resolution. INITIATED, PROCESSING, ' +
      'COMPLETED (url set) or FAILED (the renderer drew nothing or gave up while PROCESSING; statusMessage says why; per-asset failures are in the ' +
      'manifest). FAILED_TO_INITIATE: the start was accepted but the job never reached PROCESSING: the renderer refused it at intake (nothing ' +
      `mapped to the campaign placements, more than ${EXPORT_LIMITS.maxAssets} creatives, the campaign no longer ACTIVE) or its request was given up ` +
      'after its last delivery (statusMessage says which). AVAILABLE: an earlier completed export whose zip is still served while the newest one ' +
      'runs or failed (a second line, url set). NOT_INITIATED: a format and resolution the filter names (assetExportType alone names every ' +
      'resolution the format supports) that has never been exported (no url, queueId empty); without assetExportType only exported formats are ' +
      'listed. ARCHIVED: every line of an archived campaign (no url). isPreviewExport=true answers preview exports instead, the same way ' +
      `(png at resolution 1 only). ${PREVIEW_EXPORTS} ` +
      'Answers may come from the gateway cache; an answer always reflects every export start, export status move and campaign status move ' +
      'whose answer was received before the request was sent, whichever gateway replica took either.',
    permission: CONTENT_CREATIVE_ACCESS.getExportStatus,
    scope: { account: 'accountId' },
    cache: { view: CACHED_VIEWS.exportStatus },
    params: CampaignPath,
    query: Type.Object(
      {
        isPreviewExport: Type.Optional(StringEnum(['true', 'false'], { description: 'Default false.' })),
        assetExportType: Type.Optional(StringEnum(EXPORT_ASSET_TYPES)),
        resolution: Type.Optional(Resolution('Only this resolution.')),
      },
      { additionalProperties: false },
    ),
    success: {
      status: 200,
      description: 'One entry per format found',
      schema: Type.Array(Type.Object({ assetExportType: Type.String(), resolutionsResponse: Type.Array(ResolutionStatus) })),
    },
    problems: CAMPAIGN_PROBLEMS,
    example: {
      params: { accountId: 1001, retailCampaignIdx: 7 },
      query: { assetExportType: 'png' },
      response: [
        {
          assetExportType: 'png',
          resolutionsResponse: [
            { status: 'COMPLETED', url: EXAMPLE_URL, resolution: 2, statusMessage: 'Rendered 4 of 4 creatives.', queueId: EXAMPLE_QUEUE_ID },
          ],
        },
      ],
    },
    async handle({ params, query, backends, req, links }) {
      const answer = await backends.contentCreative.getExportStatus({
        accountId: params.accountId,
        retailCampaignId: params.retailCampaignIdx,
        assetExportType: query.assetExportType,
        resolution: query.resolution,
        isPreviewExport: query.isPreviewExport === 'true',
      });
      const base = publicBase(req, links);
      return {
        body: answer.entries.map((entry) => ({
          assetExportType: entry.assetExportType,
          resolutionsResponse: entry.resolutions.map((r) => ({
            status: r.status,
            url: r.objectPath ? cdnUrl(base, params.accountId, r.objectPath) : null,
            resolution: r.resolution,
            statusMessage: r.statusMessage,
            queueId: r.queueId,
          })),
        })),
      };
    },
  }),

  defineRoute({
    operationId: 'getExportManifest',
    method: 'get',
    path: '/v2/accounts/:accountId/retail-campaigns/:retailCampaignIdx/exports/:queueId/manifest',
    tag: TAG,
    summary: 'Read the manifest of one export',
    description:
      'The manifest.json the zip carries: every asset (media plan, placement, content value, dimension, resolution, file name, bytes, status and the ' +
      'error of a failed asset, warnings such as a placeholder drawn for a missing image). manifest is null until the export has ended.',
    extension: true,
    permission: CONTENT_CREATIVE_ACCESS.getExportManifest,
    scope: { account: 'accountId' },
    params: PathParams({ accountId: AccountId, retailCampaignIdx: Idx, queueId: QueueId }),
    success: {
      status: 200,
      description: 'The export and its manifest',
      schema: Type.Object({
        queueId: Type.String(),
        status: StringEnum(EXPORT_STATUSES),
        statusMessage: Type.String(),
        url: Nullable(Type.String({ format: 'uri' })),
        manifest: Nullable(Type.Object({}, { additionalProperties: true, description: 'manifest.json as in the zip' })),
      }),
    },
    problems: [...CAMPAIGN_PROBLEMS, 'EXPORT_NOT_FOUND'],
    example: {
      params: { accountId: 1001, retailCampaignIdx: 7, queueId: EXAMPLE_QUEUE_ID },
      response: { queueId: EXAMPLE_QUEUE_ID, status: 'PROCESSING', statusMessage: '', url: null, manifest: null },
    },
    async handle({ params, backends, req, links }) {
      const answer = await backends.contentCreative.getExportManifest({
        accountId: params.accountId,
        retailCampaignId: params.retailCampaignIdx,
        queueId: params.queueId,
      });
      return {
        body: {
          queueId: answer.queueId,
          status: answer.status,
          statusMessage: answer.statusMessage,
          url: answer.objectPath ? cdnUrl(publicBase(req, links), params.accountId, answer.objectPath) : null,
          manifest: answer.manifestJson ? (JSON.parse(answer.manifestJson) as Record<string, unknown>) : null,
        },
      };
    },
  }),
];
