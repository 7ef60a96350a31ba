/**
 * Creative export of a retail campaign: the values the gateway, content-creative (which owns export
 * jobs) and the export renderer share. Declared once so the edge schema, the service's re-check and
 * the worker cannot disagree.
 */
import type { Refusal } from './problems';

export const EXPORT_ASSET_TYPES = ['png', 'jpg', 'gif', 'tiff', 'mp4'] as const;
export type ExportAssetType = (typeof EXPORT_ASSET_TYPES)[number];

export const EXPORT_RESOLUTIONS = [1, 2] as const;
export type ExportResolution = (typeof EXPORT_RESOLUTIONS)[number];

/** Formats that may be exported at resolution 2; tiff and mp4 only at 1. */
export const HIGH_RESOLUTION_EXPORT_TYPES: readonly ExportAssetType[] = ['png', 'jpg', 'gif'];

/**
 * An export's status. INITIATED when accepted, PROCESSING while the renderer works, then COMPLETED
 * (url set) or FAILED (statusMessage says why). FAILED_TO_INITIATE: the start was accepted but the job
 * never reached PROCESSING: the renderer refused it at intake (nothing mapped, more than
 * `EXPORT_LIMITS.maxAssets` creatives, the campaign no longer ACTIVE) or its request was given up after
 * its last delivery (statusMessage says which). The status read adds three it derives: AVAILABLE for an
 * earlier completed export of the same format and resolution whose zip is still served while a newer
 * one is running or failed, ARCHIVED for the lines of a campaign that was archived (no url), and
 * NOT_INITIATED for a format and resolution the status filter names that was never exported (no url,
 * empty queueId).
 */
export const EXPORT_STATUSES = ['INITIATED', 'PROCESSING', 'COMPLETED', 'FAILED', 'AVAILABLE', 'ARCHIVED', 'NOT_INITIATED', 'FAILED_TO_INITIATE'] as const;
export type ExportStatus = (typeof EXPORT_STATUSES)[number];

/** The statuses a stored export job moves through; the others are derived on read. */
export type ExportJobStatus = 'INITIATED' | 'PROCESSING' | 'COMPLETED' | 'FAILED' | 'FAILED_TO_INITIATE';
/** Stored statuses of an export that has ended: it is never rendered again and leaves its running slot. */
export const FINISHED_EXPORT_STATUSES: readonly ExportJobStatus[] = ['COMPLETED', 'FAILED', 'FAILED_TO_INITIATE'];
export const RUNNING_EXPORT_STATUSES: readonly ExportJobStatus[] = ['INITIATED', 'PROCESSING'];

/** The job kind of exports, on the request and progress subjects and in the queue view. */
export const EXPORT_JOB_KIND = 'asset-export';

/** What an export job request carries; the renderer asks content-creative for the rest. */
export interface AssetExportJob {
  orgId: string;
  retailCampaignId: number;
  assetExportType: ExportAssetType;
  resolution: ExportResolution;
  /** Where the zip goes, relative to the account's files (`accounts/<accountId>/<objectPath>`). */
  objectPath: string;
}

/**
 * Limits that keep one export bounded: the renderer refuses (per asset, or the job) past them rather
 * than allocating without bound.
 */
export const EXPORT_LIMITS = {
  /** Creatives one export renders (placements times their content items). */
  maxAssets: 2_000,
  /** Bytes of one product image fetched. */
  maxImageBytes: 10 * 1024 * 1024,
  /** Pixels sharp decodes from one product image (input limit). */
  maxImagePixels: 40_000_000,
  /** Time one product image fetch may take. */
  imageFetchTimeoutMs: 10_000,
  /** Time one creative may take to render, encoding included. */
  renderTimeoutMs: 60_000,
  /** Frames of an animated carousel (gif, mp4). */
  maxFrames: 10,
  /** Content items per placement a preview export draws (the first ones of the placement's content). */
  previewItemsPerPlacement: 5,
} as const;

/** One asset of an export, as the manifest lists it. */
export interface ExportManifestAsset {
  mediaPlanId: number;
  placementId: number;
  placementName: string;
  contentValue: string;
  /** The placement's dimension, `<width>x<height>`; the file is that times the resolution. */
  dimension: string;
  resolution: number;
  /** The file's name inside the zip; empty when the asset failed. */
  fileName: string;
  bytes: number;
  /**
   * Where the file's bytes start in the zip. Entries are stored uncompressed, so the file is the zip's bytes
   * `[zipOffset, zipOffset + bytes)`, right after its local header: ad serving shows a full png export's stills
   * from there (`?entry=` on the zip's file URL) with one range read, and the export stays one object.
   */
  zipOffset?: number;
  /**
   * Preview and mp4 exports: the file also stored on its own (relative to the account's files): a preview
   * export's are the content map's previews, an mp4 export's the served videos.
   */
  previewPath?: string;
  /** mp4 exports: the video's running time. */
  durationSeconds?: number;
  status: 'COMPLETED' | 'FAILED';
  /** Why the asset failed, or what it lacks (a placeholder drawn for a missing image). */
  error?: string;
  warnings?: string[];
}

/** manifest.json of an export: in its zip, and readable through the manifest extension. */
export interface ExportManifest {
  queueId: string;
  retailCampaignId: number;
  campaignName: string;
  assetExportType: ExportAssetType;
  resolution: number;
  /** A preview export: png at resolution 1 of the first `EXPORT_LIMITS.previewItemsPerPlacement` items per placement. */
  isPreview?: boolean;
  createdAt: string;
  assets: ExportManifestAsset[];
}

/** Refuses a resolution the format does not support (`2` only for png, jpg and gif). */
export function exportResolutionRefusal(assetExportType: string, resolution: number): Refusal | undefined {
  if (resolution === 2 && !HIGH_RESOLUTION_EXPORT_TYPES.includes(assetExportType as ExportAssetType)) {
    return {
      code: 'EXPORT_RESOLUTION_NOT_SUPPORTED',
      detail: `resolution 2 is supported only for ${HIGH_RESOLUTION_EXPORT_TYPES.join(', ')}; ${assetExportType} exports at 1.`,
    };
  }
  return undefined;
}

/** A name safe in a file name and an object key: letters, digits, - and _, at most 60 characters. */
export function exportFileStem(text: string): string {
  const stem = text
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return stem || 'export';
}

/** The zip's name: by campaign, format and resolution; a preview export's says so. */
export const exportZipName = (campaignName: string, assetExportType: string, resolution: number, isPreview = false) =>
  `${exportFileStem(campaignName)}_${assetExportType}_${resolution}x${isPreview ? '_preview' : ''}.zip`;

/** A preview export is always png at resolution 1: what the content map's previewUrls show. */
export const PREVIEW_EXPORT = { assetExportType: 'png', resolution: 1 } as const;
