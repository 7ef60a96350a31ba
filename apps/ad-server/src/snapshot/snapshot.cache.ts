import { SERVING_SNAPSHOT_BUCKET, SERVING_SNAPSHOT_VERSION, type ServingCampaign } from '@contracts/domain';
import type { Logger } from '@platform/logging';
import { openKeyValue, readLargeValue, type Naming } from '@platform/nats';
import type { KV, KvEntry, NatsConnection, QueuedIterator } from 'nats';
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

  /**
   * Resolves once the bucket's current contents are in memory. The watch starts first and delivers every
   * key's current value and then each change, applied one at a time in order; a value stored in parts is
   * read whole before it replaces the one serving.
   */
  async start(nats: NatsConnection, names: Naming): Promise<void> {
    const kv = await openKeyValue(nats, names, SERVING_SNAPSHOT_BUCKET);
    let initialCount = -1;
    let applied = 0;
    let markLoaded: () => void = () => undefined;
    const initial = new Promise<void>((resolve) => (markLoaded = resolve));
    const settle = () => {
      if (!this.loaded && initialCount >= 0 && applied >= initialCount) {
        this.loaded = true;
        markLoaded();
      }
    };
    // A holder, not a const: initializedFn may run inside kv.watch, before the iterator exists.
    const started: { watch?: QueuedIterator<KvEntry> } = {};
    let initializedEarly = false;
    const watch = await kv.watch({
      key: 'campaign.*',
      initializedFn: () => {
        // Every current value has been handed to the iterator by now; loaded once those are applied. With
        // nothing to deliver this runs inside kv.watch, before it returns the iterator.
        if (!started.watch) initializedEarly = true;
        else {
          initialCount = started.watch.getReceived();
          settle();
        }
      },
    });
    started.watch = watch;
    if (initializedEarly) {
      initialCount = watch.getReceived();
      settle();
    }
    this.watch = watch;
    void (async () => {
      for await (const entry of watch) {
        await this.apply(kv, entry);
        applied++;
        settle();
      }
    })().catch((error: unknown) => this.logger.error({ err: error }, 'serving snapshot watch ended'));
    await initial;
    this.logger.info({ campaigns: this.campaigns.size }, 'serving snapshots loaded');
  }

  stop(): void {
    this.watch?.stop();
  }

  /** One bucket entry: a put replaces the campaign, a delete or purge removes it. */
  async apply(kv: KV, entry: Pick<KvEntry, 'key' | 'operation' | 'value'>): Promise<void> {
    const match = KEY.exec(entry.key);
    if (!match) return;
    const id = Number(match[1]);
    if (entry.operation !== 'PUT') {
      this.campaigns.delete(id);
      return;
    }
    try {
      const text = await readLargeValue(kv, entry.key, entry.value);
      // A newer value replaced this one while its parts were read: that one follows on the watch.
      if (text === undefined) return;
      const campaign = JSON.parse(text) as ServingCampaign;
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
