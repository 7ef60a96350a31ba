import type { ServingItem } from '@contracts/domain';

/** Pixel trackers fired with the impression, by tracker record field. */
const IMPRESSION_PIXEL_FIELDS = ['bannerImpressionTrackers', 'bannerImpressionOutTagTrackers', 'creativeLoadEventTracker'] as const;
const MOBILE_IMPRESSION_PIXEL_FIELDS = ['mobileImpressionClickTrackers', 'mobileImpressionClickOutTagTrackers'] as const;
/** Script trackers loaded with the impression. */
const IMPRESSION_SCRIPT_FIELDS = ['bannerImpressionInTagScriptTrackers', 'bannerImpressionOutTagScriptTrackers'] as const;
const MOBILE_IMPRESSION_SCRIPT_FIELDS = ['mobileImpressionClickInTagScriptTrackers', 'mobileImpressionClickOutTagScriptTrackers'] as const;

/** Where the AdChoices icon links: the industry's opt-out page. */
export const ADCHOICES_URL = 'https://optout.aboutads.info/';

/** Video events an in-banner video reports, in the order a view reaches them. */
export const BANNER_VIDEO_EVENTS = ['start', 'firstQuartile', 'midpoint', 'thirdQuartile', 'complete', 'mute', 'unmute'] as const;
export type BannerVideoEvent = (typeof BANNER_VIDEO_EVENTS)[number];

/** A video that plays in the banner: the item's mp4 export, and the pixels each of its events fires. */
export interface BannerVideo {
  url: string;
  /** Our event pixel and the placement's video trackers, by event. */
  events: Record<BannerVideoEvent, string[]>;
}

export interface DisplayAdInput {
  item: ServingItem;
  /** In-banner video tags: the video to play in place of the still, when the item has one. */
  video?: BannerVideo | null;
  width: number;
  height: number;
  /** The exported still of this item on this placement, if an export kept one. */
  imageFileUrl: string | null;
  clickUrl: string;
  impressionUrl: string;
  adChoices: boolean;
  /** The placement's tracker record (field to URLs), cache-busters already expanded. */
  trackers: Record<string, string[]>;
  mobile: boolean;
}

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/'/g, '&#39;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const pick = (trackers: Record<string, string[]>, fields: readonly string[]) => fields.flatMap((field) => trackers[field] ?? []);

/** The creative itself: the exported still when there is one, else a card drawn from the product's row. */
function creative(input: DisplayAdInput): string {
  const { item, width, height } = input;
  const label = escapeHtml(item.name ?? item.contentValue);
  if (input.video) {
    // Muted, so browsers let it start on its own; the still (when there is one) shows until it does.
    const poster = input.imageFileUrl ? ` poster="${escapeHtml(input.imageFileUrl)}"` : '';
    return `<video class="rm-video" src="${escapeHtml(input.video.url)}"${poster} width="${width}" height="${height}" muted autoplay playsinline style="display:block;width:${width}px;height:${height}px;object-fit:cover"></video>`;
  }
  if (input.imageFileUrl) {
    return `<img src="${escapeHtml(input.imageFileUrl)}" width="${width}" height="${height}" alt="${label}" style="display:block;border:0;width:${width}px;height:${height}px">`;
  }
  const wide = width > height * 2;
  const image = item.imageUrl
    ? `<img src="${escapeHtml(item.imageUrl)}" alt="${label}" style="display:block;max-width:${wide ? '30%' : '100%'};max-height:${wide ? '100%' : '60%'};object-fit:contain;margin:0 auto">`
    : '';
  const price = item.price ? `<div style="font-weight:bold">${escapeHtml(item.price)}</div>` : '';
  const cta = `<div style="display:inline-block;margin-top:4px;padding:2px 8px;background:#222;color:#fff;border-radius:3px">${escapeHtml(item.callToAction ?? 'Shop now')}</div>`;
  return (
    `<div style="box-sizing:border-box;width:${width}px;height:${height}px;overflow:hidden;display:flex;flex-direction:${wide ? 'row' : 'column'};` +
    `align-items:center;justify-content:center;gap:4px;padding:4px;background:#fff;color:#111;font:12px/1.3 sans-serif;text-align:center">` +
    `${image}<div>${item.name ? `<div>${label}</div>` : ''}${price}${cta}</div></div>`
  );
}

/**
 * The ad's markup at the placement's size: the creative linked to the click-through, the AdChoices
 * icon when asked for, and the impression pixels (ours first, then the placement's third-party ones).
 * It carries no script, so it can be put into a page with innerHTML.
 */
export function displayMarkup(input: DisplayAdInput): string {
  const { width, height } = input;
  const pixels = [input.impressionUrl, ...pick(input.trackers, input.mobile ? MOBILE_IMPRESSION_PIXEL_FIELDS : IMPRESSION_PIXEL_FIELDS)]
    .map((url) => `<img src="${escapeHtml(url)}" width="1" height="1" alt="" style="position:absolute;width:1px;height:1px;border:0;left:0;top:0;opacity:0">`)
    .join('');
  const adChoices = input.adChoices
    ? `<a href="${ADCHOICES_URL}" target="_blank" rel="noopener" title="AdChoices" style="position:absolute;top:0;right:0;padding:0 3px;background:rgba(255,255,255,.85);color:#00aecd;font:10px/14px sans-serif;text-decoration:none">AdChoices &#9655;</a>`
    : '';
  return (
    `<div class="rm-ad" style="position:relative;width:${width}px;height:${height}px;overflow:hidden">` +
    `<a class="rm-click" href="${escapeHtml(input.clickUrl)}" target="_blank" rel="noopener" style="display:block;width:${width}px;height:${height}px;text-decoration:none;color:inherit">${creative(input)}</a>` +
    `${adChoices}${pixels}</div>`
  );
}

/** Script trackers the served ad loads once it is in the page. */
export const impressionScripts = (input: Pick<DisplayAdInput, 'trackers' | 'mobile'>) =>
  pick(input.trackers, input.mobile ? MOBILE_IMPRESSION_SCRIPT_FIELDS : IMPRESSION_SCRIPT_FIELDS);

/** JSON safe inside a script element: no `</script>`, no line separators breaking old parsers. */
const scriptJson = (value: unknown) =>
  JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

/**
 * Reports an in-banner video's events once each: quartiles from its playing time, complete when it ends,
 * mute and unmute from its volume. `w` is the element holding the ad, `v` the pixels by event.
 */
const videoTracking = (events: Record<BannerVideoEvent, string[]>) =>
  `var o=w.querySelector('video.rm-video');if(o){var v=${scriptJson(events)},f={};` +
  `function p(k){if(f[k])return;f[k]=1;for(var i=0;i<v[k].length;i++){new Image().src=v[k][i]}}` +
  `o.addEventListener('playing',function(){p('start')});` +
  `o.addEventListener('timeupdate',function(){var r=o.duration?o.currentTime/o.duration:0;if(r>=.25)p('firstQuartile');if(r>=.5)p('midpoint');if(r>=.75)p('thirdQuartile')});` +
  `o.addEventListener('ended',function(){p('complete')});` +
  `o.addEventListener('volumechange',function(){var k=o.muted?'mute':'unmute';f[k]=0;p(k)})}`;

/**
 * The script a script tag loads: it puts the ad's markup where the tag stands, loads the script trackers
 * and reports an in-banner video's events. In an MRAID container it waits for `ready` and opens the
 * click-through with `mraid.open`.
 */
export function displayScript(markup: string, scripts: string[], mraid: boolean, video?: BannerVideo | null): string {
  return (
    `(function(){var d=document,s=d.currentScript,h=${scriptJson(markup)},t=${scriptJson(scripts)},m=${mraid ? 'window.mraid' : 'null'};` +
    `function show(){var w=d.createElement('div');w.innerHTML=h;if(s&&s.parentNode){s.parentNode.insertBefore(w,s)}else{d.body.appendChild(w)}` +
    `if(m){var a=w.querySelector('a.rm-click');if(a){a.addEventListener('click',function(e){e.preventDefault();m.open(a.href)})}}` +
    (video ? videoTracking(video.events) : '') +
    `for(var i=0;i<t.length;i++){var e=d.createElement('script');e.async=true;e.src=t[i];(d.head||d.body).appendChild(e)}}` +
    `if(m&&m.getState&&m.getState()==='loading'){m.addEventListener('ready',show)}else{show()}})();`
  );
}

/** The same ad as a whole HTML document, for ad servers that take a URL (iframe) rather than a script. */
export function displayDocument(markup: string, scripts: string[], video?: BannerVideo | null): string {
  const loaded = scripts.map((src) => `<script async src="${escapeHtml(src)}"></script>`).join('');
  const tracking = video ? `<script>(function(){var w=document.body;${videoTracking(video.events)}})();</script>` : '';
  return `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><style>html,body{margin:0;padding:0}</style></head><body>${markup}${loaded}${tracking}</body></html>`;
}
