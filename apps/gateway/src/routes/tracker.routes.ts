import { Type, type TOptional, type TSchema, type TString } from '@sinclair/typebox';
import {
  TAGGING_TRACKERS_ACCESS,
  MEDIA_PLAN_PLACEMENT_NAME_MAX,
  MEDIA_PLAN_SITE_NAME_MAX,
  TRACKER_FILTER_KEYS,
  TRACKER_FILTERS_MAX,
  TRACKER_RECORD_FIELDS,
  TRACKER_ROWS_MAX,
  TRACKER_TYPES,
  TRACKER_UPDATE_KINDS,
  TRACKER_VALUE_MAX,
  type TrackerType,
} from '@contracts/domain';
import type { taggingTrackersV1 as v1 } from '@contracts/proto';
import { validationFailed } from '@platform/errors';
import { AccountId, BoundedString, Idx, PathParams, StringEnum } from './common.schemas';
import { defineRoute, type RouteSpec } from './route.types';

const TAG = 'trackers';

const PlanTrackersPath = PathParams({ accountId: AccountId, mediaPlanId: Idx, campaignId: Idx });

const TrackerRecord = Type.Object({
  placementId: Type.String(),
  placementName: Type.String(),
  ...Object.fromEntries(TRACKER_RECORD_FIELDS.map((field) => [field, Type.Array(Type.String())])),
});

/** `sites_siteId=5,sites_placements_placementId=41`: each key at most once, values positive integers. */
export function parseTrackerFilters(filters: string | undefined): { siteId?: number; placementId?: number } {
  const parsed: { siteId?: number; placementId?: number } = {};
  if (filters === undefined || filters === '') return parsed;
  const refuse = (detail: string) => validationFailed([{ parameter: 'filters', code: 'INVALID_FORMAT', detail }]);
  for (const pair of filters.split(',')) {
    const [name, value, extra] = pair.split('=');
    if (extra !== undefined || !(TRACKER_FILTER_KEYS as readonly string[]).includes(name)) {
      throw refuse(`filters is a comma-separated list of key=value with keys ${TRACKER_FILTER_KEYS.join(', ')}; got ${JSON.stringify(pair)}.`);
    }
    if (!/^[1-9][0-9]{0,15}$/.test(value ?? '') || !Number.isSafeInteger(Number(value)))
      throw refuse(`${name} must be a positive integer; got ${JSON.stringify(value)}.`);
    const key = name === 'sites_siteId' ? 'siteId' : 'placementId';
    if (parsed[key] !== undefined) throw refuse(`${name} is given more than once.`);
    parsed[key] = Number(value);
  }
  return parsed;
}

const presentPlacement = (p: v1.PlacementTrackers) => ({
  placementId: String(p.placementId),
  placementName: p.placementName,
  ...Object.fromEntries(p.trackers.map((t) => [t.field, t.values])),
});

const EXAMPLE_RECORD = {
  placementId: '41',
  placementName: '300x250 - Northmart',
  ...Object.fromEntries(TRACKER_RECORD_FIELDS.map((field) => [field, field === 'primaryClickTracker' ? ['https://trk.example.com/c?cb=%%CACHEBUSTER%%'] : []])),
};

const trackerFields = Object.fromEntries(
  TRACKER_TYPES.map((type): [string, TSchema] => [
    type,
    Type.Optional(
      BoundedString(TRACKER_VALUE_MAX, {
        description: type.endsWith('ScriptTracker') ? 'Script elements or an http(s) URL.' : 'An http(s) URL.',
      }),
    ),
  ]),
) as Record<TrackerType, TOptional<TString>>;

/** Trackers of retail campaigns and media plans, served by tagging-trackers. */
export const trackerRoutes: RouteSpec[] = [
  defineRoute({
    operationId: 'getCampaignTrackers',
    method: 'get',
    path: '/v2/accounts/:accountId/retail-campaigns/:retailCampaignIdx/trackers',
    tag: TAG,
    summary: 'Tracker types available, and those the campaign has trackers of',
    description: 'trackerTypes lists every tracker field of the tracker update; trackersSelected those with at least one tracker stored for the campaign.',
    permission: TAGGING_TRACKERS_ACCESS.getCampaignTrackers,
    scope: { account: 'accountId' },
    params: PathParams({ accountId: AccountId, retailCampaignIdx: Idx }),
    success: {
      status: 200,
      description: 'Tracker types',
      schema: Type.Object({ trackerTypes: Type.Array(Type.String()), trackersSelected: Type.Array(Type.String()) }),
    },
    problems: ['RETAIL_CAMPAIGN_NOT_FOUND'],
    example: {
      params: { accountId: 1001, retailCampaignIdx: 7 },
      response: { trackerTypes: [...TRACKER_TYPES], trackersSelected: ['primaryClickTracker'] },
    },
    async handle({ params, backends }) {
      const result = await backends.taggingTrackers.getCampaignTrackers({ accountId: params.accountId, retailCampaignId: params.retailCampaignIdx });
      return { body: { trackerTypes: result.trackerTypes, trackersSelected: result.trackersSelected } };
    },
  }),

  defineRoute({
    operationId: 'getPlanTrackers',
    method: 'get',
    path: '/v2/accounts/:accountId/media-plans/:mediaPlanId/trackers/:campaignId',
    tag: TAG,
    summary: 'Trackers of a media plan, per site and placement',
    description:
      'Every placement of the plan, grouped by site (id and siteId are both the site index), with every tracker field as an array (empty when none). ' +
      'filters narrows to one site or placement: comma-separated key=value with keys sites_siteId and sites_placements_placementId. ' +
      'campaignId must be the campaign of the media plan (404 otherwise).',
    permission: TAGGING_TRACKERS_ACCESS.getPlanTrackers,
    scope: { account: 'accountId' },
    params: PlanTrackersPath,
    query: Type.Object(
      { filters: Type.Optional(BoundedString(TRACKER_FILTERS_MAX, { description: 'e.g. sites_siteId=5,sites_placements_placementId=41' })) },
      { additionalProperties: false },
    ),
    success: {
      status: 200,
      description: 'Trackers per site and placement',
      schema: Type.Object({
        mediaPlanId: Type.Integer(),
        mediaPlanName: Type.String(),
        sites: Type.Array(Type.Object({ id: Type.Integer(), siteId: Type.Integer(), siteName: Type.String(), placements: Type.Array(TrackerRecord) })),
      }),
    },
    problems: ['MEDIA_PLAN_NOT_FOUND'],
    example: {
      params: { accountId: 1001, mediaPlanId: 3, campaignId: 7 },
      query: { filters: 'sites_siteId=5' },
      response: { mediaPlanId: 3, mediaPlanName: 'Spring - Northmart', sites: [{ id: 5, siteId: 5, siteName: 'Northmart', placements: [EXAMPLE_RECORD] }] },
    },
    async handle({ params, query, backends }) {
      const filter = parseTrackerFilters(query.filters);
      const result = await backends.taggingTrackers.getPlanTrackers({
        accountId: params.accountId,
        mediaPlanId: params.mediaPlanId,
        campaignId: params.campaignId,
        ...filter,
      });
      return {
        body: {
          mediaPlanId: result.mediaPlanId,
          mediaPlanName: result.mediaPlanName,
          sites: result.sites.map((site) => ({
            id: site.siteId,
            siteId: site.siteId,
            siteName: site.siteName,
            placements: site.placements.map(presentPlacement),
          })),
        },
      };
    },
  }),

  defineRoute({
    operationId: 'updatePlanTrackers',
    method: 'put',
    path: '/v2/accounts/:accountId/media-plans/:mediaPlanId/trackers/:campaignId',
    tag: TAG,
    summary: 'Append trackers to placements of a media plan, by site and placement name',
    description:
      'Each entry names a placement of the plan by siteName and placementName and gives tracker values by field; a value already stored for the placement ' +
      'and field is kept once. Pixel and click trackers must be http(s) URLs, script trackers script elements or http(s) URLs, and every macro one the ' +
      "placement's ad server expands (or an IAB privacy macro with a numeric vendor id). Refused values, and names the plan does not hold (under siteName " +
      'and placementName), come back in errorResponse by field; the rest are stored. isValidate true checks and counts without storing. Counts: a site or ' +
      'placement that had no trackers before is appended, one that had is updated; trackerAppendedCount counts new values. updatedCampaignId is true when ' +
      'trackers were stored; updatedMediaPlanName is always false (the plan keeps its name).',
    permission: TAGGING_TRACKERS_ACCESS.updatePlanTrackers,
    scope: { account: 'accountId' },
    params: PlanTrackersPath,
    body: Type.Object(
      {
        mediaPlanDetails: Type.Array(
          Type.Object(
            {
              siteName: BoundedString(MEDIA_PLAN_SITE_NAME_MAX, { minLength: 1 }),
              placementName: BoundedString(MEDIA_PLAN_PLACEMENT_NAME_MAX, { minLength: 1 }),
              ...trackerFields,
            },
            { additionalProperties: false },
          ),
          { maxItems: TRACKER_ROWS_MAX },
        ),
        type: StringEnum(TRACKER_UPDATE_KINDS, { description: 'inline: the values are given in the body.' }),
        isValidate: Type.Optional(Type.Boolean({ description: 'true: check and count only; nothing is stored.' })),
      },
      { additionalProperties: false },
    ),
    success: {
      status: 200,
      description: 'What was (or, with isValidate, would be) appended, and what was refused',
      schema: Type.Object({
        siteUpdatedCount: Type.Integer(),
        siteAppendedCount: Type.Integer(),
        placementUpdatedCount: Type.Integer(),
        placementAppendedCount: Type.Integer(),
        trackerAppendedCount: Type.Integer(),
        updatedCampaignId: Type.Boolean(),
        updatedMediaPlanName: Type.Boolean(),
        errorResponse: Type.Record(Type.String(), Type.Array(Type.String())),
      }),
    },
    problems: ['MEDIA_PLAN_NOT_FOUND'],
    example: {
      params: { accountId: 1001, mediaPlanId: 3, campaignId: 7 },
      request: {
        mediaPlanDetails: [
          {
            siteName: 'Northmart',
            placementName: '300x250 - Northmart',
            primaryClickTracker: 'https://trk.example.com/c?cb=%%CACHEBUSTER%%',
            bannerImpressionInTagPixelTracker: 'ftp://trk.example.com/i.gif',
          },
        ],
        type: 'inline',
        isValidate: false,
      },
      response: {
        siteUpdatedCount: 0,
        siteAppendedCount: 1,
        placementUpdatedCount: 0,
        placementAppendedCount: 1,
        trackerAppendedCount: 1,
        updatedCampaignId: true,
        updatedMediaPlanName: false,
        errorResponse: { bannerImpressionInTagPixelTracker: ['ftp://trk.example.com/i.gif'] },
      },
    },
    async handle({ params, body, backends }) {
      const result = await backends.taggingTrackers.updatePlanTrackers({
        accountId: params.accountId,
        mediaPlanId: params.mediaPlanId,
        campaignId: params.campaignId,
        type: body.type,
        isValidate: body.isValidate === true,
        rows: body.mediaPlanDetails.map(({ siteName, placementName, ...trackers }) => ({
          siteName,
          placementName,
          trackers: trackers as Record<string, string>,
        })),
      });
      return {
        body: {
          siteUpdatedCount: result.siteUpdatedCount,
          siteAppendedCount: result.siteAppendedCount,
          placementUpdatedCount: result.placementUpdatedCount,
          placementAppendedCount: result.placementAppendedCount,
          trackerAppendedCount: result.trackerAppendedCount,
          updatedCampaignId: result.updatedCampaignId,
          updatedMediaPlanName: result.updatedMediaPlanName,
          errorResponse: Object.fromEntries(result.errorResponse.map((e) => [e.field, e.values])),
        },
      };
    },
  }),
];
