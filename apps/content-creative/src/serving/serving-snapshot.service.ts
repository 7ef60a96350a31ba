import {
  CONTENT_CTA_COLUMNS,
  CONTENT_DISPLAY_COLUMNS,
  CONTENT_IMAGE_COLUMNS,
  CONTENT_LANDING_COLUMNS,
  CONTENT_PRICE_COLUMNS,
  firstRowText,
  parseDimension,
  SERVING_EXPORT_FORMATS,
  SERVING_SNAPSHOT_VERSION,
  servingSignalNames,
  type ExportManifest,
  type ServingCampaign,
  type ServingExportFile,
  type ServingExportFormat,
  type ServingItem,
  type ServingPlacement,
  type ServingSignal,
} from '@contracts/domain';
import { AppError } from '@platform/errors';
import type { Logger } from '@platform/logging';
import type { CampaignRepository } from '../campaigns/campaign.repository';
import { DATA_SIGNAL_CATALOG } from '../data-signals/data-signal.catalog';
import type { ContentMapRepository } from '../content-maps/content-map.repository';
import type { ExportRepository } from '../exports/export.repository';
import { rowsOfMap, type AssetSourcesPeer } from '../peers/asset-sources.peer';
import type { ChannelsPlansPeer } from '../peers/channels-plans.peer';
import type { TaggingTrackersPeer } from '../peers/tagging-trackers.peer';

/** The peers compiling asks, bound to a principal scoped to the one account compiled. */
export interface ServingPeers {
  channels: ChannelsPlansPeer;
  assets: AssetSourcesPeer;
  trackers: TaggingTrackersPeer;
}

/** Where compiled campaigns go: the key-value bucket every ad-server replica watches. */
export interface ServingSnapshotStore {
  put(campaign: ServingCampaign): Promise<void>;
  remove(retailCampaignId: number): Promise<void>;
}

/** Dynamic campaigns carried per snapshot: the graphs a tag's `dc` may name. */
export const SERVING_DYNAMIC_CAMPAIGNS_MAX = 500;

const isNotFound = (error: unknown) => error instanceof AppError && error.status === 404;

/** `300x250` as numbers; 0 x 0 for a dimension that is not one (the placement then serves at its content's size). */
const size = (dimension: string) => parseDimension(dimension) ?? { width: 0, height: 0 };

/** Every catalog property under each name a tag may give it. */
const SIGNALS: Record<string, ServingSignal> = Object.fromEntries(
  DATA_SIGNAL_CATALOG.flatMap((signal) =>
    signal.properties.flatMap((property) =>
      servingSignalNames(signal.dataSignalId, signal.dataSignalName, property.propertyId).map((name) => [
        name,
        { dataSignalId: signal.dataSignalId, propertyId: property.propertyId, valueType: property.valueType },
      ]),
    ),
  ),
);

const fileKey = (placementId: number, contentValue: string) => `${placementId} ${contentValue}`;

/**
 * Compiles what ad serving needs of one retail campaign (placements, content items with their rows and
 * exported files, trackers, the account's decision graphs) into one document and stores it, so the ad
 * server answers from memory. Compiling is idempotent: it reads the current state whole every time.
 */
export class ServingSnapshotService {
  constructor(
    private readonly maps: ContentMapRepository,
    private readonly exports: ExportRepository,
    private readonly campaigns: CampaignRepository,
    private readonly store: ServingSnapshotStore,
    private readonly logger: Logger,
  ) {}

  /** Compiles and stores one campaign; a campaign that no longer exists (or has no map) is removed from serving. */
  async refreshCampaign(accountId: number, retailCampaignId: number, peers: ServingPeers): Promise<ServingCampaign | null> {
    const compiled = await this.compile(accountId, retailCampaignId, peers);
    if (compiled) await this.store.put(compiled);
    else await this.store.remove(retailCampaignId);
    return compiled;
  }

  /** Every campaign of the account with a content map; each failure is logged and the others go on. Answers how many were stored. */
  async refreshAccount(accountId: number, peers: ServingPeers): Promise<number> {
    let stored = 0;
    for (const { retailCampaignId } of await this.maps.campaignsWithMaps(accountId)) {
      try {
        if (await this.refreshCampaign(accountId, retailCampaignId, peers)) stored++;
      } catch (error) {
        this.logger.warn({ err: error, accountId, retailCampaignId }, 'serving snapshot not compiled');
      }
    }
    return stored;
  }

  /** The accounts that have something to serve. */
  async accountsWithMaps(): Promise<number[]> {
    return [...new Set((await this.maps.campaignsWithMaps()).map((c) => c.accountId))];
  }

  async compile(accountId: number, retailCampaignId: number, peers: ServingPeers): Promise<ServingCampaign | null> {
    const facts = await peers.channels.campaign(accountId, retailCampaignId).catch((error: unknown) => {
      if (isNotFound(error)) return null;
      throw error;
    });
    const maps = await this.maps.ofCampaign(accountId, retailCampaignId);
    if (!facts || maps.length === 0) return null;
    const files = await this.exportedFiles(accountId, retailCampaignId);
    const placements: Record<string, ServingPlacement> = {};
    for (const map of maps) {
      const plan = await peers.channels.plan(accountId, map.mediaPlanId).catch((error: unknown) => {
        // A plan deleted since the map was saved has nothing left to serve.
        if (isNotFound(error)) return null;
        throw error;
      });
      if (!plan) continue;
      const rows = await this.rows(accountId, map, peers.assets);
      const trackers = await peers.trackers.placementTrackers(accountId, map.mediaPlanId, retailCampaignId);
      const current = new Map(plan.placements.map((p) => [p.placementId, p]));
      for (const stored of map.placements) {
        const placement = current.get(stored.placementId);
        // Ad-group campaigns list a placement once per ad group; it serves the union, first listing first.
        const existing = placements[String(stored.placementId)];
        if (!placement) continue;
        const items = stored.content.map((contentValue) => item(contentValue, rows.get(contentValue), files, stored.placementId));
        if (existing) {
          const known = new Set(existing.items.map((i) => i.contentValue));
          existing.items.push(...items.filter((i) => !known.has(i.contentValue)));
          continue;
        }
        placements[String(stored.placementId)] = {
          placementId: stored.placementId,
          mediaPlanId: map.mediaPlanId,
          name: placement.placementName,
          ...size(placement.dimension),
          adServerKind: placement.adServerKind,
          items,
          trackers: trackers.get(stored.placementId) ?? {},
        };
      }
    }
    const dynamicCampaigns: ServingCampaign['dynamicCampaigns'] = {};
    for (const campaign of await this.campaigns.allOfAccount(accountId, SERVING_DYNAMIC_CAMPAIGNS_MAX)) {
      dynamicCampaigns[String(campaign.campaignId)] = { campaignId: campaign.campaignId, defaultUrl: campaign.defaultURL, graph: campaign.decisionGraph };
    }
    return {
      version: SERVING_SNAPSHOT_VERSION,
      compiledAt: new Date().toISOString(),
      accountId,
      retailCampaignId,
      campaignName: facts.campaignName,
      status: facts.status,
      defaultUrl: null,
      placements,
      dynamicCampaigns,
      signals: SIGNALS,
    };
  }

  /**
   * The files each placement and content value has in the newest completed export of each serving
   * format: a file kept on its own beside the zip (`previewPath` in the manifest: mp4 exports, and png
   * exports made before stills were served from the zip), else the file's entry in the zip (`zipOffset`).
   */
  private async exportedFiles(accountId: number, retailCampaignId: number): Promise<Map<string, ServingItem['exports']>> {
    const byItem = new Map<string, ServingItem['exports']>();
    for (const format of SERVING_EXPORT_FORMATS) {
      const latest = await this.exports.latestCompleted(accountId, retailCampaignId, format, false);
      if (!latest?.manifestJson) continue;
      const manifest = JSON.parse(latest.manifestJson) as ExportManifest;
      for (const asset of manifest.assets) {
        if (asset.status !== 'COMPLETED') continue;
        const located: Pick<ServingExportFile, 'path' | 'entry'> | undefined = asset.previewPath
          ? { path: asset.previewPath }
          : asset.zipOffset !== undefined
            ? { path: latest.objectPath, entry: { name: asset.fileName, offset: asset.zipOffset, bytes: asset.bytes } }
            : undefined;
        if (!located) continue;
        const { width, height } = size(asset.dimension);
        const file: ServingExportFile = {
          ...located,
          width: width * asset.resolution,
          height: height * asset.resolution,
          ...(asset.durationSeconds ? { durationSeconds: asset.durationSeconds } : {}),
        };
        // A carousel's one file shows every item of its placement (its content value lists them): each item serves it.
        for (const contentValue of asset.contentValue.split(', ')) {
          const key = fileKey(asset.placementId, contentValue);
          const files = byItem.get(key) ?? {};
          if (!files[format as ServingExportFormat]) byItem.set(key, { ...files, [format as ServingExportFormat]: file });
        }
      }
    }
    return byItem;
  }

  private async rows(
    accountId: number,
    map: { dataServiceId: number | null; lookupColumn: string | null; placements: { content: string[] }[] },
    assets: AssetSourcesPeer,
  ): Promise<Map<string, Record<string, unknown>>> {
    try {
      return await rowsOfMap(assets, accountId, map);
    } catch (error) {
      // The source was removed or lost the column: the items still serve, from their exported files.
      if (error instanceof AppError && (error.status === 404 || error.status === 400)) return new Map();
      throw error;
    }
  }
}

function item(contentValue: string, row: Record<string, unknown> | undefined, files: Map<string, ServingItem['exports']>, placementId: number): ServingItem {
  return {
    contentValue,
    name: firstRowText(row, CONTENT_DISPLAY_COLUMNS),
    imageUrl: firstRowText(row, CONTENT_IMAGE_COLUMNS),
    price: firstRowText(row, CONTENT_PRICE_COLUMNS),
    landingUrl: firstRowText(row, CONTENT_LANDING_COLUMNS),
    callToAction: firstRowText(row, CONTENT_CTA_COLUMNS),
    exports: files.get(fileKey(placementId, contentValue)) ?? {},
  };
}
