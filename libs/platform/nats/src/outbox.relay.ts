import type { Logger } from '@platform/logging';
import type { Knex } from 'knex';
import type { JetStreamClient } from 'nats';
import { errorMessage } from './nats.api-errors';
import { abortableSleep, backoffDelay, type BackoffOptions } from './nats.backoff';
import { publish } from './nats.publish';
import { OUTBOX_TABLE, type OutboxRow } from './outbox.migration';
import { outboxPublished, outboxPublishFailures, reportOutboxBacklog } from './outbox.metrics';

export interface OutboxRelayOptions {
  /** Connected to the schema that holds the outbox table. */
  knex: Knex;
  js: JetStreamClient;
  logger: Logger;
  /** Pause between polls when the outbox is empty. */
  pollMs?: number;
  /** Rows locked and published per transaction. */
  batchSize?: number;
  /** Delay before a row whose publish failed is tried again (by its attempt count). */
  retryBackoff?: BackoffOptions;
  /** Published rows are deleted after this long; they are kept a while only for inspection. */
  retainPublishedMs?: number;
}

export interface OutboxRelay {
  /**
   * Relays every row pending when called (rows in retry backoff excepted) and resolves with how many
   * were published. A publish failure is recorded on its row and logged, not thrown.
   */
  flush(): Promise<number>;
  /**
   * Cuts the poll loop's idle wait short, so rows a caller has just committed are relayed now rather
   * than at the next poll; a wake while a drain runs makes one more drain follow it.
   */
  wake(): void;
  /**
   * Stops polling after the batch in progress; pending rows stay for the next relay. flush() still
   * works afterwards, so a shutdown can stop the loop and then relay what is left.
   */
  stop(): Promise<void>;
}

interface DrainOutcome {
  published: number;
  failed: boolean;
}

const PRUNE_INTERVAL_MS = 60_000;
const PRUNE_BATCH = 1_000;
const MAX_ERROR_LENGTH = 1_024;

/**
 * Publishes committed outbox rows to JetStream in id order. Any number of relays may run against one
 * table: `FOR UPDATE SKIP LOCKED` gives each its own rows. A row is marked published in the same
 * transaction that locked it, after JetStream acknowledged it; a crash in between rolls the mark back
 * and the row is published again with the same Nats-Msg-Id, which the stream drops as a duplicate
 * as long as the retry falls within the stream's duplicate window.
 */
export function startOutboxRelay({
  knex,
  js,
  logger,
  pollMs = 500,
  batchSize = 100,
  retryBackoff = { initialMs: 1_000, maxMs: 60_000 },
  retainPublishedMs = 24 * 60 * 60_000,
}: OutboxRelayOptions): OutboxRelay {
  const log = logger.child({ component: 'outbox-relay' });
  const stopping = new AbortController();

  // flush() and the poll loop take turns so that flush() counts everything it was asked to relay.
  let turn: Promise<unknown> = Promise.resolve();
  const exclusively = <T>(work: () => Promise<T>): Promise<T> => {
    const run = turn.then(work);
    turn = run.catch(() => undefined);
    return run;
  };

  // READ COMMITTED: a locking read there locks the rows it returns and no gap. Under REPEATABLE READ it
  // would also lock the gap after the last pending row, so every writer's outbox insert would wait for
  // this transaction, which lasts as long as a publish does (the client's timeout while NATS is down).
  const relayBatch = (upToId: number) =>
    knex.transaction(
      async (trx) => {
        const rows: OutboxRow[] = await trx(OUTBOX_TABLE)
          .select('id', 'subject', 'msg_id', 'payload', 'attempts', 'headers')
          .whereNull('published_at')
          .where('id', '<=', upToId)
          .where((due) => due.whereNull('next_attempt_at').orWhere('next_attempt_at', '<=', trx.fn.now(3)))
          .orderBy('id')
          .limit(batchSize)
          .forUpdate()
          .skipLocked();

        const publishedIds: number[] = [];
        let failure: { row: OutboxRow; error: unknown } | undefined;
        for (const row of rows) {
          try {
            await publish(js, row.subject, row.payload, { msgId: row.msg_id, headers: storedHeaders(row) });
            publishedIds.push(row.id);
          } catch (error) {
            // The rest of the batch would most likely fail the same way (NATS down); stop here.
            failure = { row, error };
            break;
          }
        }

        if (publishedIds.length > 0) {
          await trx(OUTBOX_TABLE)
            .whereIn('id', publishedIds)
            .update({ published_at: trx.fn.now(3) });
          outboxPublished().inc(publishedIds.length);
        }
        if (failure) {
          const { row, error } = failure;
          outboxPublishFailures().inc();
          const delayMs = backoffDelay(retryBackoff, row.attempts + 1);
          await trx(OUTBOX_TABLE)
            .where('id', row.id)
            .update({
              attempts: trx.raw('attempts + 1'),
              next_attempt_at: trx.raw('NOW(3) + INTERVAL ? MICROSECOND', [delayMs * 1_000]),
              last_error: errorMessage(error).slice(0, MAX_ERROR_LENGTH),
            });
          log.warn({ err: error, outboxId: row.id, msgId: row.msg_id, attempts: row.attempts + 1, delayMs }, 'outbox publish failed');
        }
        return { selected: rows.length, published: publishedIds.length, failed: failure !== undefined };
      },
      { isolationLevel: 'read committed' },
    );

  const drain = async (signal?: AbortSignal): Promise<DrainOutcome> => {
    // Bounding by the newest pending id now keeps a busy writer from making one drain endless. Read on
    // the (published_at, id) index outside a transaction: an idle poll costs this one query, not a
    // transaction of five round trips.
    const [{ maxId }] = await knex(OUTBOX_TABLE).whereNull('published_at').max({ maxId: 'id' });
    if (maxId === null || maxId === undefined) return { published: 0, failed: false };
    let published = 0;
    for (;;) {
      const batch = await relayBatch(Number(maxId));
      published += batch.published;
      if (batch.failed || batch.selected < batchSize || signal?.aborted) return { published, failed: batch.failed };
    }
  };

  let lastPruneAt = 0;
  const pruneIfDue = async () => {
    if (Date.now() - lastPruneAt < PRUNE_INTERVAL_MS) return;
    lastPruneAt = Date.now();
    await knex.raw('DELETE FROM ?? WHERE published_at < NOW(3) - INTERVAL ? MICROSECOND LIMIT ?', [OUTBOX_TABLE, retainPublishedMs * 1_000, PRUNE_BATCH]);
  };

  // A wake() ends the idle wait in progress, or skips the next one when it comes during a drain.
  let idle: AbortController | undefined;
  let woken = false;
  const idleWait = async () => {
    if (!woken) {
      idle = new AbortController();
      await abortableSleep(pollMs, AbortSignal.any([stopping.signal, idle.signal]));
      idle = undefined;
    }
    woken = false;
  };

  const pollLoop = async () => {
    let consecutiveFailures = 0;
    // Sleeps first: a relay started right after its process commits does not race a caller's flush().
    await idleWait();
    while (!stopping.signal.aborted) {
      try {
        const outcome = await exclusively(() => drain(stopping.signal));
        if (outcome.published > 0) log.debug({ published: outcome.published }, 'outbox relayed');
        consecutiveFailures = outcome.failed ? consecutiveFailures + 1 : 0;
        await pruneIfDue();
      } catch (err) {
        consecutiveFailures += 1;
        log.error({ err, consecutiveFailures }, 'outbox relay cycle failed');
      }
      // After a failure the backoff holds, wake or not: NATS or MySQL is not answering.
      if (consecutiveFailures > 0) await abortableSleep(backoffDelay(retryBackoff, consecutiveFailures), stopping.signal);
      else await idleWait();
    }
  };

  const loopDone = pollLoop();
  const stopReporting = reportOutboxBacklog(knex);
  log.info({ pollMs, batchSize }, 'outbox relay started');

  let stopped: Promise<void> | undefined;
  return {
    flush: async () => (await exclusively(() => drain())).published,
    wake: () => {
      woken = true;
      idle?.abort();
    },
    stop: () => {
      stopped ??= (async () => {
        stopping.abort();
        stopReporting();
        await loopDone;
        await turn;
        log.info('outbox relay stopped');
      })();
      return stopped;
    },
  };
}

/** The headers recorded with a row (see enqueueOutbox); a row that cannot be read is published without them. */
function storedHeaders(row: OutboxRow): Record<string, string> | undefined {
  if (!row.headers) return undefined;
  try {
    return JSON.parse(row.headers) as Record<string, string>;
  } catch {
    return undefined;
  }
}
