import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import {
  ADDITIONAL_CONFIGURATION_MAX_BYTES,
  CACHED_VIEWS,
  effectivePage,
  exceedsDepth,
  FREE_FORM_JSON_MAX_DEPTH,
  MEDIA_CHANNEL_NAME_MAX,
  MEDIA_CHANNEL_STATUSES,
  MEDIA_CHANNEL_TYPES,
  ONSITE_AD_SERVER_KIND,
  type MediaChannelStatus,
  type MediaChannelType,
} from '@contracts/domain';
import { AppError, blankOrTooLong, type FieldError, notOneOf, problem, validationFailed } from '@platform/errors';
import { rethrowDuplicateKey, withTransaction, type Page } from '@platform/mysql';
import type { SecretBox } from '@platform/secrets';
import { recordChange, type EventOutbox, type ViewChangeAnnouncer } from '@platform/service';
import type { AdServerService } from '../ad-servers/ad-server.service';
import type { RetailCampaignService } from '../retail-campaigns/retail-campaign.service';
import { mediaChannelEvent } from './media-channel.events';
import type {
  AdServerConnection,
  CallingOrg,
  CreateMediaChannelInput,
  MediaChannelRecord,
  TemplateCampaignMediaChannel,
  UpdateMediaChannelInput,
} from './media-channel.model';
import type { MediaChannelRepository } from './media-channel.repository';

/** The unique index that keeps live channel names distinct within an org. */
const UNIQUE_LIVE_NAME = 'uq_media_channels_org_live_name';

export const mediaChannelNotFound = (idx: number) => problem('MEDIA_CHANNEL_NOT_FOUND', `Media channel ${idx} was not found.`);

const nameTaken = (name: string): AppError =>
  problem('MEDIA_CHANNEL_NAME_TAKEN', `The organization already has a media channel named ${JSON.stringify(name)}.`);

const notRetailer = (orgId: string) =>
  problem('ORG_NOT_RETAILER', `Organization ${orgId} is not a retailer; template-campaign media channels are for retailer organizations only.`);

export interface MediaChannelServiceDeps {
  knex: Knex;
  channels: MediaChannelRepository;
  adServers: AdServerService;
  campaigns: Pick<RetailCampaignService, 'get'>;
  secrets: SecretBox;
  events: EventOutbox;
  /** The gateways cache the org's channel list; every committed change is announced before the write answers. */
  announceViewChange: ViewChangeAnnouncer;
  /** Base URL of the on-site ad-server API; the org id is appended. */
  onsiteApiBaseUrl: string;
}

/**
 * Media channel rules. The gateway validates shapes; this class re-checks every rule that decides
 * what is stored, because other callers (or a newer gateway) may reach the service too.
 */
export class MediaChannelService {
  constructor(private readonly deps: MediaChannelServiceDeps) {}

  async create(orgId: string, input: CreateMediaChannelInput): Promise<number> {
    const { channels, adServers, secrets, events } = this.deps;
    const errors = [
      ...blankOrTooLong('/name', input.name, MEDIA_CHANNEL_NAME_MAX),
      ...notOneOf('/type', input.type, MEDIA_CHANNEL_TYPES),
      ...configurationErrors(input.additionalConfigurationJson),
    ];
    const adServer = await adServers.find(input.adServerId);
    if (!adServer) {
      errors.push({
        pointer: '/adServerId',
        code: 'UNKNOWN_AD_SERVER',
        detail: `adServerId ${JSON.stringify(input.adServerId)} is not in the ad-server catalog (GET /v2/ad-servers).`,
      });
    }
    if (errors.length > 0) throw validationFailed(errors);

    const name = input.name.trim();
    // The on-site server authenticates the retailer's site with a key of its own, minted here once.
    const apiKeySealed = adServer?.kind === ONSITE_AD_SERVER_KIND ? secrets.seal(`rmo_${randomBytes(24).toString('base64url')}`) : null;
    const idx = await withTransaction(this.deps.knex, async (trx) => {
      // No look-up first: two concurrent creates would both pass it. The unique index decides.
      const idx = await channels
        .insert(trx, {
          orgId,
          name,
          adServerId: input.adServerId,
          type: input.type as MediaChannelType,
          tagGeneration: input.tagGeneration,
          creativeGeneration: input.creativeGeneration,
          additionalConfigurationJson: input.additionalConfigurationJson,
          apiKeySealed,
        })
        .catch((error: unknown) => rethrowDuplicateKey(error, () => nameTaken(name), { key: UNIQUE_LIVE_NAME }));
      await events.record(trx, mediaChannelEvent('created', orgId, idx));
      const after = await channels.findForChange(trx, orgId, idx);
      await recordChange(trx, events, { resourceType: 'media-channel', resourceId: idx, action: 'create', orgId, after });
      return idx;
    });
    await this.listChanged(orgId);
    return idx;
  }

  async update(orgId: string, idx: number, input: UpdateMediaChannelInput): Promise<void> {
    const errors = [...notOneOf('/status', input.status, MEDIA_CHANNEL_STATUSES), ...configurationErrors(input.additionalConfigurationJson ?? null)];
    if (errors.length > 0) throw validationFailed(errors);
    await withTransaction(this.deps.knex, async (trx) => {
      const patch = { ...input, status: input.status as MediaChannelStatus | undefined };
      const before = await this.deps.channels.findForChange(trx, orgId, idx);
      if (!(await this.deps.channels.update(trx, orgId, idx, patch))) throw mediaChannelNotFound(idx);
      await this.deps.events.record(trx, mediaChannelEvent('updated', orgId, idx));
      const after = await this.deps.channels.findForChange(trx, orgId, idx);
      await recordChange(trx, this.deps.events, { resourceType: 'media-channel', resourceId: idx, action: 'update', orgId, before, after });
    });
    await this.listChanged(orgId);
  }

  /** Soft delete: the name is free again, and template campaigns whose plans use the channel still show it. */
  async remove(orgId: string, idx: number): Promise<void> {
    await withTransaction(this.deps.knex, async (trx) => {
      const before = await this.deps.channels.findForChange(trx, orgId, idx);
      if (!(await this.deps.channels.softDelete(trx, orgId, idx))) throw mediaChannelNotFound(idx);
      await this.deps.events.record(trx, mediaChannelEvent('deleted', orgId, idx));
      await recordChange(trx, this.deps.events, { resourceType: 'media-channel', resourceId: idx, action: 'delete', orgId, before });
    });
    await this.listChanged(orgId);
  }

  /** After the commit: a notice sent earlier could let a replica refill its cache from the old rows. */
  private async listChanged(orgId: string): Promise<void> {
    await this.deps.announceViewChange({ view: CACHED_VIEWS.mediaChannels, tenant: orgId });
  }

  async get(orgId: string, idx: number): Promise<MediaChannelRecord> {
    const channel = await this.deps.channels.findLive(orgId, idx);
    if (!channel) throw mediaChannelNotFound(idx);
    return channel;
  }

  list(orgId: string, page?: { offset?: number; limit?: number }): Promise<Page<MediaChannelRecord>> {
    return this.deps.channels.listLive(orgId, effectivePage(page));
  }

  /**
   * `listTemplateCampaignMediaChannels`: the channels a template campaign can use. Only retailer organizations run template
   * campaigns; the campaign must be one of the account's.
   */
  async listForTemplateCampaign(
    org: CallingOrg,
    accountId: number,
    retailCampaignId: number,
    page?: { offset?: number; limit?: number },
  ): Promise<Page<TemplateCampaignMediaChannel>> {
    if (!org.isRetailer) throw notRetailer(org.orgId);
    await this.deps.campaigns.get(accountId, retailCampaignId);
    return this.deps.channels.listForCampaign(org.orgId, retailCampaignId, effectivePage(page));
  }

  /** `getAdServerConnection`: connection details exist only for the on-site retail-media ad server. */
  async connection(orgId: string, adServerId: string): Promise<AdServerConnection> {
    const adServer = await this.deps.adServers.find(adServerId);
    if (!adServer) throw problem('AD_SERVER_NOT_FOUND', `Ad server ${adServerId} is not in the catalog.`);
    if (adServer.kind !== ONSITE_AD_SERVER_KIND) return {};
    const sealed = await this.deps.channels.findSealedApiKey(orgId, adServerId);
    if (!sealed) throw problem('MEDIA_CHANNEL_NOT_FOUND', `The organization has no media channel on ad server ${adServerId}.`);
    return {
      apiEndpoint: `${this.deps.onsiteApiBaseUrl.replace(/\/$/, '')}/orgs/${encodeURIComponent(orgId)}`,
      apiKey: this.deps.secrets.open(sealed),
    };
  }
}

/** additionalConfiguration: a JSON object, bounded in size (it rides along in every list) and in depth. */
function configurationErrors(json: string | null): FieldError[] {
  if (json === null) return [];
  const pointer = '/additionalConfiguration';
  const size = Buffer.byteLength(json);
  if (size > ADDITIONAL_CONFIGURATION_MAX_BYTES) {
    return [
      { pointer, code: 'TOO_LARGE', detail: `additionalConfiguration must serialize to at most ${ADDITIONAL_CONFIGURATION_MAX_BYTES} bytes; got ${size}.` },
    ];
  }
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    value = undefined;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return [{ pointer, code: 'INVALID_TYPE', detail: 'additionalConfiguration must be a JSON object.' }];
  }
  if (exceedsDepth(value, FREE_FORM_JSON_MAX_DEPTH)) {
    return [{ pointer, code: 'TOO_DEEP', detail: `additionalConfiguration must not nest objects or arrays more than ${FREE_FORM_JSON_MAX_DEPTH} deep.` }];
  }
  return [];
}
