import type { ExportManifest, ServingCampaign } from '@contracts/domain';
import { AppError } from '@platform/errors';
import { createLogger } from '@platform/logging';
import { CampaignRepository } from '../campaigns/campaign.repository';
import { openContentCreativeTestBed, type ContentCreativeTestBed } from '../content-creative.test-support';
import { ContentMapRepository } from '../content-maps/content-map.repository';
import { ExportRepository } from '../exports/export.repository';
import type { ServingPeers } from './serving-snapshot.service';
import { ServingSnapshotService } from './serving-snapshot.service';

const ACCOUNT = 601;
const CAMPAIGN = 81;
const PLAN = 91;

/** The peers as serving sees them: channels-plans with one campaign and plan, asset-sources with two rows, tagging-trackers with one record. */
function peers(status = 'ACTIVE', campaignExists = true): ServingPeers {
  return {
    channels: {
      campaign: async (_accountId, retailCampaignId) => {
        if (!campaignExists || retailCampaignId !== CAMPAIGN) throw new AppError('RETAIL_CAMPAIGN_NOT_FOUND', 'Retail campaign not found.');
        return { retailCampaignId, campaignName: 'Spring sale', status, templateIdx: null, isAdGroupCampaign: false, isSbt: false, adGroups: [] };
      },
      plan: async () => ({
        retailCampaignId: CAMPAIGN,
        placements: [
          { placementId: 11, placementName: 'Leaderboard', dimension: '728x90', adServerKind: 'display' },
          { placementId: 12, placementName: 'Gone soon', dimension: '300x250', adServerKind: 'display' },
        ],
      }),
    },
    assets: {
      describe: async () => [],
      findRows: async (_account, _source, column, values) =>
        new Map(
          values
            .filter((v) => v === 'SKU-1' || v === 'SKU-2')
            .map((v) => [
              v,
              { [column]: v, name: `Product ${v}`, imageUrl: `https://img.example/${v}.png`, price: 4.5, productUrl: `https://shop.example/${v}`, cta: 'Buy' },
            ]),
        ),
    },
    trackers: { placementTrackers: async () => new Map([[11, { primaryClickTracker: ['https://trk.example/c'] }]]) },
  };
}

describe('serving snapshots (content-creative, on MariaDB)', () => {
  let bed: ContentCreativeTestBed;
  let stored: Map<number, ServingCampaign>;
  let snapshots: ServingSnapshotService;

  beforeAll(async () => {
    bed = await openContentCreativeTestBed('serving');
    stored = new Map();
    snapshots = new ServingSnapshotService(
      new ContentMapRepository(bed.db),
      new ExportRepository(bed.db),
      new CampaignRepository(bed.db),
      {
        put: async (campaign) => void stored.set(campaign.retailCampaignId, campaign),
        remove: async (id) => void stored.delete(id),
      },
      createLogger({ service: 'serving-spec', level: 'silent' }),
    );
    const [mapId] = await bed.db.knex('content_maps').insert({
      account_id: ACCOUNT,
      retail_campaign_id: CAMPAIGN,
      media_plan_id: PLAN,
      content_type: 'Product',
      data_service_id: 5,
      lookup_column: 'sku',
    });
    await bed.db.knex('content_map_placements').insert([
      { content_map_id: mapId, ad_group_id: 0, placement_id: 11, content: JSON.stringify(['SKU-1', 'SKU-2', 'SKU-3']), position: 0 },
      // A placement the plan no longer holds serves nothing.
      { content_map_id: mapId, ad_group_id: 0, placement_id: 13, content: JSON.stringify(['SKU-1']), position: 1 },
    ]);
    const manifest: Pick<ExportManifest, 'assets'> = {
      assets: [
        {
          mediaPlanId: PLAN,
          placementId: 11,
          placementName: 'Leaderboard',
          contentValue: 'SKU-1',
          dimension: '728x90',
          resolution: 2,
          fileName: 'a.png',
          bytes: 10,
          previewPath: 'exports/x/files/a.png',
          status: 'COMPLETED',
        },
        {
          mediaPlanId: PLAN,
          placementId: 11,
          placementName: 'Leaderboard',
          contentValue: 'SKU-2',
          dimension: '728x90',
          resolution: 2,
          fileName: '',
          bytes: 0,
          status: 'FAILED',
          error: 'no image',
        },
        {
          // Not kept on its own: served as its entry of the zip.
          mediaPlanId: PLAN,
          placementId: 11,
          placementName: 'Leaderboard',
          contentValue: 'SKU-3',
          dimension: '728x90',
          resolution: 2,
          fileName: '11-SKU-3.png',
          bytes: 12,
          zipOffset: 58,
          status: 'COMPLETED',
        },
      ],
    };
    await bed.db.knex('exports').insert({
      queue_id: 'q-1',
      account_id: ACCOUNT,
      org_id: 'org-1',
      retail_campaign_id: CAMPAIGN,
      campaign_name: 'Spring sale',
      asset_export_type: 'png',
      resolution: 2,
      status: 'COMPLETED',
      object_path: 'exports/x/a.zip',
      manifest: JSON.stringify(manifest),
    });
    await bed.db.knex('dynamic_campaigns').insert({
      account_id: ACCOUNT,
      campaign_name: 'Weather',
      default_url: 'https://shop.example/',
      asset_map: '[]',
      decision_map: '[]',
      decision_graph: JSON.stringify({ defaultCreativeMaster: 'SKU-1', rulePriority: 'EQUAL_ROTATION', segments: [] }),
      ad_id: 'ad-1',
      ad_title: 'Weather',
    });
  });
  afterAll(async () => {
    await bed?.close();
  });

  it("compiles the campaign's placements, items from the asset rows, exported files, trackers, graphs and signal names", async () => {
    const compiled = await snapshots.refreshCampaign(ACCOUNT, CAMPAIGN, peers());
    expect(stored.get(CAMPAIGN)).toEqual(compiled);
    expect(compiled).toMatchObject({ accountId: ACCOUNT, retailCampaignId: CAMPAIGN, status: 'ACTIVE', campaignName: 'Spring sale' });
    expect(Object.keys(compiled?.placements ?? {})).toEqual(['11']);
    const placement = compiled?.placements['11'];
    expect(placement).toMatchObject({
      placementId: 11,
      mediaPlanId: PLAN,
      name: 'Leaderboard',
      width: 728,
      height: 90,
      trackers: { primaryClickTracker: ['https://trk.example/c'] },
    });
    expect(placement?.items).toEqual([
      {
        contentValue: 'SKU-1',
        name: 'Product SKU-1',
        imageUrl: 'https://img.example/SKU-1.png',
        price: '4.5',
        landingUrl: 'https://shop.example/SKU-1',
        callToAction: 'Buy',
        exports: { png: { path: 'exports/x/files/a.png', width: 1456, height: 180 } },
      },
      expect.objectContaining({ contentValue: 'SKU-2', exports: {} }),
      // A value the source no longer has still serves, unenriched; its still is its entry of the export's zip.
      {
        contentValue: 'SKU-3',
        name: null,
        imageUrl: null,
        price: null,
        landingUrl: null,
        callToAction: null,
        exports: { png: { path: 'exports/x/a.zip', entry: { name: '11-SKU-3.png', offset: 58, bytes: 12 }, width: 1456, height: 180 } },
      },
    ]);
    expect(Object.values(compiled?.dynamicCampaigns ?? {})).toEqual([
      expect.objectContaining({ defaultUrl: 'https://shop.example/', graph: expect.objectContaining({ rulePriority: 'EQUAL_ROTATION' }) }),
    ]);
    expect(compiled?.signals['weather.temperature']).toEqual({ dataSignalId: 3, propertyId: 'temperature', valueType: 'number' });
    expect(compiled?.signals['3.temperature']).toEqual({ dataSignalId: 3, propertyId: 'temperature', valueType: 'number' });
  });

  it('keeps the status as channels-plans reports it (the ad server serves ACTIVE only), and removes a campaign that is gone', async () => {
    expect((await snapshots.refreshCampaign(ACCOUNT, CAMPAIGN, peers('PAUSED')))?.status).toBe('PAUSED');
    expect(await snapshots.refreshCampaign(ACCOUNT, CAMPAIGN, peers('ACTIVE', false))).toBeNull();
    expect(stored.has(CAMPAIGN)).toBe(false);
  });

  it('refreshes every campaign of an account with a map, and lists the accounts that have one', async () => {
    expect(await snapshots.refreshAccount(ACCOUNT, peers())).toBe(1);
    expect(stored.has(CAMPAIGN)).toBe(true);
    expect(await snapshots.accountsWithMaps()).toEqual([ACCOUNT]);
    expect(await snapshots.refreshAccount(ACCOUNT + 1, peers())).toBe(0);
  });
});
