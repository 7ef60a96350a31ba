import { randomUUID } from 'node:crypto';
import { DELIVERY_EVENT_TYPES, type DeliveryEvent, type DeliveryEventType } from '@contracts/domain';
import { problemType } from '@platform/errors';
import type { AdChoice } from '../decision/ad-decision';
import {
  BANNER_VIDEO_EVENTS,
  displayDocument,
  displayMarkup,
  displayScript,
  impressionScripts,
  type BannerVideo,
  type BannerVideoEvent,
} from '../render/display-ad';
import type { CompiledCampaign } from '../snapshot/compiled-campaign';
import type { AdQuery } from './ad-query';
import { serve, type Served } from './served';
import type { ServeAnswer, ServeContext } from './serve-context';
import { nativeAnswer } from './video-and-native';
import { VAST_TRACKER_FIELDS } from '../vast';

/** Click trackers the click redirect fires, by tracker record field. */
const CLICK_TRACKER_FIELDS = ['primaryClickTracker', 'secondaryClickTrackers', 'mobileBannerClickTracker'] as const;

/** A transparent 1x1 gif: the answer of every event pixel. */
export const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

/** A 400 problem+json in the platform's shape (type from the code, as the API's problems are). */
const badRequest = (code: string, detail: string): ServeAnswer => ({
  status: 400,
  contentType: 'application/problem+json',
  body: JSON.stringify({ type: problemType(code), title: 'Bad Request', status: 400, code, detail }),
});

/** A request whose tag query is not one of ours. */
const badTag = (what: string): ServeAnswer =>
  badRequest('INVALID_TAG_QUERY', `${what}: plc, mp and cmp must be positive integer ids, as the generated tag sets them.`);

const trackersOf = (ctx: ServeContext, choice: AdChoice) =>
  Object.fromEntries(Object.entries(choice.placement.trackers).map(([field, urls]) => [field, urls.map((url) => ctx.expandTracker(url))]));

/** Tag kinds whose ad is a video in the banner (when the item has an mp4 export). */
const BANNER_VIDEO_KINDS = new Set(['video-in-banner', 'video-mobile-in-web']);

function markupOf(ctx: ServeContext, served: Served, choice: AdChoice, kind: string): { markup: string; scripts: string[]; video: BannerVideo | null } {
  const { query, consent } = served;
  const campaign = served.campaign as CompiledCampaign;
  const still = choice.item.exports.png;
  const mp4 = choice.item.exports.mp4;
  const trackers = trackersOf(ctx, choice);
  const mobile = kind === 'video-mobile-in-web';
  const video: BannerVideo | null =
    mp4 && BANNER_VIDEO_KINDS.has(kind)
      ? {
          url: ctx.urls.file(campaign.accountId, mp4),
          events: Object.fromEntries(
            BANNER_VIDEO_EVENTS.map((event) => [
              event,
              [ctx.urls.event(event, query, choice, consent.personalized), ...VAST_TRACKER_FIELDS.events[event].flatMap((field) => trackers[field] ?? [])],
            ]),
          ) as Record<BannerVideoEvent, string[]>,
        }
      : null;
  const markup = displayMarkup({
    item: choice.item,
    video,
    width: choice.placement.width,
    height: choice.placement.height,
    imageFileUrl: still ? ctx.urls.file(campaign.accountId, still) : null,
    clickUrl: ctx.urls.click(query, choice, consent.personalized),
    impressionUrl: ctx.urls.event('impression', query, choice, consent.personalized),
    adChoices: query.adChoices,
    trackers,
    mobile,
  });
  return { markup, scripts: impressionScripts({ trackers, mobile }), video };
}

/** `/serve/v1/tags/<kind>.js`: the script that draws the ad where the tag stands; an empty script when there is no ad. */
export function scriptTag(ctx: ServeContext, kind: string, params: URLSearchParams): ServeAnswer {
  const served = serve(ctx, params);
  if (!served) return badTag('script tag');
  if (kind === 'native' && served.query.nativeJson) return nativeAnswer(ctx, served);
  if (!served.decision.ok) return { status: 200, contentType: 'application/javascript; charset=utf-8', body: `/* no ad: ${served.decision.reason} */` };
  const { markup, scripts, video } = markupOf(ctx, served, served.decision.choice, kind);
  const mraid = served.query.mraid || kind === 'video-mobile-in-web';
  return { status: 200, contentType: 'application/javascript; charset=utf-8', body: displayScript(markup, scripts, mraid, video) };
}

/** `/serve/v1/ads/<kind>.html`: the same ad as a document; an empty document when there is no ad. */
export function adDocument(ctx: ServeContext, kind: string, params: URLSearchParams): ServeAnswer {
  const served = serve(ctx, params);
  if (!served) return badTag('ad document');
  if (kind === 'native' && served.query.nativeJson) return nativeAnswer(ctx, served);
  if (!served.decision.ok)
    return { status: 200, contentType: 'text/html; charset=utf-8', body: displayDocument(`<!-- no ad: ${served.decision.reason} -->`, []) };
  const { markup, scripts, video } = markupOf(ctx, served, served.decision.choice, kind);
  return { status: 200, contentType: 'text/html; charset=utf-8', body: displayDocument(markup, scripts, video) };
}

/** One event of a served ad; the plan and placement come from the snapshot, not from the query that names them. */
function deliveryEvent(
  type: DeliveryEventType,
  campaign: CompiledCampaign,
  choice: Pick<AdChoice, 'placement'>,
  creative: string,
  segment: string,
  personalized: boolean,
): DeliveryEvent {
  return {
    id: randomUUID(),
    type,
    occurredAt: new Date().toISOString(),
    accountId: campaign.accountId,
    retailCampaignId: campaign.retailCampaignId,
    mediaPlanId: choice.placement.mediaPlanId,
    placementId: choice.placement.placementId,
    creative,
    segment,
    personalized,
  };
}

/**
 * `/serve/v1/img/<kind>.png`: the noscript fallback. The ad is decided as the script would decide it
 * (same cache-buster, same item), its impression counted, and the browser sent to the ad's still.
 */
export async function noscriptImage(ctx: ServeContext, params: URLSearchParams): Promise<ServeAnswer> {
  const served = serve(ctx, params);
  if (!served) return badTag('noscript image');
  if (!served.decision.ok) return { status: 200, contentType: 'image/gif', body: PIXEL };
  const { choice } = served.decision;
  const campaign = served.campaign as CompiledCampaign;
  await ctx.events.publish(deliveryEvent('impression', campaign, choice, choice.item.contentValue, choice.segment, served.consent.personalized));
  for (const field of ['bannerImpressionTrackers', 'bannerImpressionOutTagTrackers'])
    for (const url of choice.placement.trackers[field] ?? []) ctx.fireTracker(ctx.expandTracker(url));
  const still = choice.item.exports.png;
  const target = still ? ctx.urls.file(campaign.accountId, still) : choice.item.imageUrl;
  return target ? { status: 302, location: target } : { status: 200, contentType: 'image/gif', body: PIXEL };
}

/** The served ad an event or click names (cr, sg, pz), checked against the snapshot; else the decision made again. */
function namedAd(ctx: ServeContext, params: URLSearchParams): { campaign: CompiledCampaign; query: AdQuery; choice: AdChoice; personalized: boolean } | null {
  const served = serve(ctx, params);
  if (!served?.campaign || !served.decision.ok) return null;
  const creative = params.get('cr');
  const named = creative === null ? undefined : served.decision.choice.placement.byContentValue.get(creative);
  const choice = named ? { ...served.decision.choice, item: named, segment: params.get('sg') || served.decision.choice.segment } : served.decision.choice;
  const personalized = named ? params.get('pz') === '1' : served.consent.personalized;
  return { campaign: served.campaign, query: served.query, choice, personalized };
}

/**
 * `/serve/v1/click`: counts the click, fires the placement's click trackers and redirects to the item's
 * landing URL (through the ad server's click macro when the tag carried one). The landing URL comes from
 * the snapshot, never from the query, so the redirect cannot be pointed elsewhere.
 */
export async function click(ctx: ServeContext, params: URLSearchParams): Promise<ServeAnswer> {
  const ad = namedAd(ctx, params);
  if (!ad) return { status: 404, contentType: 'text/plain; charset=utf-8', body: 'This ad is no longer served.' };
  const { campaign, query, choice, personalized } = ad;
  await ctx.events.publish(deliveryEvent('click', campaign, choice, choice.item.contentValue, choice.segment, personalized));
  // ft=0: a VAST player or native renderer fired the click trackers itself (ClickTracking, link.clicktrackers).
  if (params.get('ft') !== '0') {
    for (const field of CLICK_TRACKER_FIELDS) for (const url of choice.placement.trackers[field] ?? []) ctx.fireTracker(ctx.expandTracker(url));
  }
  const landing = choice.item.landingUrl ?? choice.dynamicCampaign?.defaultUrl ?? null;
  if (!landing) return { status: 404, contentType: 'text/plain; charset=utf-8', body: 'This ad has no landing page.' };
  // parseAdQuery keeps a click prefix only when it is an http(s) URL.
  const location = query.clickPrefix ? `${query.clickPrefix}${encodeURIComponent(landing)}` : landing;
  return { status: 302, location };
}

/** `/serve/v1/event?e=<type>`: an impression or video event pixel; counts it and answers a 1x1 gif. */
export async function eventPixel(ctx: ServeContext, params: URLSearchParams): Promise<ServeAnswer> {
  const type = params.get('e') as DeliveryEventType | null;
  if (type === null || !DELIVERY_EVENT_TYPES.includes(type) || type === 'click') {
    return badRequest('INVALID_EVENT', `e must be one of ${DELIVERY_EVENT_TYPES.filter((t) => t !== 'click').join(', ')}.`);
  }
  const ad = namedAd(ctx, params);
  if (ad) await ctx.events.publish(deliveryEvent(type, ad.campaign, ad.choice, ad.choice.item.contentValue, ad.choice.segment, ad.personalized));
  return { status: 200, contentType: 'image/gif', body: PIXEL };
}

/** `/serve/v1/explain`: what this tag query is served and why, consent included (for trafficking checks). */
export function explain(ctx: ServeContext, params: URLSearchParams): ServeAnswer {
  const served = serve(ctx, params);
  if (!served) return badTag('explain');
  const { decision, consent, query } = served;
  const body = {
    placementId: query.placementId,
    retailCampaignId: query.retailCampaignId,
    dynamicCampaignId: query.dynamicCampaignId,
    consent,
    served: decision.ok,
    noAdReason: decision.ok ? null : decision.reason,
    creative: decision.ok ? decision.choice.item.contentValue : null,
    segment: decision.ok ? decision.choice.segment : null,
    usedDefault: decision.ok ? decision.choice.usedDefault : null,
    consentForcedDefault: decision.ok ? decision.choice.consentForcedDefault : false,
  };
  return { status: 200, contentType: 'application/json', body: JSON.stringify(body) };
}
