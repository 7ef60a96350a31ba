import { ASSET_SOURCE_ROW_MAX_BYTES, FEED_RUNS_KEPT } from '@contracts/domain';
import { JobFailed, JobHandedBack, type JobHandler, type JobProgressSink, type JobRequest, type JobResult } from '@platform/jobs';
import type { Logger } from '@platform/logging';
import { isNamedLockFree, withNamedLock, withTransaction, type ServiceDatabase } from '@platform/mysql';
import { KEY_VALUE_MAX, type AssetSourceRecord } from '../sources/asset-source.model';
import type { AssetSourceService } from '../sources/asset-source.service';
import { isNumericWeight } from '../sources/asset-source.rules';
import { isRejectedFeedRow, notUtf8Advice, type FeedReader, type OpenedFeed } from './feed-reading';
import { asideSummary, servingSummary, STAGE_BATCH, STAGE_BATCH_BYTES, StagedRows, type FeedRowsRepository, type SwapOutcome } from './feed-rows.repository';
import { KeyFilter } from './key-filter';
import { isTransientFeedFailure } from './reading/feed-errors';
import { cancelledMessage, watchForCancel } from './cancel-watch';
import { keptFields, RowValueCollector } from '../sources/row-values';
import {
  columnsToRead,
  matchedByKey,
  FEED_INGEST_KIND,
  type FeedIngestPayload,
  type FeedReportEntry,
  type FeedRunHealth,
  type FeedRunRecord,
  type FeedSourceRecord,
} from './feed-source.model';
import type { FeedSourceRepository } from './feed-source.repository';
import type { FeedSourceService } from './feed-source.service';
import { counted } from './counted';

/** How often a running ingestion reports its progress to the queue. */
const PROGRESS_EVERY_MS = 1_000;
/** How often a run waiting for another run of its source looks whether the source's lock is free. */
const LOCK_WAIT_MS = 500;
/** The feed's column names are gathered from this many first rows, at most FEED_COLUMNS_NAMED of them. */
const FEED_COLUMNS_ROWS = 100;
const FEED_COLUMNS_NAMED = 50;
/** Row loads in flight while parsing goes on; the next batch waits for the oldest (bounded memory). */
export const LOADS_IN_FLIGHT = 2;
/** Rows whose key may repeat an earlier one, held (ordinal and line) until the database checks them... */
const KEY_CANDIDATES = 10_000;
/** ...this many per query. */
const KEY_CHECK_BATCH = 2_000;

export interface FeedIngestDeps {
  db: ServiceDatabase;
  reader: FeedReader;
  feeds: FeedSourceRepository;
  rows: FeedRowsRepository;
  feedSources: FeedSourceService;
  assetSources: AssetSourceService;
  logger: Logger;
  now?: () => Date;
  /**
   * How long a run waits before reading its feed again after a failure another try may not meet (the
   * host unreachable or quiet, a 5xx or 429): one entry a retry. None by default (specs); the service
   * sets FEED_READ_RETRY_DELAYS_MS.
   */
  readRetryDelaysMs?: readonly number[];
}

/** A run that ended without swapping a version in: the run row says why, and so does the queue (Failed). */
class RunEnded extends JobFailed {}

/** A read that failed in a way another try may not, while tries are left: the run waits, then reads the feed again. */
class ReadFailedForNow extends Error {}

/** Which try of its feed's read a run is on. */
interface ReadAttempt {
  number: number;
  of: number;
}

/** Thrown inside a run's last transaction when the run was cancelled first: the transaction rolls back. */
class CancelledFirst extends Error {}

/**
 * The feed-ingest job: reads the whole feed through the FeedReader into a new row generation of the
 * source (written once, seen by no read), recording its health report as it goes, then flips the
 * source to that generation in one short transaction, only when the feed parsed to its end. A broken
 * feed leaves the old rows serving; so does a version the shrink guard holds. One run per source at a
 * time across replicas (a named lock): a run that finds another under way waits for it. A scheduled
 * run of a feed that did not change (ETag, Last-Modified or content hash) is skipped. A read that fails
 * in a way another try may not meet (the host unreachable or quiet, a 5xx or 429) is tried again after
 * each of readRetryDelaysMs, the queue saying why and when; the last failure ends the run. A cancelled run
 * (by its owner or an update) stops within CANCEL_CHECK_MS and is never served; so does a run whose
 * replica shuts down, which is handed back (JobHandedBack) for another to read again. Repeatable from the
 * start: a redelivered job drops what an earlier attempt wrote. The generation a run replaced is
 * dropped in its clean-up, after the queue has its Completed state.
 */
export function feedIngestJob(deps: FeedIngestDeps): JobHandler<FeedIngestPayload> {
  const now = () => deps.now?.() ?? new Date();
  return {
    kind: FEED_INGEST_KIND,
    async run(job, sink) {
      const run = await deps.feeds.getRun(job.queueId);
      if (!run) throw new JobFailed('The feed source of this run no longer exists.');
      if (run.status !== 'Queued' && run.status !== 'Processing') {
        // A redelivery of a run that already ended: report the same end again, change nothing.
        if (run.status === 'Completed' || run.status === 'Skipped') return { totalItems: run.rowsRead, totalProcessed: run.rowsRead, message: run.message };
        throw new JobFailed(run.message);
      }
      const delays = deps.readRetryDelaysMs ?? [];
      for (let number = 1; ; number++) {
        try {
          return await ingestInTurn(deps, job, run.trigger, sink, now, { number, of: delays.length + 1 });
        } catch (error) {
          if (!(error instanceof ReadFailedForNow)) throw error;
          const delayMs = delays[number - 1];
          const message = `${error.message} Reading it again in ${spokenDelay(delayMs)} (attempt ${number + 1} of ${delays.length + 1}).`;
          await waitToReadAgain(deps.feeds, job.queueId, sink, delayMs, message);
        }
      }
    },
    async failed(job, message) {
      // The runner gave up on the run (an error on every delivery): its row ends as its queue did, so it
      // counts no more against the account's cap and the source's schedule.
      const run = await deps.feeds.getRun(job.queueId);
      if (!run || (run.status !== 'Queued' && run.status !== 'Processing')) return;
      const saved = await deps.feeds.saveRun(undefined, job.queueId, { status: 'Failed', message: `${message} The rows already serving are unchanged.` });
      if (!saved) await endCancelled(deps.feeds, job.queueId);
    },
    async cleanup(job) {
      // The generations up to this run's that nothing serves or holds: the one its swap replaced, its
      // own when it was not applied, an older held one it superseded. A held version keeps its rows
      // until it is confirmed or superseded; a later run's generation is never touched.
      const run = await deps.rows.generationOf(job.queueId);
      if (run && run.generation !== null) await deps.rows.dropUnserved(run.assetSourceId, run.generation);
      // The source's history stays bounded: its oldest runs and their reports go as new ones end.
      await deps.feeds.pruneRuns(job.payload.assetSourceId, FEED_RUNS_KEPT);
    },
  };
}

/**
 * One run of a source at a time, on any replica: this one waits its turn (its delivery kept alive, its
 * concurrency slot free for other runs meanwhile), and ends without reading when it is cancelled while
 * it waits.
 */
async function ingestInTurn(
  deps: FeedIngestDeps,
  job: JobRequest<FeedIngestPayload>,
  trigger: string,
  sink: JobProgressSink,
  now: () => Date,
  attempt: ReadAttempt,
): Promise<JobResult> {
  const { assetSourceId } = job.payload;
  const lockName = `feed-${assetSourceId}`;
  for (let waited = false; ; waited = true) {
    const locked = await withNamedLock(deps.db.knex, deps.db.schema, lockName, () =>
      ingest(deps, job.queueId, job.accountId, assetSourceId, trigger, sink, now, attempt),
    );
    if (locked.acquired) return locked.result;
    if (!waited) await sink.progress(0, 0, 'Waiting for the run of this feed source under way to end');
    await sink.idle(async () => {
      do {
        // Shutting down: another replica waits in this one's place.
        if (sink.stopping.aborted) throw new JobHandedBack();
        await throwUnlessStillToRun(deps.feeds, job.queueId);
        await sleep(LOCK_WAIT_MS);
      } while (!(await isNamedLockFree(deps.db.knex, deps.db.schema, lockName)));
    });
    await throwUnlessStillToRun(deps.feeds, job.queueId);
  }
}

/**
 * Between two reads of a feed: the run and the queue say why and when it reads again; the wait holds no
 * concurrency slot, ends the run when it is cancelled meanwhile, hands it back when the worker stops,
 * and ends early when a refresh of the source brings the time forward (the run's read_again_at).
 */
async function waitToReadAgain(feeds: FeedSourceRepository, queueId: string, sink: JobProgressSink, delayMs: number, message: string): Promise<void> {
  const readAgainAt = new Date(Date.now() + delayMs);
  if (!(await feeds.saveRun(undefined, queueId, { status: 'Processing', message, readAgainAt }))) throw new JobFailed(await endCancelled(feeds, queueId));
  await sink.progress(0, 0, message);
  await sink.idle(async () => {
    for (;;) {
      if (sink.stopping.aborted) throw new JobHandedBack();
      // Read fresh each time: a refresh may have brought it forward. The next read's own start clears it.
      const until = (await throwUnlessStillToRun(feeds, queueId)).readAgainAt?.getTime() ?? 0;
      if (Date.now() >= until) return;
      await sleep(Math.min(LOCK_WAIT_MS, until - Date.now()));
    }
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** "200 ms", "45 s", "5 min", "1 h 30 min": a wait as the queue says it. */
function spokenDelay(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  return minutes % 60 === 0 ? `${minutes / 60} h` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** Throws the end of a run that ended or was cancelled while it waited (for its source's lock, or to read again); answers the run otherwise. */
async function throwUnlessStillToRun(feeds: FeedSourceRepository, queueId: string): Promise<FeedRunRecord> {
  const current = await feeds.getRun(queueId);
  if (!current) throw new JobFailed('The feed source of this run no longer exists.');
  if (current.status !== 'Queued' && current.status !== 'Processing') throw new JobFailed(current.message);
  // Left Processing by an attempt that died, and cancelled since.
  if (current.cancelRequestedAt !== null) throw new JobFailed(await endCancelled(feeds, queueId));
  return current;
}

/** Ends a cancelled run Cancelled, with the counts it reached; says who cancelled it (as the run's row now names) and answers that. */
async function endCancelled(feeds: FeedSourceRepository, queueId: string, health?: FeedRunHealth): Promise<string> {
  const message = cancelledMessage('before-served', (await feeds.getRun(queueId))?.supersededBy ?? null);
  await feeds.saveRun(undefined, queueId, { status: 'Cancelled', message, health });
  return message;
}

async function ingest(
  deps: FeedIngestDeps,
  queueId: string,
  accountId: number,
  assetSourceId: number,
  trigger: string,
  sink: JobProgressSink,
  now: () => Date,
  attempt: ReadAttempt,
): Promise<JobResult> {
  const source = await deps.assetSources.get(accountId, assetSourceId).catch(() => undefined);
  const feed = await deps.feeds.get(assetSourceId);
  if (!source || !feed) throw new JobFailed('The feed source no longer exists.');
  // Once the run is cancelled (by its owner or an update), every other end is refused (saveRun answers false): it ends Cancelled.
  const cancelled = async (health?: FeedRunHealth): Promise<never> => {
    throw new RunEnded(await endCancelled(deps.feeds, queueId, health));
  };
  const end = async (status: 'Failed' | 'Skipped', message: string, health?: FeedRunHealth): Promise<never> => {
    if (!(await deps.feeds.saveRun(undefined, queueId, { status, message, health }))) return cancelled(health);
    throw new RunEnded(message);
  };
  /** A failure another try may not meet waits for that try while one is left; any other, or the last, ends the run. */
  const readFailed = (what: string, error: unknown): Promise<never> => {
    if (isTransientFeedFailure(error) && attempt.number < attempt.of) throw new ReadFailedForNow(what);
    const tries = attempt.number > 1 ? ` It failed on each of ${attempt.number} attempts.` : '';
    return end('Failed', `${what}${tries} The rows already serving are unchanged.`);
  };
  if (!(await deps.feeds.saveRun(undefined, queueId, { status: 'Processing', message: 'Processing' }))) return cancelled();
  // Under the source's lock: whatever an earlier attempt (or a run killed mid-way) wrote is dropped.
  await deps.rows.dropUnserved(assetSourceId);
  await deps.feeds.deleteReport(queueId);
  // The columns an update gave while a version serves, else the source's: recorded on the run, applied by its swap.
  const columns = columnsToRead(source, feed);
  // A scheduled run may skip an unchanged feed only when the version serving was read as this run reads it:
  // read after the source's last update, into the same columns. An update whose own run failed, was
  // cancelled or held must still reach the rows.
  const servedRun = trigger === 'schedule' && feed.applied.queueId !== null ? await deps.feeds.getRun(feed.applied.queueId) : undefined;
  const maySkip = servedRun !== undefined && feed.pendingColumns === null && servedRun.createdAt >= source.updatedAt;
  const generation = await withTransaction(deps.db.knex, (trx) => deps.rows.newGeneration(trx, assetSourceId, queueId, columns));

  let opened: OpenedFeed;
  try {
    opened = await deps.reader.open(
      {
        accountId,
        urlType: feed.location.urlType,
        url: feed.location.url,
        urlConfig: { ...feed.location.urlConfig, ...deps.feedSources.open(feed) },
        fileId: feed.location.fileId ?? undefined,
      },
      { ...feed.format, customCode: feed.format.customCode ?? undefined, config: feed.format.feedConfig ?? undefined },
    );
  } catch (error) {
    return readFailed(`The feed could not be read: ${reason(error)}`, error);
  }
  // Trust on first use: the host key an sftp server first authenticated with is the one it must show from now on.
  if (opened.hostKeyFingerprint !== undefined && feed.location.urlConfig.hostKeyFingerprint === undefined)
    await deps.feeds.pinHostKey(assetSourceId, feed.location, opened.hostKeyFingerprint);
  // A cancel stops the transfer and the parser at once; whatever the reading then ends with, the run ends Cancelled.
  const cancelWatch = watchForCancel(
    () => deps.feeds.cancelRequested(queueId),
    () => void opened.close().catch(() => undefined),
  );
  // So does the worker's shutdown, unless the feed was read to its end already: the run is then handed
  // back, unserved and still Processing, and another replica reads the feed from the start.
  let stoppedReading = false;
  const stopReading = () => {
    stoppedReading = true;
    void opened.close().catch(() => undefined);
  };
  if (sink.stopping.aborted) stopReading();
  else sink.stopping.addEventListener('abort', stopReading, { once: true });
  const readingStopped = () => stoppedReading && !cancelWatch.requested;
  try {
    const version = { etag: opened.version.etag ?? null, lastModified: opened.version.lastModified ?? null };
    if (maySkip) {
      const unchanged = sameVersion(version, feed);
      if (unchanged) {
        const saved = await deps.feeds.saveRun(undefined, queueId, {
          status: 'Skipped',
          message: `Skipped: the feed is unchanged (${unchanged}).`,
          version: { ...version, contentHash: null },
        });
        if (!saved) return cancelled();
        return { totalItems: 0, totalProcessed: 0, message: `Skipped: the feed is unchanged (${unchanged}).` };
      }
    }
    // Counted as the rows are read, so a cancelled run says how far it got.
    const health: FeedRunHealth = { rowsRead: 0, rowsStored: 0, duplicateKeys: 0, emptyKeys: 0, rejectedRows: 0 };
    const { columnsInNoRow } = await stageAll(deps, queueId, generation, { ...source, ...columns }, opened, sink, health).catch(async (error: unknown) => {
      if (cancelWatch.requested) return cancelled(health);
      if (readingStopped()) throw new JobHandedBack();
      if (error instanceof RunEnded) throw error;
      return readFailed(`The feed was not ingested: ${reason(error)}`, error);
    });
    // A closed transfer may read as the feed's end: a cancelled or stopped run never goes on to be served.
    if (cancelWatch.requested) return cancelled(health);
    if (readingStopped()) throw new JobHandedBack();
    sink.stopping.removeEventListener('abort', stopReading);
    const contentHash = opened.contentHash();
    const full = { ...version, contentHash };
    if (maySkip && feed.applied.contentHash === contentHash) {
      const message = 'Skipped: the feed is unchanged (content hash).';
      if (!(await deps.feeds.saveRun(undefined, queueId, { status: 'Skipped', message, health, version: full }))) return cancelled(health);
      return { totalItems: health.rowsRead, totalProcessed: health.rowsRead, message };
    }
    // Under keep, rows missing from the new version go on serving beside it: nothing serving is lost but to an empty feed.
    const keepsMissing = feed.policies.missingRowPolicy === 'keep' && matchedByKey(columns, source);
    const hold = shrinkHold(source.rowCount, health.rowsStored, feed.policies.shrinkGuardPercent, { keepsMissing });
    if (hold) {
      const message = `Held: ${hold} The ${source.rowCount} rows already serving are unchanged until the owner confirms this version.`;
      await withTransaction(deps.db.knex, async (trx) => {
        // A newer held version replaces an older one, whose staged rows are then dropped. The source's
        // row before the run's, in the order an update that supersedes the run locks them.
        await deps.feeds.setHeld(trx, assetSourceId, { queueId, reason: message });
        if (!(await deps.feeds.saveRun(trx, queueId, { status: 'Held', message, health, version: full }))) throw new CancelledFirst();
      }).catch((error: unknown) => (error instanceof CancelledFirst ? cancelled(health) : Promise.reject(error)));
      // The older held version, now superseded, is dropped at once.
      if (feed.held && feed.held.queueId !== queueId) await deps.rows.dropUnserved(assetSourceId, generation);
      throw new RunEnded(message);
    }
    const served = await withTransaction(deps.db.knex, async (trx) => {
      const outcome = await deps.feedSources.swapVersionIn(trx, assetSourceId, generation, columns, feed.policies.missingRowPolicy, now());
      await deps.feeds.setApplied(trx, assetSourceId, { queueId, ...full });
      const message = completedMessage(health, outcome, columnsInNoRow, opened.notUtf8());
      // The run's row is written last: a cancel that got there first rolls the swap back.
      if (!(await deps.feeds.saveRun(trx, queueId, { status: 'Completed', message, health, version: full }))) throw new CancelledFirst();
      return { message };
    }).catch((error: unknown) => (error instanceof CancelledFirst ? cancelled(health) : Promise.reject(error)));
    await deps.assetSources
      .changed(accountId, assetSourceId)
      .catch((error: unknown) => deps.logger.warn({ err: error, assetSourceId }, 'dependents of a feed source failed to follow it'));
    return { totalItems: health.rowsRead, totalProcessed: health.rowsRead, message: served.message };
  } finally {
    cancelWatch.stop();
    sink.stopping.removeEventListener('abort', stopReading);
    await opened.close().catch(() => undefined);
  }
}

/**
 * Reads every row into the run's generation, checking each and recording the health report (its
 * counts into `health`); throws when the feed itself breaks. Answers the source's columns no row had (a
 * special column no row has fails the run instead). Rows go in batched loads (LOAD DATA), LOADS_IN_FLIGHT at a time while parsing
 * goes on (the next batch waits for the oldest), so memory stays bounded whatever the feed's size.
 * Duplicate keys: a fixed-size filter of the keys seen names the rows whose key may repeat an earlier
 * one; the database checks those (up to KEY_CANDIDATES at a time, once every earlier row is written).
 */
async function stageAll(
  deps: FeedIngestDeps,
  queueId: string,
  generation: number,
  source: AssetSourceRecord,
  opened: OpenedFeed,
  sink: JobProgressSink,
  health: FeedRunHealth,
): Promise<{ columnsInNoRow: string[] }> {
  const { assetSourceId, columnNames, columns } = source;
  const keyColumn = columns.assetKeyColumn;
  const variantColumn = columns.assetVariantColumn;
  const seenColumns = new Set<string>();
  // The feed's own column names, from its first rows: what a refusal for a special column it lacks lists.
  const feedColumns = new Set<string>();
  const loads = new InFlight(LOADS_IN_FLIGHT);
  const keys = keyColumn === null ? undefined : new KeyFilter();
  const listed = new RowValueCollector(keptFields(keyColumn !== null));
  let valuesWritten = Promise.resolve();
  const candidates = { ordinals: new Int32Array(KEY_CANDIDATES), lines: new Int32Array(KEY_CANDIDATES), count: 0 };
  // The loads' buffers, reused batch after batch once their load is done.
  const spareBuffers: Buffer[] = [];
  let staged = new StagedRows(assetSourceId, generation);
  let report: FeedReportEntry[] = [];
  let seq = 0;
  let lastProgress = Date.now();
  const note = (line: number, kind: FeedReportEntry['kind'], keyValue: string | null, why: string) =>
    report.push({ seq: seq++, line, kind, keyValue, reason: why });
  const flush = async () => {
    const rows = staged;
    const entries = report;
    staged = new StagedRows(assetSourceId, generation, spareBuffers.pop());
    report = [];
    if (rows.count === 0 && entries.length === 0) {
      spareBuffers.push(rows.data.release());
      return;
    }
    const values = listed.take();
    // Listed values are written one batch after another (two writes of the same values would deadlock), rows two at a time.
    valuesWritten = valuesWritten.then(() => deps.rows.stageValues(assetSourceId, generation, values));
    const rowsWritten = (async () => {
      if (rows.count > 0) await deps.rows.stage(rows);
      spareBuffers.push(rows.data.release());
      await deps.feeds.insertReportEntries(queueId, entries);
    })();
    await loads.add(Promise.all([rowsWritten, valuesWritten]).then(() => undefined));
  };
  /** The candidates whose key an earlier row really has, once every row before them is written. */
  const checkCandidates = async () => {
    if (candidates.count === 0) return;
    await flush();
    await loads.drain();
    for (let from = 0; from < candidates.count; from += KEY_CHECK_BATCH) {
      const to = Math.min(candidates.count, from + KEY_CHECK_BATCH);
      const lineOf = new Map<number, number>();
      for (let i = from; i < to; i++) lineOf.set(candidates.ordinals[i], candidates.lines[i]);
      const duplicates = await deps.rows.duplicatesOf(assetSourceId, generation, variantColumn, [...lineOf.keys()]);
      for (const d of duplicates)
        note(
          lineOf.get(d.ordinal) ?? 0,
          'duplicate-key',
          d.keyValue,
          `An earlier row has the key ${JSON.stringify(d.keyValue)}${variantColumn === null ? '' : ' and the same variant'}.`,
        );
      health.duplicateKeys += duplicates.length;
    }
    candidates.count = 0;
  };

  try {
    for await (const batch of opened.batches) {
      for (const row of batch) {
        health.rowsRead++;
        if (isRejectedFeedRow(row)) {
          health.rejectedRows++;
          note(row.line, 'rejected', keyColumn === null ? null : (row.asRead?.[keyColumn] ?? null), row.reason);
          continue;
        }
        if (health.rowsRead <= FEED_COLUMNS_ROWS) for (const column in row.values) if (feedColumns.size < FEED_COLUMNS_NAMED) feedColumns.add(column);
        const projected: Record<string, string> = {};
        for (const column of columnNames) {
          const value = row.values[column];
          if (value !== undefined) {
            projected[column] = value;
            if (seenColumns.size < columnNames.length) seenColumns.add(column);
          }
        }
        const rowJson = JSON.stringify(projected);
        const key = keyColumn === null ? undefined : projected[keyColumn];
        const rejection = rowRejection(projected, rowJson, columns.rotationWeightColumn) ?? keyRejection(key, keyColumn);
        if (rejection) {
          health.rejectedRows++;
          note(row.line, 'rejected', key ?? null, rejection);
          continue;
        }
        let keyValue: string | null = null;
        if (keyColumn !== null) {
          if (key === undefined || key.trim() === '') {
            health.emptyKeys++;
            note(row.line, 'empty-key', null, `The row has no value in the asset key column ${JSON.stringify(keyColumn)}.`);
          } else {
            keyValue = key;
            if (keys?.add(keyValue)) {
              if (candidates.count === KEY_CANDIDATES) await checkCandidates();
              candidates.ordinals[candidates.count] = health.rowsStored;
              candidates.lines[candidates.count] = row.line;
              candidates.count++;
            }
          }
        }
        listed.add(projected);
        staged.add(health.rowsStored, keyValue, rowJson);
        health.rowsStored++;
      }
      if (staged.count >= STAGE_BATCH || staged.length >= STAGE_BATCH_BYTES || report.length >= STAGE_BATCH) await flush();
      if (Date.now() - lastProgress >= PROGRESS_EVERY_MS) {
        lastProgress = Date.now();
        await sink.progress(health.rowsRead, 0, `Read ${health.rowsRead} rows`);
      }
    }
    await flush();
    await checkCandidates();
    await flush();
    await loads.drain();
  } finally {
    // A feed that broke part-way: no insert may still be writing when the run ends and its rows are dropped.
    await loads.settle();
  }
  // The special columns must be columns of the feed: a feed that never carries one is refused whole.
  const absent = [keyColumn, variantColumn, columns.assetGroupColumn, columns.reportingColumn, columns.rotationWeightColumn].filter(
    (c): c is string => c !== null && !seenColumns.has(c),
  );
  if (health.rowsStored > 0 && absent.length > 0)
    throw new Error(
      `the feed has no column ${quotedList(absent)}, which the source names as a special column; its rows have the columns ${quotedList([...feedColumns])}${feedColumns.size === FEED_COLUMNS_NAMED ? ', ...' : ''}.`,
    );
  return { columnsInNoRow: health.rowsStored > 0 ? columnNames.filter((c) => !seenColumns.has(c)) : [] };
}

const quotedList = (names: string[]) => names.map((name) => JSON.stringify(name)).join(', ');

/** Writes started in order, at most `limit` at once; the first failure is thrown by the next add or drain. */
export class InFlight {
  private readonly pending: Promise<void>[] = [];
  private failure: { error: unknown } | undefined;

  constructor(private readonly limit: number) {}

  async add(write: Promise<void>): Promise<void> {
    this.pending.push(
      write.catch((error: unknown) => {
        this.failure ??= { error };
      }),
    );
    while (this.pending.length > this.limit) await this.pending.shift();
    this.rethrow();
  }

  async drain(): Promise<void> {
    await this.settle();
    this.rethrow();
  }

  /** Waits for every write, failed or not. */
  async settle(): Promise<void> {
    await Promise.all(this.pending.splice(0));
  }

  private rethrow(): void {
    if (this.failure) throw this.failure.error;
  }
}

function rowRejection(row: Record<string, string>, rowJson: string, rotationWeightColumn: string | null): string | undefined {
  if (rotationWeightColumn !== null) {
    const weight = row[rotationWeightColumn];
    if (weight !== undefined && weight.trim() !== '' && !isNumericWeight(weight))
      return `The rotation weight ${JSON.stringify(weight.slice(0, 100))} in ${JSON.stringify(rotationWeightColumn)} is not a number of at least 0.`;
  }
  // A UTF-16 unit is at most 3 bytes of UTF-8: most rows are known to fit without counting.
  if (rowJson.length * 3 <= ASSET_SOURCE_ROW_MAX_BYTES) return undefined;
  const bytes = Buffer.byteLength(rowJson);
  if (bytes > ASSET_SOURCE_ROW_MAX_BYTES) return `The row is ${bytes} bytes serialized; a row may be at most ${ASSET_SOURCE_ROW_MAX_BYTES}.`;
  return undefined;
}

/**
 * A key longer than `key_value` holds could not be told from another with the same first characters (a false
 * duplicate, or a row the missing-row policy loses): such a row is refused. Characters as MariaDB counts them.
 */
function keyRejection(key: string | undefined, keyColumn: string | null): string | undefined {
  // A UTF-16 unit is at most one character: most keys are known to fit without counting.
  if (key === undefined || key.length <= KEY_VALUE_MAX) return undefined;
  const characters = [...key].length;
  if (characters <= KEY_VALUE_MAX) return undefined;
  return `The value in the asset key column ${JSON.stringify(keyColumn)} is ${characters} characters long; a key may have at most ${KEY_VALUE_MAX}.`;
}

/** Why a version must wait for the owner: it came back empty, or lost more than the guard's share of the rows serving. */
export function shrinkHold(serving: number, incoming: number, percent: number, { keepsMissing = false } = {}): string | undefined {
  if (serving === 0) return undefined;
  if (incoming === 0) return 'the new version of the feed has no rows.';
  // In whole numbers: a loss of exactly the share allowed passes.
  if (keepsMissing || (serving - incoming) * 100 <= percent * serving) return undefined;
  const lost = ((serving - incoming) * 100) / serving;
  // Rounded, a loss just past the share would read as the share itself ("50% fewer ... allows 50%").
  const shown = Math.round(lost) > percent ? String(Math.round(lost)) : (Math.ceil(lost * 10) / 10).toFixed(1);
  return `the new version has ${counted(incoming, 'row')}, ${shown}% fewer than the ${serving} serving (the guard allows ${percent}%).`;
}

function sameVersion(version: { etag: string | null; lastModified: string | null }, feed: FeedSourceRecord): string | undefined {
  if (version.etag !== null && version.etag === feed.applied.etag) return 'ETag';
  if (version.lastModified !== null && version.lastModified === feed.applied.lastModified) return 'Last-Modified';
  return undefined;
}

/**
 * The counts, what the missing-row policy did, the source's columns no row had (a misspelt column, or one
 * the feed dropped: its cells are empty), and bytes that are not UTF-8 in a feed read as UTF-8.
 */
function completedMessage(health: FeedRunHealth, outcome: SwapOutcome, columnsInNoRow: readonly string[], notUtf8: ReturnType<OpenedFeed['notUtf8']>): string {
  const parts = [servingSummary(outcome), `${health.rowsRead} read`];
  if (health.rejectedRows > 0) parts.push(`${health.rejectedRows} rejected`);
  if (health.duplicateKeys > 0) parts.push(counted(health.duplicateKeys, 'duplicate key'));
  if (health.emptyKeys > 0) parts.push(counted(health.emptyKeys, 'empty key'));
  const absent =
    columnsInNoRow.length === 0
      ? ''
      : `; no row has the column${columnsInNoRow.length === 1 ? '' : 's'} ${columnsInNoRow.map((c) => JSON.stringify(c)).join(', ')}`;
  return `Completed: ${parts.join(', ')}${asideSummary(outcome)}${absent}${notUtf8 ? `; ${notUtf8Advice(notUtf8)}` : ''}.`;
}

/** A failure's own message, for the queue: readers phrase theirs for the customer and never include a secret. */
const reason = (error: unknown) => {
  const text = error instanceof Error ? error.message : String(error);
  return /[.!?]$/.test(text) ? text : `${text}.`;
};
