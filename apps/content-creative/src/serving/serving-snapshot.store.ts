import { SERVING_SNAPSHOT_BUCKET, servingSnapshotKey, type ServingCampaign } from '@contracts/domain';
import { openKeyValue, type Naming } from '@platform/nats';
import type { NatsConnection } from 'nats';
import type { ServingSnapshotStore } from './serving-snapshot.service';

/** The compiled campaigns in the NATS key-value bucket the ad servers watch (one revision kept per key). */
export async function openServingSnapshotStore(nats: NatsConnection, names: Naming): Promise<ServingSnapshotStore> {
  const kv = await openKeyValue(nats, names, SERVING_SNAPSHOT_BUCKET);
  return {
    async put(campaign: ServingCampaign) {
      await kv.put(servingSnapshotKey(campaign.retailCampaignId), JSON.stringify(campaign));
    },
    async remove(retailCampaignId: number) {
      await kv.delete(servingSnapshotKey(retailCampaignId));
    },
  };
}
