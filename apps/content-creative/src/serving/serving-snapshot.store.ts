import { SERVING_SNAPSHOT_BUCKET, servingSnapshotKey, type ServingCampaign } from '@contracts/domain';
import { deleteLargeValue, openKeyValue, putLargeValue, type Naming } from '@platform/nats';
import type { NatsConnection } from 'nats';
import type { ServingSnapshotStore } from './serving-snapshot.service';

/** The compiled campaigns in the NATS key-value bucket the ad servers watch (one revision kept per key; gzipped, in parts when large). */
export async function openServingSnapshotStore(nats: NatsConnection, names: Naming): Promise<ServingSnapshotStore> {
  const kv = await openKeyValue(nats, names, SERVING_SNAPSHOT_BUCKET);
  return {
    async put(campaign: ServingCampaign) {
      await putLargeValue(kv, servingSnapshotKey(campaign.retailCampaignId), JSON.stringify(campaign));
    },
    async remove(retailCampaignId: number) {
      await deleteLargeValue(kv, servingSnapshotKey(retailCampaignId));
    },
  };
}
