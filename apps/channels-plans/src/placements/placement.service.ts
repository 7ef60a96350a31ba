import type { Knex } from 'knex';
import {
  AUTO_PLACEMENT_AD_UNIT_TYPE,
  DIMENSION_PATTERN,
  MARK_TAGS_PRESENT_MAX,
  MEDIA_PLAN_PLACEMENT_NAME_MAX,
  MEDIA_PLAN_SITE_NAME_MAX,
  PLACEMENT_PARAM_FIELDS,
  type PlacementParams,
  planOutsideCampaign,
} from '@contracts/domain';
import { blankOrTooLong, enforce, fieldTableErrors, type FieldError, notOneOf, problem, validationFailed } from '@platform/errors';
import { rethrowDuplicateKey, withTransaction } from '@platform/mysql';
import { recordChange, type EventOutbox } from '@platform/service';
import type { AdServerService } from '../ad-servers/ad-server.service';
import type { AdUnitDetails } from '../ad-units/ad-unit.model';
import type { AdUnitService } from '../ad-units/ad-unit.service';
import { mediaPlanNotFound } from '../media-plans/media-plan.service';
import type { RetailCampaignService } from '../retail-campaigns/retail-campaign.service';
import type {
  BulkTagData,
  CreatePlacementInput,
  PlacementChanges,
  PlanPlacementRecord,
  PlanPlacements,
  PlanRef,
  UpdatePlacementInput,
} from './placement.model';
import { UNIQUE_PLACEMENT_NAME, type PlacementRepository } from './placement.repository';

const DIMENSION = new RegExp(DIMENSION_PATTERN);

export const placementNotFound = (placementId: number) => problem('PLACEMENT_NOT_FOUND', `Placement ${placementId} was not found in the media plan.`);

/**
 * Placements of a media plan: what peers read to build tags and exports, and the tag-presence flag
 * the tagging service sets. Every plan is looked up within the caller's account, so another
 * account's plan reads as missing.
 */
export class PlacementService {
  constructor(
    private readonly deps: {
      knex: Knex;
      events: EventOutbox;
      placements: PlacementRepository;
      adServers: AdServerService;
      adUnits: AdUnitService;
      campaigns: RetailCampaignService;
    },
  ) {}

  /**
   * `getBulkTagData`: every placement of the plan (in id order) with its params and tag flag, grouped by
   * the ad server of its site. The plan must be one of the campaign's: another campaign's plan reads as missing.
   */
  async bulkTagData(accountId: number, mediaPlanId: number, retailCampaignId: number): Promise<BulkTagData> {
    const plan = await this.planOfCampaign(accountId, mediaPlanId, retailCampaignId);
    const adServers = new Map<string, BulkTagData['adServers'][number]>();
    for (const placement of await this.deps.placements.listForPlan(plan.mediaPlanId)) {
      let adServer = adServers.get(placement.adServerId);
      if (!adServer) {
        adServer = { adServerId: placement.adServerId, adServerName: placement.adServerName, adServerKind: placement.adServerKind, placements: [] };
        adServers.set(placement.adServerId, adServer);
      }
      adServer.placements.push(placement);
    }
    // Ad servers in the order their first site was added, as the media plan read lists them.
    const firstSite = (a: BulkTagData['adServers'][number]) => Math.min(...a.placements.map((p) => p.siteIdx));
    const ordered = [...adServers.values()].sort((a, b) => firstSite(a) - firstSite(b));
    return { mediaPlanId: plan.mediaPlanId, mediaPlanName: plan.mediaPlanName, adServers: ordered };
  }

  /** `getAdUnitDetails`: the ad-unit groups the placement's dimension offers, from the seeded catalog. */
  async adUnitDetails(accountId: number, mediaPlanId: number, retailCampaignId: number, placementId: number): Promise<AdUnitDetails> {
    const errors = idErrors('placementId', placementId, 'parameter');
    if (errors.length > 0) throw validationFailed(errors);
    const plan = await this.planOfCampaign(accountId, mediaPlanId, retailCampaignId);
    const placement = await this.deps.placements.find(plan.mediaPlanId, placementId);
    if (!placement) throw placementNotFound(placementId);
    return this.deps.adUnits.detailsFor(placement.placementId, placement.dimension);
  }

  /**
   * `createPlacement`. The placement goes on the plan's site named siteName on the ad server (the site is
   * created when the plan has none of that name there); its ad-unit type follows the ad server's kind.
   * Names are trimmed; a placement name is unique within its site (409 PLACEMENT_NAME_TAKEN).
   */
  async create(accountId: number, mediaPlanId: number, input: CreatePlacementInput): Promise<PlanPlacementRecord> {
    const catalog = await this.deps.adServers.list();
    const errors = [
      ...blankOrTooLong('/placementName', input.placementName, MEDIA_PLAN_PLACEMENT_NAME_MAX),
      ...blankOrTooLong('/siteName', input.siteName, MEDIA_PLAN_SITE_NAME_MAX),
      ...dimensionErrors(input.dimension),
      ...notOneOf(
        '/adServer',
        input.adServerId,
        catalog.map((a) => a.adServerId),
      ),
    ];
    if (errors.length > 0) throw validationFailed(errors);
    const plan = await this.plan(accountId, mediaPlanId);
    const adServer = catalog.find((a) => a.adServerId === input.adServerId);
    const placementName = input.placementName.trim();
    const placementId = await withTransaction(this.deps.knex, async (trx) => {
      const site = await this.deps.placements.siteFor(trx, plan.mediaPlanId, input.adServerId, input.siteName.trim());
      const placementId = await this.deps.placements
        .insert(trx, {
          mediaPlanId: plan.mediaPlanId,
          siteIdx: site.siteIdx,
          placementName,
          dimension: input.dimension,
          adUnitType: adUnitTypeOf(adServer?.kind),
        })
        .catch((error: unknown) => rethrowDuplicateKey(error, () => nameTaken(site.siteName, placementName), { key: UNIQUE_PLACEMENT_NAME }));
      const after = await this.deps.placements.findForChange(trx, plan.mediaPlanId, placementId);
      await recordChange(trx, this.deps.events, { resourceType: 'placement', resourceId: placementId, action: 'create', accountId, after });
      return placementId;
    });
    return this.placementOf(plan.mediaPlanId, placementId);
  }

  /**
   * `updatePlacement`. placementId and siteIdx identify the placement (a pair that does not match reads as
   * missing). A new siteName or adServer moves it to the plan's site of that name on that ad server,
   * created when missing (a site left without placements is removed); a new ad server also brings its
   * ad-unit type. Params given replace the stored ones of the same name; the others stay.
   */
  async update(accountId: number, mediaPlanId: number, input: UpdatePlacementInput): Promise<PlanPlacementRecord> {
    const catalog = input.adServerId === undefined ? [] : await this.deps.adServers.list();
    const errors = [
      ...idErrors('placementId', input.placementId, 'pointer'),
      ...idErrors('siteIdx', input.siteIdx, 'pointer'),
      ...(input.placementName === undefined ? [] : blankOrTooLong('/placementName', input.placementName, MEDIA_PLAN_PLACEMENT_NAME_MAX)),
      ...(input.siteName === undefined ? [] : blankOrTooLong('/siteName', input.siteName, MEDIA_PLAN_SITE_NAME_MAX)),
      ...(input.dimension === undefined ? [] : dimensionErrors(input.dimension)),
      ...notOneOf(
        '/adServer',
        input.adServerId,
        catalog.map((a) => a.adServerId),
      ),
      ...paramErrors(input.params),
    ];
    if (errors.length > 0) throw validationFailed(errors);
    const plan = await this.plan(accountId, mediaPlanId);
    await withTransaction(this.deps.knex, async (trx) => {
      const current = await this.deps.placements.lock(trx, plan.mediaPlanId, input.placementId);
      if (!current || current.siteIdx !== input.siteIdx) {
        throw problem('PLACEMENT_NOT_FOUND', `Placement ${input.placementId} on site ${input.siteIdx} was not found in media plan ${mediaPlanId}.`);
      }
      const before = await this.deps.placements.findForChange(trx, plan.mediaPlanId, current.placementId);
      const changes: PlacementChanges = {};
      const adServerId = input.adServerId ?? current.adServerId;
      const siteName = input.siteName?.trim() ?? current.siteName;
      let site = { siteIdx: current.siteIdx, siteName: current.siteName };
      if (adServerId !== current.adServerId || siteName !== current.siteName) {
        site = await this.deps.placements.siteFor(trx, plan.mediaPlanId, adServerId, siteName);
        if (site.siteIdx !== current.siteIdx) changes.siteIdx = site.siteIdx;
      }
      if (adServerId !== current.adServerId) changes.adUnitType = adUnitTypeOf(catalog.find((a) => a.adServerId === adServerId)?.kind);
      if (input.placementName !== undefined) changes.placementName = input.placementName.trim();
      if (input.dimension !== undefined) changes.dimension = input.dimension;
      const given = Object.fromEntries(Object.entries(input.params ?? {}).filter(([, value]) => value !== undefined));
      if (Object.keys(given).length > 0) changes.paramsJson = JSON.stringify({ ...(JSON.parse(current.paramsJson) as PlacementParams), ...given });
      await this.deps.placements
        .update(trx, current.placementId, changes)
        .catch((error: unknown) =>
          rethrowDuplicateKey(error, () => nameTaken(site.siteName, changes.placementName ?? current.placementName), { key: UNIQUE_PLACEMENT_NAME }),
        );
      if (changes.siteIdx !== undefined) await this.deps.placements.deleteSiteIfEmpty(trx, current.siteIdx);
      const after = await this.deps.placements.findForChange(trx, plan.mediaPlanId, current.placementId);
      await recordChange(trx, this.deps.events, { resourceType: 'placement', resourceId: current.placementId, action: 'update', accountId, before, after });
    });
    return this.placementOf(plan.mediaPlanId, input.placementId);
  }

  /** The plan (with its campaign) and every placement, in placement id order. */
  async listForPlan(accountId: number, mediaPlanId: number): Promise<PlanPlacements> {
    const plan = await this.plan(accountId, mediaPlanId);
    return { ...plan, placements: await this.deps.placements.listForPlan(plan.mediaPlanId) };
  }

  /**
   * Sets isTagPresent on the named placements of the plan. All or nothing: one id that is not a
   * placement of the plan refuses the whole call (404 naming every such id) and changes nothing.
   * Idempotent: a placement already marked stays marked. Answers the number of distinct placements
   * named, every one of which is marked afterwards.
   */
  async markTagsPresent(accountId: number, mediaPlanId: number, placementIds: readonly number[]): Promise<number> {
    const errors = placementIdErrors(placementIds);
    if (errors.length > 0) throw validationFailed(errors);
    const plan = await this.plan(accountId, mediaPlanId);
    const ids = [...new Set(placementIds)];
    if (ids.length === 0) return 0;
    return withTransaction(this.deps.knex, async (trx) => {
      const found = new Set(await this.deps.placements.lockInPlan(trx, plan.mediaPlanId, ids));
      const unknown = ids.filter((id) => !found.has(id));
      if (unknown.length > 0) {
        throw problem(
          'PLACEMENT_NOT_FOUND',
          `Placement${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not in media plan ${mediaPlanId}; nothing was marked.`,
        );
      }
      await this.deps.placements.markTagsPresent(trx, plan.mediaPlanId, ids);
      return ids.length;
    });
  }

  /** The campaign must be the account's, and the plan one of the campaign's. */
  private async planOfCampaign(accountId: number, mediaPlanId: number, retailCampaignId: number): Promise<PlanRef> {
    await this.deps.campaigns.get(accountId, retailCampaignId);
    const plan = await this.plan(accountId, mediaPlanId);
    enforce(planOutsideCampaign(plan, { mediaPlanId, retailCampaignId }));
    return plan;
  }

  private async placementOf(mediaPlanId: number, placementId: number): Promise<PlanPlacementRecord> {
    const placement = await this.deps.placements.find(mediaPlanId, placementId);
    if (!placement) throw placementNotFound(placementId);
    return placement;
  }

  private async plan(accountId: number, mediaPlanId: number): Promise<PlanRef> {
    const plan = await this.deps.placements.findPlan(accountId, mediaPlanId);
    if (!plan) throw mediaPlanNotFound(mediaPlanId);
    return plan;
  }
}

function placementIdErrors(placementIds: readonly number[]): FieldError[] {
  if (placementIds.length > MARK_TAGS_PRESENT_MAX) {
    return [{ pointer: '/placementIds', code: 'TOO_MANY_ITEMS', detail: `placementIds may hold at most ${MARK_TAGS_PRESENT_MAX} ids.` }];
  }
  return placementIds.flatMap((id, i) =>
    Number.isSafeInteger(id) && id >= 1 ? [] : [{ pointer: `/placementIds/${i}`, code: 'OUT_OF_RANGE', detail: 'placement ids must be positive integers.' }],
  );
}

const nameTaken = (siteName: string, placementName: string) =>
  problem('PLACEMENT_NAME_TAKEN', `Site ${JSON.stringify(siteName)} already has a placement named ${JSON.stringify(placementName)}.`);

/** Placements take the ad-unit type of their ad server's kind, as auto plans do. */
const adUnitTypeOf = (kind: string | undefined) => AUTO_PLACEMENT_AD_UNIT_TYPE[kind as keyof typeof AUTO_PLACEMENT_AD_UNIT_TYPE] ?? 'display';

function dimensionErrors(dimension: string): FieldError[] {
  if (DIMENSION.test(dimension)) return [];
  return [{ pointer: '/dimension', code: 'INVALID_FORMAT', detail: `${JSON.stringify(dimension)} is not <width>x<height> (1 to 99999 pixels each).` }];
}

function idErrors(name: string, id: number, where: 'pointer' | 'parameter'): FieldError[] {
  if (Number.isSafeInteger(id) && id >= 1) return [];
  const detail = `${name} must be a positive integer.`;
  return [where === 'pointer' ? { pointer: `/${name}`, code: 'OUT_OF_RANGE', detail } : { parameter: name, code: 'OUT_OF_RANGE', detail }];
}

function paramErrors(params: PlacementParams | undefined): FieldError[] {
  if (!params) return [];
  return fieldTableErrors(PLACEMENT_PARAM_FIELDS, 'update', params, { rejectUnknown: 'an ad-server parameter of a placement' });
}
