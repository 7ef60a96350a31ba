import { DEFAULT_SEGMENT, type ServingItem } from '@contracts/domain';
import { decide, requestHash, type SignalValue } from '@domain/decisioning';
import type { CompiledCampaign, CompiledDynamicCampaign, CompiledPlacement } from '../snapshot/compiled-campaign';

/** What the query of a served request says, parsed once. */
export interface AdRequest {
  placementId: number;
  mediaPlanId: number;
  retailCampaignId: number;
  /** The dynamic campaign whose graph decides (the tag's `dc` parameter), if any. */
  dynamicCampaignId: number | null;
  /** The request's id for rotation: the expanded cache-buster, else one the server drew. */
  requestId: string;
  /** `ds_<signal>` parameters, by lower-cased signal name. */
  signals: Map<string, string>;
}

export type NoAdReason = 'UNKNOWN_CAMPAIGN' | 'CAMPAIGN_NOT_ACTIVE' | 'UNKNOWN_PLACEMENT' | 'NO_CONTENT';

export interface AdChoice {
  placement: CompiledPlacement;
  item: ServingItem;
  /** The graph's segment served, or DEFAULT_SEGMENT. */
  segment: string;
  usedDefault: boolean;
  /** The request lacked consent for personalized serving, so the graph was not asked. */
  consentForcedDefault: boolean;
  dynamicCampaign: CompiledDynamicCampaign | null;
}

export type Decision = { ok: true; choice: AdChoice } | { ok: false; reason: NoAdReason };

/** An ad server's macro left unexpanded (`${...}`, `%%...%%`, `[...]`) says nothing: it is no value. */
export const isUnexpandedMacro = (value: string) => /^(\$\{.*\}|%%.*%%|\[.*\]|__.*__)$/.test(value);

/** Rotates evenly over the placement's items, the same item for the same request id. */
const rotated = (placement: CompiledPlacement, requestId: string) => placement.items[requestHash(requestId) % placement.items.length];

/** The signal values the graph reads, typed as the catalog declares them; unknown names and unexpanded macros are left out. */
function signalValues(campaign: CompiledCampaign, signals: Map<string, string>): Map<string, SignalValue> {
  const values = new Map<string, SignalValue>();
  for (const [name, raw] of signals) {
    const signal = campaign.signals.get(name);
    if (!signal || raw === '' || isUnexpandedMacro(raw)) continue;
    const number = Number(raw);
    values.set(signal.key, signal.valueType === 'number' && Number.isFinite(number) ? number : raw);
  }
  return values;
}

/**
 * The creative one request is served. Without a dynamic campaign the placement's items rotate evenly.
 * With one, its graph decides a creative master, served as the item of that content value; a master
 * the placement does not hold, like no decision at all, falls back to rotation. Without consent the
 * graph's default creative serves (no signal is read), else the rotation.
 */
export function decideAd(campaign: CompiledCampaign | undefined, request: AdRequest, personalized: boolean): Decision {
  if (!campaign) return { ok: false, reason: 'UNKNOWN_CAMPAIGN' };
  if (!campaign.serves) return { ok: false, reason: 'CAMPAIGN_NOT_ACTIVE' };
  const placement = campaign.placements.get(request.placementId);
  if (!placement) return { ok: false, reason: 'UNKNOWN_PLACEMENT' };
  if (placement.items.length === 0) return { ok: false, reason: 'NO_CONTENT' };
  const dynamicCampaign = request.dynamicCampaignId === null ? null : (campaign.dynamicCampaigns.get(request.dynamicCampaignId) ?? null);
  const served = (item: ServingItem, segment: string, usedDefault: boolean, consentForcedDefault: boolean): Decision => ({
    ok: true,
    choice: { placement, item, segment, usedDefault, consentForcedDefault, dynamicCampaign },
  });
  if (!dynamicCampaign) return served(rotated(placement, request.requestId), DEFAULT_SEGMENT, false, false);

  if (!personalized) {
    const master = dynamicCampaign.graph.defaultCreativeMaster;
    const item = (master !== null && placement.byContentValue.get(master)) || rotated(placement, request.requestId);
    return served(item, DEFAULT_SEGMENT, true, true);
  }
  const decision = decide(dynamicCampaign.graph, signalValues(campaign, request.signals), request.requestId);
  const item = (decision.creativeMaster !== null && placement.byContentValue.get(decision.creativeMaster)) || rotated(placement, request.requestId);
  const segment = decision.segmentIndex >= 0 ? dynamicCampaign.segmentNames[decision.segmentIndex] : DEFAULT_SEGMENT;
  return served(item, segment, decision.usedDefault, false);
}
