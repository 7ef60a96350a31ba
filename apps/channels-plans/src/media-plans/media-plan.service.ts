import type { Knex } from 'knex';
import {
  AUTO_MEDIA_PLAN_DIMENSIONS_MAX,
  AUTO_PLACEMENT_AD_UNIT_TYPE,
  DIMENSION_PATTERN,
  effectivePage,
  MEDIA_PLAN_FIELDS,
  MEDIA_PLAN_NAME_MAX,
  type AdServerKind,
  type MediaPlanField,
} from '@contracts/domain';
import { type FieldError, problem, validationFailed } from '@platform/errors';
import { isDuplicateKey, withTransaction } from '@platform/mysql';
import { recordChange, type EventOutbox } from '@platform/service';
import type { MediaChannelService } from '../media-channels/media-channel.service';
import type { PlacementRepository } from '../placements/placement.repository';
import type { RetailCampaignService } from '../retail-campaigns/retail-campaign.service';
import type { AutoMediaPlanInput, AutoMediaPlanResult, MediaPlanView, PlanningOrg } from './media-plan.model';
import { UNIQUE_AUTO_DIMENSION_SET, type MediaPlanRepository } from './media-plan.repository';

export const mediaPlanNotFound = (id: number) => problem('MEDIA_PLAN_NOT_FOUND', `Media plan ${id} was not found.`);

const DIMENSION = new RegExp(DIMENSION_PATTERN);

/** 300x250 before 300x600 before 728x90: by width, then height, so placements read in a stable order. */
const byArea = (a: string, b: string) => {
  const [aw, ah] = a.split('x').map(Number);
  const [bw, bh] = b.split('x').map(Number);
  return aw - bw || ah - bh;
};

/**
 * Media plans: the sites and placements a retail campaign runs on one media channel. Auto plans
 * are built from a list of sizes the retailer org has whitelisted; reads select top-level fields
 * and page over placements.
 */
export class MediaPlanService {
  constructor(
    private readonly deps: {
      knex: Knex;
      plans: MediaPlanRepository;
      placements: PlacementRepository;
      campaigns: RetailCampaignService;
      mediaChannels: MediaChannelService;
      events: EventOutbox;
    },
  ) {}

  /**
   * `createAutoMediaPlan`. One site on the channel's ad server and one placement per distinct dimension, all
   * in one transaction. Idempotent on (campaign, channel, distinct sorted dimensions): asking again
   * for the same set returns the existing plan with `created: false`; a different set is a new plan.
   */
  async createAuto(org: PlanningOrg, accountId: number, input: AutoMediaPlanInput): Promise<AutoMediaPlanResult> {
    const errors = [
      ...dimensionErrors(input.dimensions, org.dimensionWhitelist),
      ...idErrors('/retailCampaignId', input.retailCampaignId),
      ...idErrors('/mediaChannelIdx', input.mediaChannelIdx),
    ];
    if (errors.length > 0) throw validationFailed(errors);

    const campaign = await this.deps.campaigns.get(accountId, input.retailCampaignId);
    const channel = await this.deps.mediaChannels.get(org.orgId, input.mediaChannelIdx);
    const dimensions = [...new Set(input.dimensions)].sort(byArea);
    const key = { accountId, retailCampaignId: campaign.retailCampaignId, mediaChannelIdx: channel.idx, dimensionSet: dimensions.join(',') };
    const adUnitType = AUTO_PLACEMENT_AD_UNIT_TYPE[channel.adServerKind as AdServerKind] ?? 'display';
    const mediaPlanName = `${campaign.campaignName} - ${channel.name}`.slice(0, MEDIA_PLAN_NAME_MAX);

    try {
      return await withTransaction(this.deps.knex, async (trx) => {
        const existing = await this.deps.plans.findAuto(trx, key);
        if (existing !== undefined) return { mediaPlanId: existing, created: false };
        const plan = {
          ...key,
          mediaPlanName,
          site: { adServerId: channel.adServerId, siteName: channel.name },
          placements: dimensions.map((dimension) => ({
            placementName: `${dimension} - ${channel.name}`.slice(0, MEDIA_PLAN_NAME_MAX),
            dimension,
            adUnitType,
          })),
        };
        const mediaPlanId = await this.deps.plans.insertAuto(trx, plan);
        await recordChange(trx, this.deps.events, {
          resourceType: 'media-plan',
          resourceId: mediaPlanId,
          action: 'create',
          accountId,
          after: { mediaPlanId, ...plan },
        });
        return { mediaPlanId, created: true };
      });
    } catch (error) {
      // A concurrent request for the same set committed first: its plan is this request's answer.
      if (!isDuplicateKey(error, UNIQUE_AUTO_DIMENSION_SET)) throw error;
      const winner = await this.deps.plans.findAuto(this.deps.knex, key);
      if (winner === undefined) throw error;
      return { mediaPlanId: winner, created: false };
    }
  }

  /**
   * `getMediaPlan`. `fields` holds comma-separated top-level names (empty: all); an unknown name is
   * refused, naming it. The page windows the plan's placements in id order; every ad server of the
   * plan is listed, with the placements of this page that are on it.
   */
  async get(accountId: number, mediaPlanId: number, fields: readonly string[], page?: { offset?: number; limit?: number }): Promise<MediaPlanView> {
    const selected = selectedFields(fields);
    const plan = await this.deps.plans.find(accountId, mediaPlanId);
    if (!plan) throw mediaPlanNotFound(mediaPlanId);
    const view: MediaPlanView = { selected };
    if (selected.has('mediaPlanId')) view.mediaPlanId = plan.mediaPlanId;
    if (selected.has('mediaPlanName')) view.mediaPlanName = plan.mediaPlanName;
    if (selected.has('adServers')) {
      const [adServers, placements] = await Promise.all([
        this.deps.plans.adServers(mediaPlanId),
        this.deps.placements.pageForPlan(mediaPlanId, effectivePage(page)),
      ]);
      view.adServers = adServers.map((adServer) => ({
        ...adServer,
        placements: placements.filter((p) => p.adServerId === adServer.adServerId),
      }));
    }
    return view;
  }
}

function selectedFields(fields: readonly string[]): ReadonlySet<MediaPlanField> {
  const names = fields
    .flatMap((f) => f.split(','))
    .map((f) => f.trim())
    .filter((f) => f.length > 0);
  if (names.length === 0) return new Set(MEDIA_PLAN_FIELDS);
  const unknown = [...new Set(names.filter((n) => !(MEDIA_PLAN_FIELDS as readonly string[]).includes(n)))];
  if (unknown.length > 0) {
    throw validationFailed([
      {
        parameter: 'fields',
        code: 'UNKNOWN_FIELD',
        detail: `fields names ${unknown.map((n) => JSON.stringify(n)).join(', ')}, not a field of a media plan; known: ${MEDIA_PLAN_FIELDS.join(', ')}.`,
      },
    ]);
  }
  return new Set(names as MediaPlanField[]);
}

function dimensionErrors(dimensions: readonly string[], whitelist: readonly string[]): FieldError[] {
  if (dimensions.length === 0) return [{ pointer: '/dimensions', code: 'REQUIRED', detail: 'dimensions must hold at least one <width>x<height>.' }];
  if (dimensions.length > AUTO_MEDIA_PLAN_DIMENSIONS_MAX) {
    return [{ pointer: '/dimensions', code: 'TOO_MANY_ITEMS', detail: `dimensions may hold at most ${AUTO_MEDIA_PLAN_DIMENSIONS_MAX} entries.` }];
  }
  const allowed = new Set(whitelist);
  const errors: FieldError[] = [];
  dimensions.forEach((dimension, i) => {
    if (!DIMENSION.test(dimension)) {
      errors.push({ pointer: `/dimensions/${i}`, code: 'INVALID_FORMAT', detail: `${JSON.stringify(dimension)} is not <width>x<height>.` });
    } else if (!allowed.has(dimension)) {
      errors.push({
        pointer: `/dimensions/${i}`,
        code: 'DIMENSION_NOT_WHITELISTED',
        detail: `Dimension ${dimension} is not in the organization's dimension whitelist.`,
      });
    }
  });
  return errors;
}

function idErrors(pointer: string, id: number): FieldError[] {
  if (Number.isSafeInteger(id) && id >= 1) return [];
  return [{ pointer, code: 'OUT_OF_RANGE', detail: `${pointer.slice(1)} must be a positive integer.` }];
}
