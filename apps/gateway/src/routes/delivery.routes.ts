import { Type } from '@sinclair/typebox';
import { CONTENT_CREATIVE_ACCESS, DELIVERY_EVENT_TYPES, DELIVERY_GROUP_BY, DELIVERY_REPORT_LIMITS } from '@contracts/domain';
import type { contentCreativeV1 as v1 } from '@contracts/proto';
import { PageQuery } from '../http/pagination';
import { AccountId, BoundedString, Idx, Nullable, PageLinksSchema, PathParams } from './common.schemas';
import { defineRoute, type RouteSpec } from './route.types';

const TAG = 'delivery';

const GROUP_KEY = `(${DELIVERY_GROUP_BY.join('|')})`;

const Day = (description: string) => BoundedString(10, { pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', format: 'date', description });

const DeliveryQuery = Type.Object(
  {
    from: Type.Optional(Day(`First day (yyyy-mm-dd, UTC, included). Default: the ${DELIVERY_REPORT_LIMITS.defaultDays} days ending at to.`)),
    to: Type.Optional(Day('Last day (yyyy-mm-dd, UTC, included), not before from. Default: today (UTC).')),
    groupBy: Type.Optional(
      BoundedString(64, {
        pattern: `^${GROUP_KEY}(,${GROUP_KEY})*$`,
        description: `Comma-separated, each at most once: ${DELIVERY_GROUP_BY.join(', ')}. Default: day. placement groups by placementId and its mediaPlanId.`,
      }),
    ),
    ...PageQuery.properties,
  },
  { additionalProperties: false },
);

const Count = (description: string) => Type.Integer({ minimum: 0, description });

const DeliveryCounts = {
  impressions: Count('Impressions'),
  clicks: Count('Clicks'),
  ctr: Type.Number({ minimum: 0, description: `clicks / impressions, rounded to ${DELIVERY_REPORT_LIMITS.ctrDecimals} decimals; 0 without impressions` }),
  starts: Count('Video starts'),
  firstQuartile: Count('Video first quartiles'),
  midpoint: Count('Video midpoints'),
  thirdQuartile: Count('Video third quartiles'),
  completes: Count('Video completes'),
  mutes: Count('Video mutes'),
  unmutes: Count('Video unmutes'),
  skips: Count('Video skips'),
};

const DeliveryRow = Type.Object({
  day: Nullable(Type.String({ format: 'date', description: 'Set when grouped by day (UTC date)' })),
  placementId: Nullable(Type.Integer({ description: 'Set when grouped by placement' })),
  mediaPlanId: Nullable(Type.Integer({ description: "The placement's media plan; set when grouped by placement" })),
  creative: Nullable(Type.String({ description: 'The content value or creative master served; set when grouped by creative' })),
  segment: Nullable(Type.String({ description: 'The decision graph segment served, or (default); set when grouped by segment' })),
  ...DeliveryCounts,
});

const DeliveryReport = Type.Object({
  retailCampaignId: Type.Integer(),
  from: Type.String({ format: 'date' }),
  to: Type.String({ format: 'date' }),
  groupBy: Type.Array(Type.String({ enum: [...DELIVERY_GROUP_BY] })),
  rows: Type.Array(DeliveryRow, { description: 'One page of groups, in the order of the group keys (day, placement, creative, segment ascending)' }),
  totals: Type.Object(DeliveryCounts, { description: 'Over the whole period and every group, not only this page' }),
  total: Type.Integer({ description: 'Groups in the period' }),
  ...PageLinksSchema,
});

const counts = (c: v1.DeliveryCounts | undefined) => ({
  impressions: c?.impressions ?? 0,
  clicks: c?.clicks ?? 0,
  ctr: c?.ctr ?? 0,
  starts: c?.starts ?? 0,
  firstQuartile: c?.firstQuartile ?? 0,
  midpoint: c?.midpoint ?? 0,
  thirdQuartile: c?.thirdQuartile ?? 0,
  completes: c?.completes ?? 0,
  mutes: c?.mutes ?? 0,
  unmutes: c?.unmutes ?? 0,
  skips: c?.skips ?? 0,
});

const EXAMPLE_COUNTS = {
  impressions: 12000,
  clicks: 150,
  ctr: 0.0125,
  starts: 0,
  firstQuartile: 0,
  midpoint: 0,
  thirdQuartile: 0,
  completes: 0,
  mutes: 0,
  unmutes: 0,
  skips: 0,
};

/** A retail campaign's delivery (an extension): content-creative's daily counts of the ad server's delivery events. */
export const deliveryRoutes: RouteSpec[] = [
  defineRoute({
    operationId: 'getRetailCampaignDelivery',
    method: 'get',
    path: '/v2/accounts/:accountId/retail-campaigns/:retailCampaignIdx/delivery',
    tag: TAG,
    summary: 'Read the delivery of a retail campaign',
    description:
      `Impressions, clicks, CTR and video events (${DELIVERY_EVENT_TYPES.join(', ')}) the ad server reported for the campaign, ` +
      'from daily counts per UTC day, placement, creative and segment, summed per group of groupBy over the days from..to (both included, UTC), ' +
      `at most ${DELIVERY_REPORT_LIMITS.maxDays} days. Each event counts once, however often it was delivered; an event is counted a moment ` +
      'after the ad server published it. A bad date (INVALID_FORMAT), to before from or a longer period (OUT_OF_RANGE), or an unknown or ' +
      'repeated groupBy key (NOT_ALLOWED, DUPLICATE) answers 400 naming the parameter. Group keys not asked for are null. totals covers every group.',
    extension: true,
    permission: CONTENT_CREATIVE_ACCESS.getCampaignDelivery,
    scope: { account: 'accountId' },
    params: PathParams({ accountId: AccountId, retailCampaignIdx: Idx }),
    query: DeliveryQuery,
    success: { status: 200, description: 'One page of groups and the totals', schema: DeliveryReport },
    problems: ['RETAIL_CAMPAIGN_NOT_FOUND'],
    example: {
      params: { accountId: 1001, retailCampaignIdx: 7 },
      query: { from: '2026-03-01', to: '2026-03-07', groupBy: 'day,placement', offset: 0, limit: 25 },
      response: {
        retailCampaignId: 7,
        from: '2026-03-01',
        to: '2026-03-07',
        groupBy: ['day', 'placement'],
        rows: [{ day: '2026-03-01', placementId: 31, mediaPlanId: 12, creative: null, segment: null, ...EXAMPLE_COUNTS }],
        totals: EXAMPLE_COUNTS,
        total: 1,
        next: null,
        previous: null,
      },
    },
    async handle({ params, query, backends, links }) {
      const report = await backends.contentCreative.getCampaignDelivery({
        accountId: params.accountId,
        retailCampaignId: params.retailCampaignIdx,
        from: query.from,
        to: query.to,
        groupBy: query.groupBy,
        offset: query.offset,
        limit: query.limit,
      });
      return {
        body: {
          retailCampaignId: params.retailCampaignIdx,
          from: report.from,
          to: report.to,
          groupBy: report.groupBy,
          rows: report.rows.map((row) => ({
            day: row.day ?? null,
            placementId: row.placementId ?? null,
            mediaPlanId: row.mediaPlanId ?? null,
            creative: row.creative ?? null,
            segment: row.segment ?? null,
            ...counts(row.counts),
          })),
          totals: counts(report.totals),
          total: report.total,
          ...links({ ...query, total: report.total }),
        },
      };
    },
  }),
];
