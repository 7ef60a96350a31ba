import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { AppError, conflict, notFound, validationFailed } from '@platform/errors';
import { withTransaction } from '@platform/mysql';
import type { SecretBox } from '@platform/secrets';
import { AdServerRepository } from '../ad-servers/ad-server.repository';
import { DomainEventRecorder, mediaChannelEvent } from './media-channel.events';
import { MEDIA_CHANNEL_STATUSES, MEDIA_CHANNEL_TYPES, MediaChannelPatch, MediaChannelRecord, MediaChannelStatus, MediaChannelType, Page } from './media-channel.model';
import { MediaChannelRepository } from './media-channel.repository';

export interface CreateMediaChannelInput {
  name: string;
  adServerId: string;
  type: string;
  tagGeneration: boolean;
  creativeGeneration: boolean;
  additionalConfigurationJson: string | null;
}

export interface UpdateMediaChannelInput {
  status?: string;
  tagGeneration?: boolean;
  creativeGeneration?: boolean;
  additionalConfigurationJson?: string;
}

export interface AdServerConnection {
  apiEndpoint?: string;
  apiKey?: string;
}

const ONSITE_KIND = 'onsite-retail-media';
/** Serialized size cap, so one channel cannot bloat every list response. */
const MAX_ADDITIONAL_CONFIGURATION_BYTES = 16 * 1024;

export const mediaChannelNotFound = (idx: number) => notFound('MEDIA_CHANNEL_NOT_FOUND', `Media channel ${idx} was not found.`);

export interface MediaChannelServiceDeps {
  knex: Knex;
  channels: MediaChannelRepository;
  adServers: AdServerRepository;
  secrets: SecretBox;
  events: DomainEventRecorder;
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
      ...this.nameErrors(input.name),
      ...enumErrors('/type', input.type, MEDIA_CHANNEL_TYPES),
      ...configurationErrors(input.additionalConfigurationJson),
    ];
    const adServer = await adServers.find(input.adServerId);
    if (!adServer) errors.push({ pointer: '/adServerId', code: 'UNKNOWN_AD_SERVER', detail: `adServerId ${JSON.stringify(input.adServerId)} is not in the ad-server catalog (GET /v2/ad-servers).` });
    if (errors.length > 0) throw validationFailed(errors);

    // The on-site server authenticates the retailer's site with a key of its own, minted here once.
    const apiKeySealed = adServer?.kind === ONSITE_KIND ? secrets.seal(`rmo_${randomBytes(24).toString('base64url')}`) : null;
    return withTransaction(this.deps.knex, async (trx) => {
      if (await channels.nameTaken(orgId, input.name.trim(), trx)) throw nameTaken(input.name);
      const idx = await channels.insert(trx, {
        orgId,
        name: input.name.trim(),
        adServerId: input.adServerId,
        type: input.type as MediaChannelType,
        tagGeneration: input.tagGeneration,
        creativeGeneration: input.creativeGeneration,
        additionalConfigurationJson: input.additionalConfigurationJson,
        apiKeySealed,
      }).catch(rethrowDuplicateName(input.name));
      await events.record(trx, mediaChannelEvent('created', orgId, idx));
      return idx;
    });
  }

  async update(orgId: string, idx: number, input: UpdateMediaChannelInput): Promise<void> {
    const errors = [
      ...(input.status === undefined ? [] : enumErrors('/status', input.status, MEDIA_CHANNEL_STATUSES)),
      ...configurationErrors(input.additionalConfigurationJson ?? null),
    ];
    if (errors.length > 0) throw validationFailed(errors);
    const patch: MediaChannelPatch = {
      status: input.status as MediaChannelStatus | undefined,
      tagGeneration: input.tagGeneration,
      creativeGeneration: input.creativeGeneration,
      additionalConfigurationJson: input.additionalConfigurationJson,
    };
    await withTransaction(this.deps.knex, async (trx) => {
      if (!(await this.deps.channels.update(trx, orgId, idx, patch))) throw mediaChannelNotFound(idx);
      await this.deps.events.record(trx, mediaChannelEvent('updated', orgId, idx));
    });
  }

  async remove(orgId: string, idx: number): Promise<void> {
    await withTransaction(this.deps.knex, async (trx) => {
      if (!(await this.deps.channels.softDelete(trx, orgId, idx))) throw mediaChannelNotFound(idx);
      await this.deps.events.record(trx, mediaChannelEvent('deleted', orgId, idx));
    });
  }

  async get(orgId: string, idx: number): Promise<MediaChannelRecord> {
    const channel = await this.deps.channels.findLive(orgId, idx);
    if (!channel) throw mediaChannelNotFound(idx);
    return channel;
  }

  list(orgId: string, offset: number, limit: number): Promise<Page<MediaChannelRecord>> {
    return this.deps.channels.listLive(orgId, offset, limit);
  }

  listForCampaign(orgId: string, retailCampaignId: number, offset: number, limit: number) {
    return this.deps.channels.listForCampaign(orgId, retailCampaignId, offset, limit);
  }

  /** Operation 7: connection details exist only for the on-site retail-media ad server. */
  async connection(orgId: string, adServerId: string): Promise<AdServerConnection> {
    const adServer = await this.deps.adServers.find(adServerId);
    if (!adServer) throw notFound('AD_SERVER_NOT_FOUND', `Ad server ${adServerId} is not in the catalog.`);
    if (adServer.kind !== ONSITE_KIND) return {};
    const channel = await this.deps.channels.findLiveByAdServer(orgId, adServerId);
    if (!channel?.apiKeySealed) {
      throw notFound('MEDIA_CHANNEL_NOT_FOUND', `The organization has no media channel on ad server ${adServerId}.`);
    }
    return {
      apiEndpoint: `${this.deps.onsiteApiBaseUrl.replace(/\/$/, '')}/orgs/${encodeURIComponent(orgId)}`,
      apiKey: this.deps.secrets.open(channel.apiKeySealed),
    };
  }

  private nameErrors(name: string) {
    const trimmed = name.trim();
    if (trimmed.length === 0) return [{ pointer: '/name', code: 'REQUIRED', detail: 'name must not be blank.' }];
    if (trimmed.length > 200) return [{ pointer: '/name', code: 'TOO_LONG', detail: 'name must be at most 200 characters.' }];
    return [];
  }
}

function enumErrors(pointer: string, value: string, allowed: readonly string[]) {
  return allowed.includes(value)
    ? []
    : [{ pointer, code: 'NOT_ALLOWED', detail: `${pointer.slice(1)} must be one of ${allowed.join(', ')}; got ${JSON.stringify(value)}.` }];
}

function configurationErrors(json: string | null) {
  if (json === null) return [];
  const size = Buffer.byteLength(json);
  if (size > MAX_ADDITIONAL_CONFIGURATION_BYTES) {
    return [{ pointer: '/additionalConfiguration', code: 'TOO_LARGE', detail: `additionalConfiguration must serialize to at most ${MAX_ADDITIONAL_CONFIGURATION_BYTES} bytes; got ${size}.` }];
  }
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    value = undefined;
  }
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? []
    : [{ pointer: '/additionalConfiguration', code: 'INVALID_TYPE', detail: 'additionalConfiguration must be a JSON object.' }];
}

const nameTaken = (name: string): AppError => conflict('MEDIA_CHANNEL_NAME_TAKEN', `The organization already has a media channel named ${JSON.stringify(name.trim())}.`);

/** Two concurrent creates can both pass the pre-check; the unique index decides, and says so clearly. */
function rethrowDuplicateName(name: string) {
  return (error: unknown): never => {
    if ((error as { code?: string }).code === 'ER_DUP_ENTRY') throw nameTaken(name);
    throw error;
  };
}
