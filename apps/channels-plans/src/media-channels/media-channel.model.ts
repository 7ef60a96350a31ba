import type { MediaChannelStatus, MediaChannelType } from '@contracts/domain';

export interface MediaChannelRecord {
  idx: number;
  orgId: string;
  name: string;
  adServerId: string;
  adServerName: string | null;
  adServerKind: string | null;
  logoUrl: string | null;
  type: MediaChannelType;
  status: MediaChannelStatus;
  tagGeneration: boolean;
  creativeGeneration: boolean;
  /** The stored JSON object as text, handed on unparsed; null when the channel has none. */
  additionalConfigurationJson: string | null;
  updatedAt: Date;
  /** Set once soft-deleted; only the template-campaign list returns such channels. */
  deletedAt: Date | null;
}

/** A channel as a template campaign sees it: also whether one of the campaign's media plans uses it. */
export interface TemplateCampaignMediaChannel extends MediaChannelRecord {
  isUtilized: boolean;
}

/** What a caller asks to create; every field is checked by the service. */
export interface CreateMediaChannelInput {
  name: string;
  adServerId: string;
  type: string;
  tagGeneration: boolean;
  creativeGeneration: boolean;
  /** A serialized JSON object, or null for none. */
  additionalConfigurationJson: string | null;
}

/** Fields left undefined stay as they are; additionalConfigurationJson replaces the stored object. */
export interface UpdateMediaChannelInput {
  status?: string;
  tagGeneration?: boolean;
  creativeGeneration?: boolean;
  additionalConfigurationJson?: string;
}

/** The calling organization, as far as the template-campaign rule needs it. */
export interface CallingOrg {
  orgId: string;
  isRetailer: boolean;
}

/** `getAdServerConnection`: empty unless the ad server is the on-site retail-media server. */
export interface AdServerConnection {
  apiEndpoint?: string;
  apiKey?: string;
}

/** A checked channel, as the repository stores it. */
export interface NewMediaChannel {
  orgId: string;
  name: string;
  adServerId: string;
  type: MediaChannelType;
  tagGeneration: boolean;
  creativeGeneration: boolean;
  additionalConfigurationJson: string | null;
  apiKeySealed: Buffer | null;
}

export interface MediaChannelPatch {
  status?: MediaChannelStatus;
  tagGeneration?: boolean;
  creativeGeneration?: boolean;
  additionalConfigurationJson?: string;
}
