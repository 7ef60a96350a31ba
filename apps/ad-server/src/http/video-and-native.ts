import { VAST_TRACKING_EVENTS, buildVastEmpty, buildVastInline } from '../vast';
import { buildNativeResponse, nativeContentOf } from '../native';
import type { AdChoice } from '../decision/ad-decision';
import type { CompiledCampaign } from '../snapshot/compiled-campaign';
import { newCacheBuster } from '../trackers';
import type { ServeAnswer, ServeContext } from './serve-context';
import { serve, type Served } from './served';

const VAST_TYPE = 'application/xml; charset=utf-8';

/** Seconds an exported video runs when its snapshot does not say: one frame of the renderer's carousel. */
export const DEFAULT_VIDEO_SECONDS = 2;

/** The click-through of a player or native renderer, which fires the third-party click trackers itself. */
const selfTrackedClick = (ctx: ServeContext, served: Served, choice: AdChoice) => {
  const url = new URL(ctx.urls.click(served.query, choice, served.consent.personalized));
  url.searchParams.set('ft', '0');
  return url.toString();
};

/**
 * `/serve/v1/vast/in-stream.xml`: a VAST 4.2 InLine ad whose MediaFile is the item's mp4 export, with our
 * impression and video event pixels and the placement's trackers; an empty VAST when there is no ad or no
 * video to play.
 */
export function vastDocument(ctx: ServeContext, params: URLSearchParams): ServeAnswer {
  const served = serve(ctx, params);
  if (!served) return { status: 200, contentType: VAST_TYPE, body: buildVastEmpty() };
  const { decision, query, consent } = served;
  if (!decision.ok) return { status: 200, contentType: VAST_TYPE, body: buildVastEmpty() };
  const { choice } = decision;
  const video = choice.item.exports.mp4;
  if (!video) return { status: 200, contentType: VAST_TYPE, body: buildVastEmpty() };
  const campaign = served.campaign as CompiledCampaign;
  const events = Object.fromEntries(VAST_TRACKING_EVENTS.map((event) => [event, ctx.urls.event(event, query, choice, consent.personalized)]));
  const body = buildVastInline({
    adId: `${choice.placement.placementId}-${choice.item.contentValue}`,
    adServingId: query.requestId,
    adTitle: choice.item.name ?? campaign.source.campaignName,
    creativeId: choice.item.contentValue,
    durationSeconds: video.durationSeconds ?? DEFAULT_VIDEO_SECONDS,
    mediaFile: { url: ctx.urls.file(campaign.accountId, video), width: video.width, height: video.height, type: 'video/mp4' },
    clickThrough: choice.item.landingUrl || choice.dynamicCampaign?.defaultUrl ? selfTrackedClick(ctx, served, choice) : null,
    own: { impression: ctx.urls.event('impression', query, choice, consent.personalized), events },
    trackers: choice.placement.trackers,
    cacheBuster: newCacheBuster(),
  });
  return { status: 200, contentType: VAST_TYPE, body };
}

/** The OpenRTB Native 1.2 response of a native tag (rf=1); 204 when there is no ad. */
export function nativeAnswer(ctx: ServeContext, served: Served): ServeAnswer {
  if (!served.decision.ok) return { status: 204 };
  const { choice } = served.decision;
  const campaign = served.campaign as CompiledCampaign;
  const response = buildNativeResponse({
    ...nativeContentOf(choice.item, choice.placement, (file) => ctx.urls.file(campaign.accountId, file)),
    sponsoredBy: campaign.source.campaignName,
    clickUrl: selfTrackedClick(ctx, served, choice),
    impressionUrls: [ctx.urls.event('impression', served.query, choice, served.consent.personalized)],
    trackers: choice.placement.trackers,
    cacheBuster: newCacheBuster(),
  });
  return response ? { status: 200, contentType: 'application/json', body: JSON.stringify(response) } : { status: 204 };
}
