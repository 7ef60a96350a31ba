import type { ConsentDecision } from '../consent';
import { decideAd, type Decision } from '../decision/ad-decision';
import type { CompiledCampaign } from '../snapshot/compiled-campaign';
import { parseAdQuery, type AdQuery } from './ad-query';
import type { ServeContext } from './serve-context';

/** One served request: its query, the campaign, the consent and the decision. */
export interface Served {
  query: AdQuery;
  campaign: CompiledCampaign | undefined;
  consent: ConsentDecision;
  decision: Decision;
}

/** Parses the tag's query, asks consent and decides; null when the query is not one of our tags'. */
export function serve(ctx: ServeContext, params: URLSearchParams): Served | null {
  const query = parseAdQuery(params);
  if (!query) return null;
  const campaign = ctx.snapshots.get(query.retailCampaignId);
  const consent = ctx.consent(params);
  return { query, campaign, consent, decision: decideAd(campaign, query, consent.personalized) };
}
