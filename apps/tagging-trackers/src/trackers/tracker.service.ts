import type { Knex } from 'knex';
import { withTransaction } from '@platform/mysql';
import { recordChange, type EventOutbox } from '@platform/service';
import {
  MEDIA_PLAN_PLACEMENT_NAME_MAX,
  MEDIA_PLAN_SITE_NAME_MAX,
  planOutsideCampaign,
  TRACKER_RECORD_FIELD,
  TRACKER_RECORD_FIELDS,
  TRACKER_ROWS_MAX,
  TRACKER_TYPES,
  TRACKER_UPDATE_KINDS,
  type TrackerType,
} from '@contracts/domain';
import { enforce, type FieldError, notOneOf, validationFailed } from '@platform/errors';
import { macrosOf } from '../macros/macro.registry';
import type { ChannelsPlansPeer, PlanFacts } from '../peers/channels-plans.peer';
import type { NewTracker, SiteTrackerRecord, StoredTracker, TrackerUpdateInput, TrackerUpdateResult } from './tracker.model';
import type { TrackerRepository } from './tracker.repository';
import { trackerValueProblem } from './tracker.values';

const isTrackerType = (name: string): name is TrackerType => (TRACKER_TYPES as readonly string[]).includes(name);

function inputErrors(input: TrackerUpdateInput): FieldError[] {
  const errors: FieldError[] = [...notOneOf('/type', input.type, TRACKER_UPDATE_KINDS)];
  if (input.rows.length > TRACKER_ROWS_MAX)
    errors.push({ pointer: '/mediaPlanDetails', code: 'TOO_MANY_ITEMS', detail: `mediaPlanDetails may hold at most ${TRACKER_ROWS_MAX} entries.` });
  input.rows.forEach((row, i) => {
    if (row.siteName.length > MEDIA_PLAN_SITE_NAME_MAX)
      errors.push({ pointer: `/mediaPlanDetails/${i}/siteName`, code: 'TOO_LONG', detail: `siteName must be at most ${MEDIA_PLAN_SITE_NAME_MAX} characters.` });
    if (row.placementName.length > MEDIA_PLAN_PLACEMENT_NAME_MAX) {
      errors.push({
        pointer: `/mediaPlanDetails/${i}/placementName`,
        code: 'TOO_LONG',
        detail: `placementName must be at most ${MEDIA_PLAN_PLACEMENT_NAME_MAX} characters.`,
      });
    }
    for (const field of Object.keys(row.trackers)) {
      if (!isTrackerType(field)) errors.push({ pointer: `/mediaPlanDetails/${i}/${field}`, code: 'NOT_ALLOWED', detail: `${field} is not a tracker field.` });
    }
  });
  return errors;
}

const key = (placementId: number, type: string, value: string) => `${placementId}\u0000${type}\u0000${value}`;

/**
 * Third-party trackers of a media plan's placements. Placements and sites belong to channels-plans;
 * this service keeps the tracker values, appended by site and placement name and checked against the
 * ad server each placement runs on.
 */
export class TrackerService {
  constructor(
    private readonly knex: Knex,
    private readonly events: EventOutbox,
    private readonly trackers: TrackerRepository,
  ) {}

  async campaignTrackers(peer: ChannelsPlansPeer, accountId: number, campaignId: number): Promise<{ trackerTypes: string[]; trackersSelected: string[] }> {
    await peer.campaign(accountId, campaignId);
    const selected = new Set(await this.trackers.typesOf(accountId, campaignId));
    return { trackerTypes: [...TRACKER_TYPES], trackersSelected: TRACKER_TYPES.filter((t) => selected.has(t)) };
  }

  async planTrackers(
    peer: ChannelsPlansPeer,
    accountId: number,
    mediaPlanId: number,
    campaignId: number,
    filter: { siteId?: number; placementId?: number },
  ): Promise<{ mediaPlanId: number; mediaPlanName: string; sites: SiteTrackerRecord[] }> {
    const plan = await this.planOf(peer, accountId, mediaPlanId, campaignId);
    const stored = await this.trackers.ofPlan(accountId, mediaPlanId);
    const sites = new Map<number, SiteTrackerRecord>();
    const placements = [...plan.placements]
      .filter((p) => (filter.siteId === undefined || p.siteIdx === filter.siteId) && (filter.placementId === undefined || p.placementId === filter.placementId))
      .sort((a, b) => a.siteIdx - b.siteIdx || a.placementId - b.placementId);
    for (const placement of placements) {
      const site = sites.get(placement.siteIdx) ?? { siteIdx: placement.siteIdx, siteName: placement.siteName, placements: [] };
      sites.set(placement.siteIdx, site);
      const trackers = Object.fromEntries(TRACKER_RECORD_FIELDS.map((field) => [field, [] as string[]]));
      for (const t of stored) if (t.placementId === placement.placementId) trackers[TRACKER_RECORD_FIELD[t.trackerType]].push(t.value);
      site.placements.push({ placementId: placement.placementId, placementName: placement.placementName, trackers });
    }
    return { mediaPlanId: plan.mediaPlanId, mediaPlanName: plan.mediaPlanName, sites: [...sites.values()] };
  }

  async update(peer: ChannelsPlansPeer, accountId: number, mediaPlanId: number, campaignId: number, input: TrackerUpdateInput): Promise<TrackerUpdateResult> {
    const errors = inputErrors(input);
    if (errors.length > 0) throw validationFailed(errors);
    const plan = await this.planOf(peer, accountId, mediaPlanId, campaignId);
    const stored = await this.trackers.ofPlan(accountId, mediaPlanId);
    const present = new Set(stored.map((t) => key(t.placementId, t.trackerType, t.value)));
    const sitesWithTrackers = new Set(stored.map((t) => t.siteIdx));
    const placementsWithTrackers = new Set(stored.map((t) => t.placementId));

    const refused: Record<string, string[]> = {};
    const refuse = (field: string, value: string) => (refused[field] ??= []).push(value);
    const appended: NewTracker[] = [];
    for (const row of input.rows) {
      const siteName = row.siteName.trim();
      const placementName = row.placementName.trim();
      const onSite = plan.placements.filter((p) => p.siteName === siteName);
      const placement = onSite.find((p) => p.placementName === placementName);
      if (onSite.length === 0) refuse('siteName', row.siteName);
      else if (!placement) refuse('placementName', row.placementName);
      if (!placement) continue;
      const macros = macrosOf(placement.adServerId);
      for (const [field, raw] of Object.entries(row.trackers) as [TrackerType, string][]) {
        const value = raw.trim();
        if (value === '') continue;
        if (trackerValueProblem(field, value, macros) !== undefined) {
          refuse(field, raw);
          continue;
        }
        const id = key(placement.placementId, field, value);
        if (present.has(id)) continue;
        present.add(id);
        appended.push({ accountId, campaignId, mediaPlanId, siteIdx: placement.siteIdx, placementId: placement.placementId, trackerType: field, value });
      }
    }

    const counts = countChanges(appended, sitesWithTrackers, placementsWithTrackers);
    if (!input.isValidate && appended.length > 0) {
      await withTransaction(this.knex, async (trx) => {
        await this.trackers.append(trx, appended);
        // The plan's trackers are the resource: how many it held, and the values this update appended.
        await recordChange(trx, this.events, {
          resourceType: 'tracker',
          resourceId: mediaPlanId,
          action: 'update',
          accountId,
          before: { mediaPlanId, campaignId, trackerCount: stored.length },
          after: {
            mediaPlanId,
            campaignId,
            trackerCount: stored.length + appended.length,
            appended: appended.map((t) => ({ placementId: t.placementId, trackerType: t.trackerType, value: t.value })),
          },
        });
      });
    }
    return {
      ...counts,
      trackerAppendedCount: appended.length,
      updatedCampaignId: !input.isValidate && appended.length > 0,
      // The tracker update never renames the plan.
      updatedMediaPlanName: false,
      errorResponse: refused,
    };
  }

  private async planOf(peer: ChannelsPlansPeer, accountId: number, mediaPlanId: number, campaignId: number): Promise<PlanFacts> {
    const plan = await peer.plan(accountId, mediaPlanId);
    enforce(planOutsideCampaign(plan, { mediaPlanId, retailCampaignId: campaignId }));
    return plan;
  }
}

/** A site or placement that had no trackers before is appended; one that had some is updated. */
function countChanges(appended: readonly StoredTracker[], sitesBefore: ReadonlySet<number>, placementsBefore: ReadonlySet<number>) {
  const sites = new Set(appended.map((t) => t.siteIdx));
  const placements = new Set(appended.map((t) => t.placementId));
  return {
    siteUpdatedCount: [...sites].filter((s) => sitesBefore.has(s)).length,
    siteAppendedCount: [...sites].filter((s) => !sitesBefore.has(s)).length,
    placementUpdatedCount: [...placements].filter((p) => placementsBefore.has(p)).length,
    placementAppendedCount: [...placements].filter((p) => !placementsBefore.has(p)).length,
  };
}
