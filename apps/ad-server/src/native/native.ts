import type { ServingExportFile, ServingItem } from '@contracts/domain';
import { newCacheBuster, trackerUrls, uriSafe } from '../trackers/cache-buster';

/**
 * OpenRTB Dynamic Native Ads API 1.2 responses for the native tag.
 *
 * Field names and enum values are the spec's: image asset type 3 (main), data asset types 1 (sponsored),
 * 2 (desc), 6 (price) and 12 (ctatext), event tracker event 1 (impression) with method 1 (img) or
 * 2 (js). Since 1.1 the response object is itself the root of the markup; `wrapNativeLegacy` gives the
 * pre-1.1 `{ "native": ... }` form for readers that still expect it.
 */

export const NATIVE_VERSION = '1.2';

export const NativeImageType = { ICON: 1, MAIN: 3 } as const;
export const NativeDataType = { SPONSORED: 1, DESC: 2, PRICE: 6, CTATEXT: 12 } as const;
export const NativeEventType = { IMPRESSION: 1, VIEWABLE_MRC50: 2, VIEWABLE_MRC100: 3, VIEWABLE_VIDEO50: 4 } as const;
export const NativeEventMethod = { IMG: 1, JS: 2 } as const;

export interface NativeTitleResponse {
  text: string;
  len?: number;
}
export interface NativeImageResponse {
  type?: number;
  url: string;
  w?: number;
  h?: number;
}
export interface NativeDataResponse {
  type?: number;
  len?: number;
  value: string;
}
export interface NativeAssetResponse {
  id: number;
  required?: 0 | 1;
  title?: NativeTitleResponse;
  img?: NativeImageResponse;
  data?: NativeDataResponse;
}
export interface NativeLinkResponse {
  url: string;
  clicktrackers?: string[];
  fallback?: string;
}
export interface NativeEventTrackerResponse {
  event: number;
  method: number;
  url: string;
}
/** The 1.2 Native Markup Response Object. */
export interface NativeResponse {
  ver: string;
  assets: NativeAssetResponse[];
  link: NativeLinkResponse;
  /** Deprecated in 1.2 in favour of eventtrackers; only with `legacyImpTrackers`. */
  imptrackers?: string[];
  eventtrackers: NativeEventTrackerResponse[];
}

/** The asset part of a 1.2 Native Markup Request Object (what we read of it). */
export interface NativeRequestAsset {
  id: number;
  required?: 0 | 1;
  title?: { len: number };
  img?: { type?: number; w?: number; h?: number; wmin?: number; hmin?: number };
  data?: { type: number; len?: number };
  video?: unknown;
}
export interface NativeRequest {
  ver?: string;
  assets: NativeRequestAsset[];
}

/** The content of one native ad; null fields are left out. */
export interface NativeAdInput {
  title: string | null;
  image: { url: string; w?: number; h?: number } | null;
  sponsoredBy: string | null;
  description?: string | null;
  price: string | null;
  ctaText: string | null;
  /** link.url: where a click goes (usually our /serve/v1/click redirect). */
  clickUrl: string;
  /** Our impression pixel(s). */
  impressionUrls: readonly string[];
  /** Our click trackers, besides the redirect. */
  clickTrackerUrls?: readonly string[];
  /** The placement's tracker record (field name -> URLs); see NATIVE_TRACKER_FIELDS. */
  trackers?: Readonly<Record<string, readonly string[] | undefined>>;
  /** The response's cache-buster; a fresh 8-digit random number when absent. */
  cacheBuster?: string;
}

export interface NativeOptions {
  /** The native request of the impression: answer its asset ids, and no ad when a required asset cannot be filled. */
  request?: NativeRequest | null;
  /** Also list impression pixels in the deprecated `imptrackers`. */
  legacyImpTrackers?: boolean;
}

/** Which fields of a placement's tracker record feed which part of the response. */
export const NATIVE_TRACKER_FIELDS = {
  impressionImg: ['bannerImpressionTrackers'],
  impressionJs: ['bannerImpressionInTagScriptTrackers'],
  click: ['primaryClickTracker', 'secondaryClickTrackers'],
} as const;

/** Asset ids used when no native request names them. */
export const DEFAULT_NATIVE_ASSET_IDS = { title: 1, image: 2, sponsored: 3, price: 4, ctaText: 5, description: 6 } as const;

type Slot = { kind: 'title' } | { kind: 'img'; type: number } | { kind: 'data'; type: number };

const DEFAULT_SLOTS: ReadonlyArray<{ id: number; slot: Slot }> = [
  { id: DEFAULT_NATIVE_ASSET_IDS.title, slot: { kind: 'title' } },
  { id: DEFAULT_NATIVE_ASSET_IDS.image, slot: { kind: 'img', type: NativeImageType.MAIN } },
  { id: DEFAULT_NATIVE_ASSET_IDS.sponsored, slot: { kind: 'data', type: NativeDataType.SPONSORED } },
  { id: DEFAULT_NATIVE_ASSET_IDS.price, slot: { kind: 'data', type: NativeDataType.PRICE } },
  { id: DEFAULT_NATIVE_ASSET_IDS.ctaText, slot: { kind: 'data', type: NativeDataType.CTATEXT } },
  { id: DEFAULT_NATIVE_ASSET_IDS.description, slot: { kind: 'data', type: NativeDataType.DESC } },
];

const HTTP_URL = /^https?:\/\//i;

/** `text` cut to at most `len` characters (code points), when a length is asked. */
function fit(text: string, len: number | undefined): string {
  if (len === undefined || len <= 0) return text;
  const chars = Array.from(text);
  return chars.length <= len ? text : chars.slice(0, len).join('');
}

function nonBlank(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const v = value.trim();
  return v === '' ? null : v;
}

function fill(ad: NativeAdInput, id: number, slot: Slot, len?: number): NativeAssetResponse | null {
  if (slot.kind === 'title') {
    const text = nonBlank(ad.title);
    return text === null ? null : { id, title: { text: fit(text, len) } };
  }
  if (slot.kind === 'img') {
    if (slot.type !== NativeImageType.MAIN || !ad.image || !nonBlank(ad.image.url)) return null;
    const img: NativeImageResponse = { type: slot.type, url: uriSafe(ad.image.url.trim()) };
    if (ad.image.w) img.w = ad.image.w;
    if (ad.image.h) img.h = ad.image.h;
    return { id, img };
  }
  const value =
    slot.type === NativeDataType.SPONSORED
      ? ad.sponsoredBy
      : slot.type === NativeDataType.PRICE
        ? ad.price
        : slot.type === NativeDataType.CTATEXT
          ? ad.ctaText
          : slot.type === NativeDataType.DESC
            ? ad.description
            : null;
  const v = nonBlank(value);
  return v === null ? null : { id, data: { type: slot.type, value: fit(v, len) } };
}

function requestSlot(asset: NativeRequestAsset): { slot: Slot; len?: number } | null {
  if (asset.title) return { slot: { kind: 'title' }, len: asset.title.len };
  // An image asset without a type is taken as the main image.
  if (asset.img) return { slot: { kind: 'img', type: asset.img.type ?? NativeImageType.MAIN } };
  if (asset.data) return { slot: { kind: 'data', type: asset.data.type }, len: asset.data.len };
  return null;
}

/**
 * The native response for one ad, or null when a native request was given and one of its required assets
 * cannot be filled (answer no ad then).
 */
export function buildNativeResponse(ad: NativeAdInput, options: NativeOptions = {}): NativeResponse | null {
  const assets: NativeAssetResponse[] = [];
  if (options.request) {
    for (const asset of options.request.assets) {
      const wanted = requestSlot(asset);
      const filled = wanted ? fill(ad, asset.id, wanted.slot, wanted.len) : null;
      if (filled) {
        if (asset.required === 1) filled.required = 1;
        assets.push(filled);
      } else if (asset.required === 1) return null;
    }
  } else {
    for (const { id, slot } of DEFAULT_SLOTS) {
      const filled = fill(ad, id, slot);
      if (filled) assets.push(filled);
    }
  }

  const cb = ad.cacheBuster ?? newCacheBuster();
  const trackers = ad.trackers;
  const impressionImg = [...ad.impressionUrls.map(uriSafe), ...trackerUrls(trackers, NATIVE_TRACKER_FIELDS.impressionImg, cb)];
  // Script trackers may be whole <script> elements; only plain URLs can go in a js event tracker.
  const impressionJs = trackerUrls(trackers, NATIVE_TRACKER_FIELDS.impressionJs, cb).filter((u) => HTTP_URL.test(u));
  const eventtrackers: NativeEventTrackerResponse[] = [];
  for (const url of impressionImg) eventtrackers.push({ event: NativeEventType.IMPRESSION, method: NativeEventMethod.IMG, url });
  for (const url of impressionJs) eventtrackers.push({ event: NativeEventType.IMPRESSION, method: NativeEventMethod.JS, url });

  const clicktrackers = [...(ad.clickTrackerUrls ?? []).map(uriSafe), ...trackerUrls(trackers, NATIVE_TRACKER_FIELDS.click, cb)];
  const link: NativeLinkResponse = { url: uriSafe(ad.clickUrl) };
  if (clicktrackers.length > 0) link.clicktrackers = clicktrackers;

  const response: NativeResponse = { ver: NATIVE_VERSION, assets, link, eventtrackers };
  if (options.legacyImpTrackers && impressionImg.length > 0) response.imptrackers = impressionImg;
  return response;
}

/** The pre-1.1 form, `{ "native": response }`, for readers that still expect the wrapper. */
export function wrapNativeLegacy(response: NativeResponse): { native: NativeResponse } {
  return { native: response };
}

/**
 * The native content of a served item: the png export with its size (`fileUrl` turns it into a URL), else the item's image with the placement's size.
 */
export function nativeContentOf(
  item: ServingItem,
  placement: { width: number; height: number },
  fileUrl: (file: ServingExportFile) => string,
): Pick<NativeAdInput, 'title' | 'image' | 'price' | 'ctaText'> {
  const exported = item.exports.png;
  const image = exported
    ? { url: fileUrl(exported), w: exported.width, h: exported.height }
    : item.imageUrl
      ? { url: item.imageUrl, w: placement.width, h: placement.height }
      : null;
  return { title: item.name, image, price: item.price, ctaText: item.callToAction };
}
