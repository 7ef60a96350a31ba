import type { Knex } from 'knex';
import { counter, gauge, lazily } from '@platform/telemetry';
import { OUTBOX_TABLE } from './outbox.migration';

interface Backlog {
  pending: number;
  oldestSeconds: number;
}

/** The outboxes this process relays (one per service; tests may run several), read when scraped. */
const backlogProbes = new Set<() => Promise<Backlog>>();

async function totalBacklog(): Promise<Backlog> {
  let total: Backlog = { pending: 0, oldestSeconds: 0 };
  for (const probe of backlogProbes) {
    const backlog = await probe();
    total = { pending: total.pending + backlog.pending, oldestSeconds: Math.max(total.oldestSeconds, backlog.oldestSeconds) };
  }
  return total;
}

const backlogGauges = lazily(() => {
  // Both gauges come from one query per scrape: the first collect reads, the second reuses it.
  let reading: Promise<Backlog> | undefined;
  const read = () => (reading ??= totalBacklog().finally(() => setImmediate(() => (reading = undefined))));
  return [
    gauge({
      name: 'outbox_pending_events',
      help: 'Events committed to the outbox and not yet published to JetStream',
      async collect() {
        this.set((await read()).pending);
      },
    }),
    gauge({
      name: 'outbox_oldest_pending_seconds',
      help: 'Age of the oldest event still waiting in the outbox (0 when none)',
      async collect() {
        this.set((await read()).oldestSeconds);
      },
    }),
  ];
});

export const outboxPublished = lazily(() => counter({ name: 'outbox_published_total', help: 'Outbox events published to JetStream' }));
export const outboxPublishFailures = lazily(() =>
  counter({ name: 'outbox_publish_failures_total', help: 'Outbox publishes that failed and will be retried (NATS unreachable, stream missing)' }),
);

/** Reports an outbox's backlog on the process's metrics while its relay runs; returns how to stop. */
export function reportOutboxBacklog(knex: Knex): () => void {
  backlogGauges();
  const probe = async (): Promise<Backlog> => {
    const [row] = (await knex(OUTBOX_TABLE)
      .whereNull('published_at')
      .select(knex.raw('COUNT(*) AS pending'), knex.raw('TIMESTAMPDIFF(MICROSECOND, MIN(created_at), NOW(3)) AS oldest_us'))) as {
      pending: number | string;
      oldest_us: number | string | null;
    }[];
    return { pending: Number(row?.pending ?? 0), oldestSeconds: row?.oldest_us === null || row?.oldest_us === undefined ? 0 : Number(row.oldest_us) / 1e6 };
  };
  backlogProbes.add(probe);
  return () => backlogProbes.delete(probe);
}
