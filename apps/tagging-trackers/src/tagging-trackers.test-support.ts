import { problem } from '@platform/errors';
import type { ServiceDatabase } from '@platform/mysql';
import { naming } from '@platform/nats';
import { actingAs, createEventOutbox, TEST_PRINCIPAL } from '@platform/service';
import { openTestSchema, rejectionOf } from '@platform/testing';
import type { CampaignFacts, ChannelsPlansPeer, PlanFacts } from './peers/channels-plans.peer';
import { createTaggingTrackersServices, type TaggingTrackersServices } from './tagging-trackers.services';
import { TAGGING_TRACKERS_MIGRATIONS } from './migrations';

export interface TaggingTrackersTestBed extends TaggingTrackersServices {
  prefix: string;
  db: ServiceDatabase;
  close(): Promise<void>;
}

export const TEST_PUBLIC_BASE_URL = 'http://ads.example.test';

/**
 * The services of tagging-trackers on a schema of their own (migrated like the real one), without
 * gRPC or NATS: specs of the rules call the services directly.
 */
export async function openTaggingTrackersTestBed(tag: string): Promise<TaggingTrackersTestBed> {
  const { prefix, db, close } = await openTestSchema({ tag, base: 'tagging_trackers', migrations: TAGGING_TRACKERS_MIGRATIONS });
  // Called as a key of the test org would call them, so their writes enter the audit trail (the schema's outbox).
  const services = actingAs(
    createTaggingTrackersServices({ db, publicBaseUrl: TEST_PUBLIC_BASE_URL, events: createEventOutbox(naming(prefix)) }),
    TEST_PRINCIPAL,
  );
  return { ...services, prefix, db, close };
}

/**
 * channels-plans' answers as fixed facts, for the service rules' specs (the gateway's end-to-end
 * specs run the real channels-plans): campaigns and plans per account, and the placements marked.
 */
export class FixedChannelsPlans implements ChannelsPlansPeer {
  readonly marked: { accountId: number; mediaPlanId: number; placementIds: number[] }[] = [];
  constructor(
    readonly campaigns: Map<string, CampaignFacts> = new Map(),
    readonly plans: Map<string, PlanFacts> = new Map(),
    readonly catalog: ReadonlySet<string> = new Set(['onsite-rm', 'gam', 'cm360', 'xandr', 'ttd', 'dv360', 'meta', 'pinterest', 'vistar']),
  ) {}

  async adServerIds() {
    return this.catalog;
  }
  async campaign(accountId: number, retailCampaignId: number) {
    const facts = this.campaigns.get(`${accountId}/${retailCampaignId}`);
    if (!facts) throw problem('RETAIL_CAMPAIGN_NOT_FOUND', `Retail campaign ${retailCampaignId} was not found.`);
    return facts;
  }
  async plan(accountId: number, mediaPlanId: number) {
    const plan = this.plans.get(`${accountId}/${mediaPlanId}`);
    if (!plan) throw problem('MEDIA_PLAN_NOT_FOUND', `Media plan ${mediaPlanId} was not found.`);
    return plan;
  }
  async markTagged(accountId: number, mediaPlanId: number, placementIds: number[]) {
    this.marked.push({ accountId, mediaPlanId, placementIds });
  }
}

export { rejectionOf };
