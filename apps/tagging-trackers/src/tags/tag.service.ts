import { AD_SERVER_ID_MAX, campaignNotActive, planOutsideCampaign, TAG_CSV_PAGE_ROWS } from '@contracts/domain';
import type { Knex } from 'knex';
import { enforce, enforceAt, problem, validationFailed } from '@platform/errors';
import { withTransaction } from '@platform/mysql';
import { macrosOf, type AdServerMacros } from '../macros/macro.registry';
import type { ChannelsPlansPeer } from '../peers/channels-plans.peer';
import type { TagVariableMapService } from '../tag-variable-maps/tag-variable-map.service';
import { buildTag, tagErrors } from './tag.builder';
import type { CampaignTagRow, SingleTagOptions } from './tag.model';
import type { TagRepository } from './tag.repository';

export interface GeneratedTag {
  message: string;
  tagMetadataId: number;
  tagValue: string;
}

const unknownAdServer = (adServerId: string) =>
  validationFailed([
    { pointer: '/adServerId', code: 'UNKNOWN_AD_SERVER', detail: `adServerId ${JSON.stringify(adServerId)} is not an ad server of the catalog.` },
  ]);

/**
 * Single tags for placements of media plans, and the campaign's current tags for the tag CSV. Plans,
 * placements and campaigns belong to channels-plans, asked on behalf of the caller.
 */
export class TagService {
  constructor(
    private readonly knex: Knex,
    private readonly tags: TagRepository,
    private readonly tagVariableMaps: TagVariableMapService,
    private readonly publicBaseUrl: string,
  ) {}

  async generate(peer: ChannelsPlansPeer, accountId: number, mediaPlanId: number, placementId: number, options: SingleTagOptions): Promise<GeneratedTag> {
    const macros = await this.macrosInCatalog(peer, options.adServerId);
    const errors = tagErrors(options, macros);
    if (errors.length > 0) throw validationFailed(errors);

    const plan = await peer.plan(accountId, mediaPlanId);
    enforceAt('/campaignId', planOutsideCampaign(plan, { mediaPlanId, retailCampaignId: options.campaignId }));
    const placement = plan.placements.find((p) => p.placementId === placementId);
    if (!placement) throw problem('PLACEMENT_NOT_FOUND', `Placement ${placementId} was not found in media plan ${mediaPlanId}.`);
    if (placement.adServerId !== options.adServerId) {
      throw validationFailed([
        {
          pointer: '/adServerId',
          code: 'AD_SERVER_MISMATCH',
          detail: `Placement ${placementId} runs on ad server ${placement.adServerId}, not ${options.adServerId}.`,
        },
      ]);
    }

    const maps = await this.tagVariableMaps.listChecked(accountId, options.campaignId);
    const campaignSignals = Object.fromEntries(maps.filter((m) => m.adServerId === options.adServerId).map((m) => [m.dataSignal, m.macroName]));
    const tagPlacement = { mediaPlanId, placementId, placementName: placement.placementName, siteName: placement.siteName, dimension: placement.dimension };
    const tag = {
      ...tagPlacement,
      accountId,
      campaignId: options.campaignId,
      adServerId: options.adServerId,
      kind: options.kind,
      optionsJson: JSON.stringify(options),
    };
    // The tag's text names its own row: the row is inserted, the tag built from its id and the row
    // completed, with the placement's earlier tag of the same kind no longer current, in one transaction.
    const { notes, ...stored } = await withTransaction(this.knex, async (trx) => {
      await this.tags.retireCurrent(trx, tag);
      const tagMetadataId = await this.tags.insertPending(trx, tag);
      const built = buildTag({ options, macros, placement: tagPlacement, tagMetadataId, publicBaseUrl: this.publicBaseUrl, campaignSignals });
      await this.tags.setValue(trx, tagMetadataId, built.tagValue);
      return { tagMetadataId, tagValue: built.tagValue, notes: built.notes };
    });
    await peer.markTagged(accountId, mediaPlanId, [placementId]);
    const message = notes.length > 0 ? `Tag generated; ${notes.join('; ')}.` : 'Tag generated.';
    return { message, ...stored };
  }

  /** A page of the campaign's current tags; only an ACTIVE campaign's tags may be downloaded. */
  async campaignTags(
    peer: ChannelsPlansPeer,
    accountId: number,
    campaignId: number,
    afterId: number,
    limit: number,
  ): Promise<{ campaignName: string; rows: CampaignTagRow[] }> {
    const campaign = await peer.campaign(accountId, campaignId);
    enforce(campaignNotActive(campaign, 'Tags can be downloaded'));
    const pageRows = Math.min(Math.max(limit, 1), TAG_CSV_PAGE_ROWS);
    return { campaignName: campaign.campaignName, rows: await this.tags.currentTags(accountId, campaignId, Math.max(afterId, 0), pageRows) };
  }

  private async macrosInCatalog(peer: ChannelsPlansPeer, adServerId: string): Promise<AdServerMacros> {
    const macros = macrosOf(adServerId);
    if (adServerId.length > AD_SERVER_ID_MAX || !macros || !(await peer.adServerIds()).has(adServerId)) throw unknownAdServer(adServerId);
    return macros;
  }
}
