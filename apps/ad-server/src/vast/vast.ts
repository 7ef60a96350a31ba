import { expandCacheBusters, newCacheBuster, trackerUrls, uriSafe } from '../trackers/cache-buster';
import { cdata, xmlEscape } from './xml';

/**
 * VAST 4.2 documents for the in-stream tag (`/serve/v1/vast/in-stream.xml`).
 *
 * Every URL is made URI-safe (`uriSafe`: characters a URI cannot hold are percent-encoded, VAST `[MACRO]`s
 * kept), since the XSD types them xs:anyURI.
 *
 * Element order follows the IAB VAST 4.2 XSD (vast_4.2.xsd beside this file), which the tests validate
 * every document against. URLs go in CDATA sections; text goes XML-escaped. Third-party tracker URLs get
 * their cache-buster macros expanded once per response (`[CACHEBUSTING]` and the common non-VAST spellings,
 * see ../trackers); every other VAST macro ([ERRORCODE], [TIMESTAMP], ...) is left for the player.
 */

export const VAST_VERSION = '4.2';
export const VAST_NAMESPACE = 'http://www.iab.com/VAST';
export const DEFAULT_AD_SYSTEM = 'RetailMediaAdServer';

export const VAST_TRACKING_EVENTS = ['start', 'firstQuartile', 'midpoint', 'thirdQuartile', 'complete', 'mute', 'unmute', 'skip'] as const;
export type VastTrackingEvent = (typeof VAST_TRACKING_EVENTS)[number];

/** Which fields of a placement's tracker record feed which VAST element (and the in-banner video's events). */
export const VAST_TRACKER_FIELDS = {
  impression: ['inStreamImpressionTrackers'],
  clickTracking: ['primaryClickTracker', 'secondaryClickTrackers'],
  events: {
    start: ['videoStartViewedTracker'],
    firstQuartile: ['twentyFivePercentVideoViewedTracker'],
    midpoint: ['fiftyPercentVideoViewedTracker'],
    thirdQuartile: ['seventyFivePercentVideoViewedTracker'],
    complete: ['hundredPercentVideoViewedTracker'],
    mute: ['muteVideoViewedTracker'],
    unmute: ['unmuteVideoViewedTracker'],
    skip: ['inStreamSkipAdTracker'],
  } satisfies Record<VastTrackingEvent, readonly string[]>,
} as const;

export interface VastMediaFile {
  url: string;
  width: number;
  height: number;
  /** MIME type; video/mp4 by default. */
  type?: string;
  /** kbit/s, when known. */
  bitrate?: number;
}

export interface VastInlineInput {
  /** Ad@id and Creative@adId: the served creative's identity (e.g. placement and content value). */
  adId: string;
  /** AdServingId: unique per response; also belongs on our own pixels. */
  adServingId: string;
  adTitle: string;
  /** Creative@id. */
  creativeId: string;
  adSystem?: { name: string; version?: string };
  /** UniversalAdId; `unknown`/`unknown` when not registered. */
  universalAdId?: { idRegistry: string; value: string };
  durationSeconds: number;
  /** Seconds after which the player may offer skip; not skippable when absent. */
  skipOffsetSeconds?: number;
  mediaFile: VastMediaFile;
  /** Where a click lands (usually our /serve/v1/click redirect). No ClickThrough when absent. */
  clickThrough?: string | null;
  /** Our own pixels. */
  own: {
    impression: string;
    error?: string;
    clickTracking?: string;
    events?: Partial<Record<VastTrackingEvent, string>>;
  };
  /** The placement's tracker record (field name -> URLs); see VAST_TRACKER_FIELDS. */
  trackers?: Readonly<Record<string, readonly string[] | undefined>>;
  /** The response's cache-buster; a fresh 8-digit random number when absent. */
  cacheBuster?: string;
}

const XML_DECL = '<?xml version="1.0" encoding="UTF-8"?>';
const VAST_OPEN = `<VAST version="${VAST_VERSION}" xmlns="${VAST_NAMESPACE}">`;

/** Seconds as the XSD's xs:time in the VAST form HH:MM:SS.mmm. */
export function vastTime(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) throw new RangeError(`not a duration: ${seconds}`);
  const totalMs = Math.round(seconds * 1000);
  const ms = totalMs % 1000;
  const s = Math.floor(totalMs / 1000) % 60;
  const m = Math.floor(totalMs / 60_000) % 60;
  const h = Math.floor(totalMs / 3_600_000);
  if (h > 99) throw new RangeError(`duration too long: ${seconds}`);
  return `${pad2(h)}:${pad2(m)}:${pad2(s)}.${String(ms).padStart(3, '0')}`;
}

function pad2(n: number): string {
  return n < 10 ? '0' + n : String(n);
}

function positiveInt(name: string, n: number): number {
  if (!Number.isInteger(n) || n <= 0) throw new RangeError(`${name} must be a positive integer, got ${n}`);
  return n;
}

/** A VAST 4.2 document with one InLine linear video ad. */
export function buildVastInline(input: VastInlineInput): string {
  const cb = input.cacheBuster ?? newCacheBuster();
  const trackers = input.trackers;
  const media = input.mediaFile;
  const width = positiveInt('mediaFile.width', media.width);
  const height = positiveInt('mediaFile.height', media.height);
  const duration = vastTime(input.durationSeconds);
  const adSystem = input.adSystem ?? { name: DEFAULT_AD_SYSTEM };
  const uaid = input.universalAdId ?? { idRegistry: 'unknown', value: 'unknown' };

  const out: string[] = [XML_DECL, VAST_OPEN, `<Ad id="${xmlEscape(input.adId)}"><InLine>`];
  out.push(adSystem.version ? `<AdSystem version="${xmlEscape(adSystem.version)}">` : '<AdSystem>', xmlEscape(adSystem.name), '</AdSystem>');
  if (input.own.error) out.push('<Error>', cdata(uriSafe(input.own.error)), '</Error>');

  out.push('<Impression id="imp-0">', cdata(uriSafe(input.own.impression)), '</Impression>');
  const thirdPartyImpressions = trackerUrls(trackers, VAST_TRACKER_FIELDS.impression, cb);
  for (let i = 0; i < thirdPartyImpressions.length; i++) out.push(`<Impression id="imp-${i + 1}">`, cdata(thirdPartyImpressions[i]), '</Impression>');

  out.push('<AdServingId>', xmlEscape(input.adServingId), '</AdServingId>');
  out.push('<AdTitle>', xmlEscape(input.adTitle), '</AdTitle>');
  out.push('<Creatives>', `<Creative id="${xmlEscape(input.creativeId)}" adId="${xmlEscape(input.adId)}">`);

  out.push(input.skipOffsetSeconds !== undefined ? `<Linear skipoffset="${vastTime(input.skipOffsetSeconds)}">` : '<Linear>');
  const tracking: string[] = [];
  for (const event of VAST_TRACKING_EVENTS) {
    const own = input.own.events?.[event];
    if (own) tracking.push(`<Tracking event="${event}">`, cdata(uriSafe(own)), '</Tracking>');
    for (const url of trackerUrls(trackers, VAST_TRACKER_FIELDS.events[event], cb)) tracking.push(`<Tracking event="${event}">`, cdata(url), '</Tracking>');
  }
  if (tracking.length > 0) out.push('<TrackingEvents>', ...tracking, '</TrackingEvents>');

  out.push('<Duration>', duration, '</Duration>');
  out.push('<MediaFiles>');
  out.push(
    `<MediaFile delivery="progressive" type="${xmlEscape(media.type ?? 'video/mp4')}" width="${width}" height="${height}"`,
    media.bitrate !== undefined ? ` bitrate="${positiveInt('mediaFile.bitrate', media.bitrate)}"` : '',
    ' maintainAspectRatio="true">',
    cdata(uriSafe(media.url)),
    '</MediaFile>',
  );
  out.push('</MediaFiles>');

  // VideoClicks: ClickTracking before ClickThrough, as the XSD's sequence orders them.
  const clicks: string[] = [];
  if (input.own.clickTracking) clicks.push('<ClickTracking id="click-0">', cdata(uriSafe(input.own.clickTracking)), '</ClickTracking>');
  const thirdPartyClicks = trackerUrls(trackers, VAST_TRACKER_FIELDS.clickTracking, cb);
  for (let i = 0; i < thirdPartyClicks.length; i++) clicks.push(`<ClickTracking id="click-${i + 1}">`, cdata(thirdPartyClicks[i]), '</ClickTracking>');
  if (input.clickThrough) clicks.push('<ClickThrough id="landing">', cdata(uriSafe(input.clickThrough)), '</ClickThrough>');
  if (clicks.length > 0) out.push('<VideoClicks>', ...clicks, '</VideoClicks>');
  out.push('</Linear>');

  out.push(`<UniversalAdId idRegistry="${xmlEscape(uaid.idRegistry)}">`, xmlEscape(uaid.value), '</UniversalAdId>');
  out.push('</Creative></Creatives></InLine></Ad></VAST>');
  return out.join('');
}

/**
 * A VAST 4.2 response with no ad: an empty `<VAST>`, or one holding the Error URL the player should call
 * (its [ERRORCODE] macro is left for the player, which fills 303 "no ad"). Cache busters in it are expanded.
 */
export function buildVastEmpty(options: { errorUrl?: string | null; cacheBuster?: string } = {}): string {
  if (!options.errorUrl) return EMPTY_VAST;
  const url = expandCacheBusters(options.errorUrl, options.cacheBuster ?? newCacheBuster());
  return XML_DECL + VAST_OPEN + '<Error>' + cdata(url) + '</Error></VAST>';
}

const EMPTY_VAST = `${XML_DECL}<VAST version="${VAST_VERSION}" xmlns="${VAST_NAMESPACE}"/>`;
