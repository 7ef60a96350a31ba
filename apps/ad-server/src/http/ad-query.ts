import { randomUUID } from 'node:crypto';
import { isUnexpandedMacro, type AdRequest } from '../decision/ad-decision';

/** What a served request's query says beyond the decision: how to draw the ad and what consent it carries. */
export interface AdQuery extends AdRequest {
  /** The query as received, for the consent strings. */
  params: URLSearchParams;
  adChoices: boolean;
  mraid: boolean;
  /** The ad server's click macro, expanded: a URL prefix the landing URL is appended to (encoded). */
  clickPrefix: string | null;
  /** rf=1 on a native tag: answer the OpenRTB Native 1.2 JSON instead of drawing the ad. */
  nativeJson: boolean;
}

const positiveInt = (value: string | null): number | null => {
  if (value === null || !/^\d{1,15}$/.test(value)) return null;
  const n = Number(value);
  return n > 0 ? n : null;
};

/**
 * The query without the parameters an ad server left as its macro. The tag carries macros verbatim
 * (`cb=%%CACHEBUSTER%%`), so an unexpanded one must be recognised before percent-decoding, which would
 * read `%%CA` as an escape and mangle it into a value.
 */
export function queryWithoutMacros(rawSearch: string): URLSearchParams {
  const kept: string[] = [];
  for (const pair of rawSearch.replace(/^\?/, '').split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const rawValue = equals === -1 ? '' : pair.slice(equals + 1);
    if (!isUnexpandedMacro(rawValue)) kept.push(pair);
  }
  return new URLSearchParams(kept.join('&'));
}

/** A parameter's value when the ad server expanded it; an unexpanded macro or an empty value is none. */
function expanded(params: URLSearchParams, name: string): string | null {
  const value = params.get(name);
  return value === null || value === '' || isUnexpandedMacro(value) ? null : value;
}

/** The tag's query; null when plc, mp or cmp is missing or not an id (the tag was not one of ours). */
export function parseAdQuery(params: URLSearchParams): AdQuery | null {
  const placementId = positiveInt(params.get('plc'));
  const mediaPlanId = positiveInt(params.get('mp'));
  const retailCampaignId = positiveInt(params.get('cmp'));
  if (placementId === null || mediaPlanId === null || retailCampaignId === null) return null;
  const signals = new Map<string, string>();
  for (const [name, value] of params) if (name.startsWith('ds_') && name.length > 3) signals.set(name.slice(3).toLowerCase(), value);
  const clickPrefix = expanded(params, 'click');
  return {
    placementId,
    mediaPlanId,
    retailCampaignId,
    dynamicCampaignId: positiveInt(params.get('dc')),
    // The same cache-buster (or request id) picks the same item for the script, its noscript image and its click.
    requestId: expanded(params, 'rid') ?? expanded(params, 'cb') ?? randomUUID(),
    signals,
    params,
    adChoices: params.get('adchoices') === '1',
    mraid: params.get('mraid') === '1',
    clickPrefix: clickPrefix && /^https?:\/\//i.test(clickPrefix) ? clickPrefix : null,
    nativeJson: params.get('rf') === '1',
  };
}
