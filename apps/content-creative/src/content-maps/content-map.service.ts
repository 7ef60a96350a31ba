import {
  CONTENT_DISPLAY_COLUMNS,
  CONTENT_IMAGE_COLUMNS,
  firstRowText,
  type ContentType,
  effectivePage,
  type ExportManifest,
  planOutsideCampaign,
} from '@contracts/domain';
import type { Knex } from 'knex';
import { AppError, enforce, type FieldError, problem, validationFailed } from '@platform/errors';
import { withTransaction } from '@platform/mysql';
import { recordChange, type EventOutbox } from '@platform/service';
import type { CampaignFacts, ContentMapInput, ContentMapKey, PlanFacts, StoredContentMap, StoredPlacement } from './content-map.model';
import { findRowsBatched, type AssetSourcesPeer } from '../peers/asset-sources.peer';
import type { ChannelsPlansPeer } from '../peers/channels-plans.peer';
import type { ContentMapRepository } from './content-map.repository';
import type { ExportService } from '../exports/export.service';
import { contentMapFactErrors, contentMapShapeErrors, lookupColumn, missingValueErrors } from './content-map.rules';

export interface ContentItemView {
  contentValue: string;
  displayValue: string | null;
  productImageUrl: string | null;
  /** `objectPath` (under the account's files) when a rendered preview exists; else `url` is the item's image. */
  previewUrls: { adUnitId: number; url: string | null; objectPath?: string }[];
}

export interface PlacementView {
  placementId: string;
  externalPlacementId: string | null;
  placementName: string | null;
  dimension: string | null;
  content: ContentItemView[];
}

export interface ContentMapView {
  contentType: ContentType | null;
  numOfCards: number | null;
  isAdGroupCampaign: boolean;
  placementContentMap: PlacementView[];
  adGroupPlacementCreativeMap: { adGroupId: string; adGroupName: string[]; status: string[]; placementCreativeMap: PlacementView[] }[];
  total: number;
}

export class ContentMapService {
  constructor(
    private readonly knex: Knex,
    private readonly events: EventOutbox,
    private readonly maps: ContentMapRepository,
    private readonly exports: Pick<ExportService, 'latestPreviewExport'>,
  ) {}

  /**
   * Checks the map (its own rules, then the campaign and plan, then the asset source's values) and
   * replaces the stored map with it in one transaction. Nothing changes unless every rule holds.
   */
  async save(key: ContentMapKey, input: ContentMapInput, channels: ChannelsPlansPeer, assets: AssetSourcesPeer): Promise<number> {
    const shape = contentMapShapeErrors(input);
    if (shape.length > 0) throw validationFailed(shape);
    const { campaign, plan } = await this.campaignAndPlan(key, channels);
    const facts = contentMapFactErrors(input, campaign, plan);
    if (facts.length > 0) throw validationFailed(facts);
    const contentType = input.contentType as ContentType;
    const column = input.dataServiceId === undefined ? null : await this.checkValues(key.accountId, input, contentType, assets);

    const placements: StoredPlacement[] = input.adGroupPlacementCreativeMap.flatMap((entry) =>
      entry.placementCreativeMap.map((p) => ({
        adGroupId: entry.adGroupId === '' ? 0 : Number(entry.adGroupId),
        adGroupName: entry.adGroupName ?? null,
        status: entry.status ?? null,
        placementId: Number(p.placementId),
        externalPlacementId: p.externalPlacementId ?? null,
        placementName: p.placementName ?? null,
        dimension: p.dimension ?? null,
        siteId: p.siteId ?? null,
        content: p.content,
      })),
    );
    await withTransaction(this.knex, async (trx) => {
      const before = await this.maps.snapshotForChange(trx, key);
      await this.maps.replace(trx, key, { contentType, dataServiceId: input.dataServiceId ?? null, lookupColumn: column }, placements);
      const after = await this.maps.snapshotForChange(trx, key);
      await recordChange(trx, this.events, {
        resourceType: 'content-map',
        resourceId: `${key.retailCampaignId}:${key.mediaPlanId}`,
        action: before ? 'update' : 'create',
        accountId: key.accountId,
        before,
        after,
      });
    });
    return placements.length;
  }

  async get(
    key: ContentMapKey,
    page: { offset?: number; limit?: number } | undefined,
    channels: ChannelsPlansPeer,
    assets: AssetSourcesPeer,
  ): Promise<ContentMapView> {
    const window = effectivePage(page);
    const { campaign, plan } = await this.campaignAndPlan(key, channels);
    const header = await this.maps.header(key);
    const view: ContentMapView = {
      contentType: header?.contentType ?? null,
      numOfCards: header ? header.numOfCards : null,
      isAdGroupCampaign: campaign.isAdGroupCampaign,
      placementContentMap: [],
      adGroupPlacementCreativeMap: [],
      total: 0,
    };
    if (!header) return view;
    const previews = await this.previews(key);
    const planPlacements = new Map(plan.placements.map((p) => [p.placementId, p]));
    if (!campaign.isAdGroupCampaign) {
      const placements = await this.maps.placementsPage(key, window);
      const rows = await this.rowsFor(key.accountId, header, placements.items, assets);
      view.placementContentMap = placements.items.map((p) => present(p, planPlacements, rows, previews));
      view.total = placements.total;
      return view;
    }
    const groups = await this.maps.adGroupsPage(key, window);
    const rows = await this.rowsFor(
      key.accountId,
      header,
      groups.items.flatMap((g) => g.placements),
      assets,
    );
    const names = new Map(campaign.adGroups.map((g) => [g.adGroupId, g.adGroupName]));
    view.adGroupPlacementCreativeMap = groups.items.map((group) => {
      const first = group.placements[0];
      const name = first?.adGroupName ?? names.get(group.adGroupId);
      return {
        adGroupId: String(group.adGroupId),
        adGroupName: name ? [name] : [],
        status: first?.status ? [first.status] : [],
        placementCreativeMap: group.placements.map((p) => present(p, planPlacements, rows, previews)),
      };
    });
    view.total = groups.total;
    return view;
  }

  /**
   * The rendered creative of each placement and content value in the campaign's newest completed
   * preview export, by `<placementId> <contentValue>`: what previewUrls point at once one exists.
   */
  private async previews(key: ContentMapKey): Promise<Map<string, string>> {
    const latest = await this.exports.latestPreviewExport(key.accountId, key.retailCampaignId);
    if (!latest?.manifestJson) return new Map();
    const manifest = JSON.parse(latest.manifestJson) as ExportManifest;
    return new Map(
      manifest.assets.filter((a) => a.status === 'COMPLETED' && a.previewPath).map((a) => [previewKey(a.placementId, a.contentValue), a.previewPath as string]),
    );
  }

  /** The campaign and the plan, which must be one of the campaign's: a plan of another campaign is as missing as one that does not exist. */
  private async campaignAndPlan(key: ContentMapKey, channels: ChannelsPlansPeer): Promise<{ campaign: CampaignFacts; plan: PlanFacts }> {
    // Asked side by side, but a missing campaign is reported before a missing plan, whichever answers first.
    const [campaignAnswer, planAnswer] = await Promise.allSettled([
      channels.campaign(key.accountId, key.retailCampaignId),
      channels.plan(key.accountId, key.mediaPlanId),
    ]);
    if (campaignAnswer.status === 'rejected') throw campaignAnswer.reason;
    if (planAnswer.status === 'rejected') throw planAnswer.reason;
    const [campaign, plan] = [campaignAnswer.value, planAnswer.value];
    enforce(planOutsideCampaign(plan, key));
    return { campaign, plan };
  }

  /** Every content value must be a row of the asset source; answers the column they were found in. */
  private async checkValues(accountId: number, input: ContentMapInput, contentType: ContentType, assets: AssetSourcesPeer): Promise<string | null> {
    const sourceId = input.dataServiceId as number;
    const source = (await assets.describe(accountId, [sourceId])).find((s) => s.assetSourceId === sourceId);
    const refuse = (error: FieldError) => validationFailed([error]);
    if (!source) throw refuse({ pointer: '/dataServiceId', code: 'UNKNOWN_ASSET_SOURCE', detail: `Asset source ${sourceId} does not exist in this account.` });
    const column = lookupColumn(contentType, source);
    if (column === null) return null;
    if (!source.columnNames.includes(column))
      throw refuse({
        pointer: '/dataServiceId',
        code: 'MISSING_COLUMN',
        detail: `Asset source ${sourceId} has no ${column} column to look ${contentType} values up in.`,
      });
    const values = [...new Set(input.adGroupPlacementCreativeMap.flatMap((e) => e.placementCreativeMap.flatMap((p) => p.content)))];
    const found = await findRowsBatched(assets, accountId, sourceId, column, values);
    const missing = missingValueErrors(input, new Set(found.keys()), column);
    if (missing.length > 0) {
      const names = values.filter((v) => !found.has(v)).map((v) => JSON.stringify(v));
      throw problem('VALIDATION_FAILED', `Asset source ${sourceId} has no ${column} ${names.join(', ')}.`, { errors: missing });
    }
    return column;
  }

  private async rowsFor(
    accountId: number,
    header: StoredContentMap,
    placements: readonly StoredPlacement[],
    assets: AssetSourcesPeer,
  ): Promise<Map<string, Record<string, unknown>>> {
    if (header.dataServiceId === null || header.lookupColumn === null) return new Map();
    const values = [...new Set(placements.flatMap((p) => p.content))];
    if (values.length === 0) return new Map();
    try {
      return await findRowsBatched(assets, accountId, header.dataServiceId, header.lookupColumn, values);
    } catch (error) {
      // The source was removed or lost the column after the save: the map still reads, its items unenriched.
      if (error instanceof AppError && (error.status === 404 || error.status === 400)) return new Map();
      throw error;
    }
  }
}

const previewKey = (placementId: number, contentValue: string) => `${placementId} ${contentValue}`;

function present(
  p: StoredPlacement,
  plan: ReadonlyMap<number, { placementName: string; dimension: string }>,
  rows: ReadonlyMap<string, Record<string, unknown>>,
  previews: ReadonlyMap<string, string>,
): PlacementView {
  const current = plan.get(p.placementId);
  return {
    placementId: String(p.placementId),
    externalPlacementId: p.externalPlacementId,
    placementName: p.placementName ?? current?.placementName ?? null,
    dimension: p.dimension ?? current?.dimension ?? null,
    content: p.content.map((value) => {
      const row = rows.get(value);
      const productImageUrl = firstRowText(row, CONTENT_IMAGE_COLUMNS);
      const rendered = previews.get(previewKey(p.placementId, value));
      return {
        contentValue: value,
        displayValue: row ? (firstRowText(row, CONTENT_DISPLAY_COLUMNS) ?? value) : null,
        productImageUrl,
        // The placement is the ad unit; its preview is the creative of the newest preview export, else the item's image.
        previewUrls: [rendered ? { adUnitId: p.placementId, url: null, objectPath: rendered } : { adUnitId: p.placementId, url: productImageUrl }],
      };
    }),
  };
}
