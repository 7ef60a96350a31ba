import { SERVING_SNAPSHOT_BUCKET, SERVING_SNAPSHOT_VERSION, type ServingCampaign } from '@contracts/domain';
import type { Logger } from '@platform/logging';
import { openKeyValue, type Naming } from '@platform/nats';
import type { KvEntry, NatsConnection, QueuedIterator } from 'nats';
import { compileCampaign, type CompiledCampaign } from './compiled-campaign';

const KEY = /^campaign\.(\d+)$/;

/**
 * Every compiled campaign, in memory, kept current from the serving_snapshot bucket. The watch first
 * delivers every key's current value (a replica that starts serves from the stored snapshot at once),
 * then each put and delete as it happens. Serving never waits on NATS: a lookup is a Map read.
 */
export class SnapshotCache {
  private readonly campaigns = new Map<number, CompiledCampaign>();
  private watch?: QueuedIterator<KvEntry>;
  private loaded = false;

  constructor(private readonly logger: Logger) {}

  get(retailCampaignId: number): CompiledCampaign | undefined {
    return this.campaigns.get(retailCampaignId);
  }

  /** True once the bucket's current contents were read. */
  isLoaded(): boolean {
    return this.loaded;
  }

  get size(): number {
    return this.campaigns.size;
  }

  /** Resolves once the bucket's current contents are in memory. */
  async start(nats: NatsConnection, names: Naming): Promise<void> {
    const kv = await openKeyValue(nats, names, SERVING_SNAPSHOT_BUCKET);
    let markLoaded: () => void = () => undefined;
    const initial = new Promise<void>((resolve) => (markLoaded = resolve));
    this.watch = await kv.watch({
      key: 'campaign.>',
      initializedFn: () => {
        this.loaded = true;
        markLoaded();
      },
    });
    const watch = this.watch;
    void (async () => {
      for await (const entry of watch) this.apply(entry);
    })().catch((error: unknown) => this.logger.error({ err: error }, 'serving snapshot watch ended'));
    await initial;
    this.logger.info({ campaigns: this.campaigns.size }, 'serving snapshots loaded');
  }

  stop(): void {
    this.watch?.stop();
  }

  /** One bucket entry: a put replaces the campaign, a delete or purge removes it. */
  apply(entry: Pick<KvEntry, 'key' | 'operation' | 'value'>): void {
    const match = KEY.exec(entry.key);
    if (!match) return;
    const id = Number(match[1]);
    if (entry.operation !== 'PUT') {
      this.campaigns.delete(id);
      return;
    }
    try {
      const campaign = JSON.parse(Buffer.from(entry.value).toString('utf8')) as ServingCampaign;
      if (campaign.version !== SERVING_SNAPSHOT_VERSION) {
        this.logger.warn({ retailCampaignId: id, version: campaign.version }, 'serving snapshot of another version skipped');
        return;
      }
      this.campaigns.set(id, compileCampaign(campaign));
    } catch (error) {
      this.logger.error({ err: error, retailCampaignId: id }, 'serving snapshot unreadable; the previous one keeps serving');
    }
  }
}
