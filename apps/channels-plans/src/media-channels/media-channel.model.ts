export const MEDIA_CHANNEL_TYPES = ['On-site', 'Off-site', 'Social', 'In-store/DOOH', 'Hybrid'] as const;
export type MediaChannelType = (typeof MEDIA_CHANNEL_TYPES)[number];

/** Stored states; the template-campaign list shows them as Enabled/Disabled, and deleted ones as Deleted. */
export const MEDIA_CHANNEL_STATUSES = ['Active', 'Inactive'] as const;
export type MediaChannelStatus = (typeof MEDIA_CHANNEL_STATUSES)[number];

export type JsonObject = { [key: string]: unknown };

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
  additionalConfigurationJson: string | null;
  apiKeySealed: Buffer | null;
  updatedAt: Date;
  deletedAt: Date | null;
}

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

export interface Page<T> {
  items: T[];
  total: number;
}
