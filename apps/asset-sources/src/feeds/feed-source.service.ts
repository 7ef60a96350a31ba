import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { Knex } from 'knex';
import {
  effectivePage,
  FEED_SECRET_FIELDS,
  FEED_SHRINK_GUARD_DEFAULT_PERCENT,
  JOB_CONCURRENCY_CAPS,
  type FeedMissingRowPolicy,
  type FeedSecretField,
} from '@contracts/domain';
import { AppError, problem, validationFailed } from '@platform/errors';
import {
  admitJob,
  announceQueued,
  jobAcceptedEntries,
  jobEndedUnstartedEntry,
  type JobProgress,
  type JobRequest,
  type QueueViewAnnouncer,
} from '@platform/jobs';
import type { Logger } from '@platform/logging';
import { withTransaction, type Page } from '@platform/mysql';
import type { SecretBox } from '@platform/secrets';
import type { EventOutbox } from '@platform/service';
import type { AssetSourceRepository } from '../sources/asset-source.repository';
import type { AssetSourceService } from '../sources/asset-source.service';
import { cancelledMessage } from './cancel-watch';
import { asideSummary, servingSummary, type DisabledRow, type FeedRowsRepository, type SwapOutcome } from './feed-rows.repository';
import { firstFeedRun, nextFeedRun, type FeedSchedule } from './feed-schedule';
import {
  columnsToRead,
  FEED_INGEST_KIND,
  matchedByKey,
  sameColumns,
  type FeedColumnSet,
  type FeedIngestPayload,
  type FeedReportEntry,
  type FeedRunRecord,
  type FeedRunTrigger,
  type FeedSecrets,
  type FeedSettings,
  type FeedSourceInput,
  type FeedSourceRecord,
} from './feed-source.model';
import type { FeedSourceRepository } from './feed-source.repository';
import { feedSourceErrors, givenSecrets, scheduleWithoutRunErrors, withCredentialsNotCarried, withStoredFeedConfig } from './feed-source.rules';
import { sameCredentialDestination } from './reading/feed-destination';
import { ingestionChanged } from './run-supersede';

/** What a refresh did: queued a new run, answered the run still queued, or made a run waiting to read again read now. */
export type FeedRefreshOutcome = 'queued' | 'joined' | 'read-now';

/** Due sources one sweep starts at most; the rest are due on the next sweep. */
const SWEEP_BATCH = 50;
/** Batches one sweep reads at most, passing over accounts found full. */
const SWEEP_PASSES = 5;

const runNotFound = (queueId: string) => problem('FEED_RUN_NOT_FOUND', `Feed run ${queueId} was not found.`);

const scheduleOf = (settings: FeedSettings): FeedSchedule | null =>
  settings.schedule.isScheduled && settings.schedule.frequency && settings.schedule.startTime
    ? { frequency: settings.schedule.frequency, startTime: settings.schedule.startTime, endDate: settings.schedule.endDate }
    : null;

/**
 * The next scheduled run after an update: the one already planned while the schedule stays as it was (a
 * rename keeps a weekly feed on its weekday), else the first of the new schedule.
 */
function nextRunAfterUpdate(before: FeedSchedule | null, planned: Date | null, after: FeedSchedule | null, now: Date): Date | null {
  if (!after) return null;
  if (before && planned && isDeepStrictEqual(before, after)) return planned;
  return firstFeedRun(after, now);
}

/**
 * Feed sources (create from process output, create directly, update), their runs and schedule: every
 * change commits with the run it starts (its row, the Queued event that creates the queue view, and
 * the job request, through the outbox), so a source never exists without its first run queued.
 */
export class FeedSourceService {
  constructor(
    private readonly deps: {
      knex: Knex;
      sources: AssetSourceRepository;
      assetSources: AssetSourceService;
      feeds: FeedSourceRepository;
      rows: FeedRowsRepository;
      events: EventOutbox;
      box: SecretBox;
      logger: Logger;
      now?: () => Date;
      /** Runs one account may have queued or running at once (JOB_CONCURRENCY_CAPS). */
      runCap?: number;
      /** Due sources a sweep reads at a time (SWEEP_BATCH). */
      sweepBatch?: number;
    },
  ) {}

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }

  /** Creates a feed source (37 with process's config, 38 without) and queues its first ingestion. */
  async create(accountId: number, input: FeedSourceInput, queueView?: QueueViewAnnouncer): Promise<{ assetSourceId: number; queueId: string }> {
    const now = this.now();
    const errors = [...feedSourceErrors(input), ...scheduleWithoutRunErrors(input.schedule, now)];
    if (errors.length > 0) throw validationFailed(errors);
    const settings = this.settingsOf(input, undefined);
    const secrets = givenSecrets(input.secrets);
    const schedule = scheduleOf(settings);
    const created = await withTransaction(this.deps.knex, async (trx) => {
      const assetSourceId = await this.deps.sources.insert(trx, accountId, {
        ...input.definition,
        assetSourceName: input.definition.assetSourceName.trim(),
        contentType: settings.format.contentType,
        assetSourceType: 'feed',
      });
      await this.deps.feeds.insert(
        trx,
        assetSourceId,
        settings,
        this.seal(secrets),
        Object.keys(secrets) as FeedSecretField[],
        schedule && firstFeedRun(schedule, now),
      );
      const queued = await this.enqueue(trx, accountId, assetSourceId, 'create', now);
      await this.deps.assetSources.recordSourceChange(trx, { accountId, assetSourceId, action: 'create', resourceType: 'feed-source' }, () =>
        this.feedForChange(trx, assetSourceId),
      );
      return { assetSourceId, queued };
    });
    await announceQueued(queueView, created.queued, this.deps.logger);
    return { assetSourceId: created.assetSourceId, queueId: created.queued.queueId };
  }

  /**
   * Replaces a feed source's settings (39) and queues an ingestion with them. A secret member not
   * given keeps its stored value while the credentials go to the same place (urlType, host and port:
   * `credentialDestination`), and feedConfig its stored one while the content type stays
   * (`withStoredFeedConfig`); the rows keep serving until the new run swaps its version in. The new
   * run supersedes the source's queued run, and its running one when the update changes what a run
   * reads (`ingestionChanged`): they end Cancelled, naming it. A running run it leaves, it waits for.
   */
  async replace(
    accountId: number,
    assetSourceId: number,
    request: FeedSourceInput,
    queueView?: QueueViewAnnouncer,
  ): Promise<{ assetSourceId: number; queueId: string }> {
    const current = await this.deps.assetSources.ofKind(accountId, assetSourceId, 'feed');
    const stored = await this.feedOf(assetSourceId);
    const input = withStoredFeedConfig(request, stored);
    const sameDestination = sameCredentialDestination(stored.location, input.location);
    const storedSecrets = this.open(stored);
    const kept = sameDestination ? storedSecrets : {};
    const now = this.now();
    const errors = [...feedSourceErrors(input, new Set(sameDestination ? stored.secretsSet : [])), ...scheduleWithoutRunErrors(input.schedule, now)];
    if (errors.length > 0) throw validationFailed(sameDestination ? errors : withCredentialsNotCarried(errors, stored.secretsSet));
    const settings = withPinnedHostKey(this.settingsOf(input, stored), stored, sameDestination);
    const next = { ...input.definition, assetSourceName: input.definition.assetSourceName.trim(), contentType: settings.format.contentType };
    const refusal = await this.deps.assetSources.refuseChange(current, next);
    if (refusal) throw refusal;
    const secrets = { ...kept, ...givenSecrets(input.secrets) };
    const schedule = scheduleOf(settings);
    const given: FeedColumnSet = { columnNames: next.columnNames, columns: next.columns };
    const queued = await withTransaction(this.deps.knex, async (trx) => {
      // The source's row first, as a swap locks it: what follows reads the columns and versions a swap left.
      const sourceColumns = await this.deps.sources.lockColumns(trx, assetSourceId);
      const feedNow = (await this.deps.feeds.get(assetSourceId, trx)) ?? stored;
      // While a version serves (a held one waits on one serving), the source's columns stay those of its rows (their
      // keys were computed with its key column): the update's wait as pending, what its run reads into, until a version
      // is swapped in.
      const serving = feedNow.applied.queueId !== null;
      const pending = serving && !sameColumns(given, sourceColumns) ? given : null;
      const beforeSource = await this.deps.assetSources.beforeChange(trx, accountId, assetSourceId);
      const before = beforeSource && { ...beforeSource, ...(await this.feedForChange(trx, assetSourceId)) };
      await this.deps.sources.update(trx, assetSourceId, { ...next, ...(serving ? sourceColumns : {}), assetSourceType: 'feed' });
      await this.deps.feeds.setPendingColumns(trx, assetSourceId, pending);
      await this.deps.feeds.update(
        trx,
        assetSourceId,
        settings,
        this.seal(secrets),
        Object.keys(secrets) as FeedSecretField[],
        nextRunAfterUpdate(scheduleOf(feedNow), feedNow.nextRunAt, schedule, now),
      );
      // Superseded, before the new run is admitted (they name it): a queued run always, a running one
      // when it reads what the update changes, judged against the settings as they are now, under the lock
      // (an update committed since `stored` was read may have started that run).
      const queueId = randomUUID();
      const changed = ingestionChanged(
        { settings: feedNow, secrets: this.open(feedNow), ...columnsToRead(sourceColumns, feedNow) },
        { settings, secrets, ...given },
      );
      for (const active of await this.deps.feeds.lockActiveRuns(trx, assetSourceId))
        if (active.status === 'Queued' || changed) await this.cancelActive(trx, active, now, queueId);
      const run = await this.enqueue(trx, accountId, assetSourceId, 'update', now, queueId);
      await this.deps.assetSources.recordSourceChange(trx, { accountId, assetSourceId, action: 'update', before, resourceType: 'feed-source' }, () =>
        this.feedForChange(trx, assetSourceId),
      );
      return run;
    });
    await announceQueued(queueView, queued, this.deps.logger);
    return { assetSourceId, queueId: queued.queueId };
  }

  /** A feed's settings beside its source in the audit trail; the sealed credentials are redacted there like every secret. */
  private async feedForChange(trx: Knex.Transaction, assetSourceId: number): Promise<{ feed: FeedSourceRecord } | undefined> {
    const feed = await this.deps.feeds.get(assetSourceId, trx);
    return feed && { feed };
  }

  /** The feed settings of a source of the account (for its detail), or undefined when it is not a feed. */
  async settings(assetSourceId: number): Promise<FeedSourceRecord | undefined> {
    return this.deps.feeds.get(assetSourceId);
  }

  /**
   * Starts a run of the stored settings now (extension): the owner knows the feed changed and will not
   * wait for the schedule. Read and swapped in as an update's run is, unchanged or not; it waits for a
   * run of the source under way. When one is still queued, that run is the answer.
   */
  async refresh(accountId: number, assetSourceId: number, queueView?: QueueViewAnnouncer): Promise<{ queueId: string; outcome: FeedRefreshOutcome }> {
    await this.deps.assetSources.ofKind(accountId, assetSourceId, 'feed');
    type Joined = { queueId: string; outcome: Exclude<FeedRefreshOutcome, 'queued'> };
    const answer = await withTransaction(this.deps.knex, async (trx): Promise<Joined | { queued: JobProgress }> => {
      // Under the feed settings' lock: two refreshes at once find, and so join, the same run.
      await this.deps.feeds.lockSettings(trx, assetSourceId);
      // A run still queued reads the feed as it is when it starts: the refresh is that run, not one more waiting behind it.
      const waiting = await this.deps.feeds.queuedRunOf(assetSourceId, trx);
      if (waiting) return { queueId: waiting, outcome: 'joined' };
      // A run waiting to read the feed again after a failure reads now: the refresh is that run too. The
      // wall clock, as the waiting run's own (not the schedule's clock).
      const retrying = await this.deps.feeds.readNow(assetSourceId, new Date(), trx);
      if (retrying) return { queueId: retrying, outcome: 'read-now' };
      return { queued: await this.enqueue(trx, accountId, assetSourceId, 'refresh', this.now()) };
    });
    if (!('queued' in answer)) return answer;
    await announceQueued(queueView, answer.queued, this.deps.logger);
    return { queueId: answer.queued.queueId, outcome: 'queued' };
  }

  /**
   * Applies the version the shrink guard holds (extension): the owner has looked at it and wants it
   * served. Flipped in like any run, in one transaction.
   */
  async confirmHeld(accountId: number, assetSourceId: number): Promise<{ queueId: string; rowCount: number }> {
    await this.deps.assetSources.ofKind(accountId, assetSourceId, 'feed');
    const feed = await this.feedOf(assetSourceId);
    if (!feed.held) throw problem('FEED_NOTHING_HELD', `Feed source ${assetSourceId} holds no version awaiting confirmation.`);
    const run = await this.deps.feeds.getRun(feed.held.queueId);
    if (!run) throw problem('FEED_NOTHING_HELD', `Feed source ${assetSourceId} holds no version awaiting confirmation.`);
    const held = await this.deps.rows.generationOf(run.queueId);
    if (!held || held.generation === null) throw problem('FEED_NOTHING_HELD', `Feed source ${assetSourceId} holds no version awaiting confirmation.`);
    const generation = held.generation;
    const rowCount = await withTransaction(this.deps.knex, async (trx) => {
      const beforeSource = await this.deps.assetSources.beforeChange(trx, accountId, assetSourceId);
      // Decided again under the source's lock: a newer run may have been swapped in or held since the read
      // above (its clean-up then drops this version's rows), and serving this one now would put an older
      // version, or an emptied one, back in its place.
      if ((await this.deps.feeds.lockHeld(trx, assetSourceId)) !== run.queueId) {
        throw problem(
          'FEED_NOTHING_HELD',
          `Feed source ${assetSourceId} no longer holds version ${run.queueId}: a newer run replaced it, or it was discarded. Look at the source again.`,
        );
      }
      const before = beforeSource && { ...beforeSource, ...(await this.feedForChange(trx, assetSourceId)) };
      const outcome = await this.swapVersionIn(trx, assetSourceId, generation, run.columnSet, feed.policies.missingRowPolicy, this.now());
      await this.deps.feeds.setApplied(trx, assetSourceId, run);
      const saved = await this.deps.feeds.saveRun(trx, run.queueId, {
        status: 'Completed',
        message: `Confirmed by the owner: ${servingSummary(outcome)}${asideSummary(outcome)}.`,
      });
      // The owner discarded the version a moment before (cancel): the swap rolls back.
      if (!saved) throw problem('FEED_NOTHING_HELD', `Feed source ${assetSourceId} holds no version awaiting confirmation.`);
      // The confirmation is the owner's change of the feed: the held version becomes the applied one.
      await this.deps.assetSources.recordSourceChange(trx, { accountId, assetSourceId, action: 'update', before, resourceType: 'feed-source' }, async () => ({
        ...(await this.feedForChange(trx, assetSourceId)),
        confirmedRowCount: outcome.served,
      }));
      return outcome.served;
    });
    // The generation it replaced, and nothing newer than the one confirmed (a run may be writing one).
    await this.deps.rows.dropUnserved(assetSourceId, generation);
    await this.deps.assetSources.changed(accountId, assetSourceId);
    return { queueId: run.queueId, rowCount };
  }

  /**
   * Makes a run's generation the source's rows (`FeedRowsRepository.swapIn`), in the caller's transaction,
   * and the columns the run read the feed into the source's columns: they describe the rows serving. Pending
   * columns an update gave are no longer pending once a run that read them serves. The missing-row policy
   * matches rows by key, so it applies while the key column stays; a version keyed by another column
   * replaces the old rows whole, and rows the keep policy carries over take the version's columns. A run
   * from before runs recorded their columns (null) keeps the source's.
   */
  async swapVersionIn(
    trx: Knex.Transaction,
    assetSourceId: number,
    generation: number,
    read: FeedColumnSet | null,
    policy: FeedMissingRowPolicy,
    at: Date,
  ): Promise<SwapOutcome> {
    const serving = await this.deps.sources.lockColumns(trx, assetSourceId);
    const columns = read ?? serving;
    const keyed = matchedByKey(columns, serving);
    const columnNamesChanged = JSON.stringify(columns.columnNames) !== JSON.stringify(serving.columnNames);
    const outcome = await this.deps.rows.swapIn(trx, assetSourceId, generation, keyed, policy, at, columnNamesChanged ? columns.columnNames : null);
    if (!sameColumns(columns, serving)) await this.deps.sources.setColumns(trx, assetSourceId, columns);
    const feed = await this.deps.feeds.get(assetSourceId, trx);
    if (feed?.pendingColumns && sameColumns(feed.pendingColumns, columns)) await this.deps.feeds.setPendingColumns(trx, assetSourceId, null);
    return outcome;
  }

  /**
   * Cancels a run of the account (extension), as an update cancels the runs it supersedes
   * (cancelActive). Queued: it ends Cancelled now and so does its queue (Failed); the worker that later
   * takes its request does nothing. Processing: the cancel is stamped on the run; the ingestion sees it
   * within a second (CANCEL_CHECK_MS), stops reading and ends Cancelled with nothing it read served,
   * and from the stamp on no other end can be written (the run's row decides, whichever of the two
   * commits first). Held: the held version is discarded, its rows dropped. The rows already serving are
   * unchanged in every case. A run that has ended: 409.
   */
  async cancelRun(accountId: number, queueId: string): Promise<FeedRunRecord> {
    const now = this.now();
    const cancelled = await withTransaction(this.deps.knex, async (trx) => {
      const run = await this.deps.feeds.lockRun(trx, queueId);
      if (!run || run.accountId !== accountId) throw runNotFound(queueId);
      if (run.status !== 'Queued' && run.status !== 'Processing' && run.status !== 'Held')
        throw problem('FEED_RUN_ENDED', `Feed run ${queueId} has already ended (${run.status}): only a queued, running or held run can be cancelled.`);
      if (run.status !== 'Held') {
        await this.cancelActive(trx, run, now, null);
      } else {
        await this.deps.feeds.requestCancel(trx, queueId, now);
        const rows = `${run.rowsStored} row${run.rowsStored === 1 ? '' : 's'}`;
        const message = `Discarded by the owner: the held version (${rows}) is dropped. The rows already serving are unchanged.`;
        await this.deps.feeds.saveRun(trx, queueId, { status: 'Cancelled', message });
        await this.deps.feeds.releaseHeld(trx, run.assetSourceId, queueId);
      }
      return run;
    });
    if (cancelled.status === 'Held') {
      const held = await this.deps.rows.generationOf(queueId);
      // Its rows, and nothing newer (a run may be writing a later generation).
      if (held && held.generation !== null) await this.deps.rows.dropUnserved(cancelled.assetSourceId, held.generation);
    }
    const run = await this.deps.feeds.getRun(queueId);
    if (!run) throw runNotFound(queueId);
    return run;
  }

  /**
   * Cancels a queued or running run, in the caller's transaction (the run locked): a queued one ends
   * Cancelled now, its queue Failed through the outbox; a running one is stamped, and ends Cancelled
   * within a second. `supersededBy`: the run of the update that cancels it, null for its owner.
   */
  private async cancelActive(trx: Knex.Transaction, run: FeedRunRecord, now: Date, supersededBy: string | null): Promise<void> {
    await this.deps.feeds.requestCancel(trx, run.queueId, now, supersededBy);
    if (run.status !== 'Queued') return;
    const message = cancelledMessage('before-start', supersededBy);
    await this.deps.feeds.saveRun(trx, run.queueId, { status: 'Cancelled', message });
    const job = { queueId: run.queueId, accountId: run.accountId, kind: FEED_INGEST_KIND };
    await this.deps.events.record(trx, jobEndedUnstartedEntry(job, now.getTime(), message));
  }

  /** A run of one of the caller's accounts and a page of its health report, in feed order, after the entry at `after`. */
  async report(
    accountIds: readonly number[],
    queueId: string,
    after: { line: number; seq: number },
    limit: number,
  ): Promise<{ run: FeedRunRecord; entries: FeedReportEntry[] }> {
    const run = await this.deps.feeds.getRun(queueId);
    if (!run || !accountIds.includes(run.accountId)) throw runNotFound(queueId);
    return { run, entries: await this.deps.feeds.reportPage(queueId, after, limit) };
  }

  /** A feed source's runs, newest first: the queue ids of scheduled runs are found here. */
  async runs(accountId: number, assetSourceId: number, page?: { offset?: number; limit?: number }): Promise<Page<FeedRunRecord>> {
    await this.deps.assetSources.ofKind(accountId, assetSourceId, 'feed');
    return this.deps.feeds.listRuns(assetSourceId, effectivePage(page));
  }

  /** The rows a feed source's missingRowPolicy disable holds aside, by key: what its owner is not serving, and since when. */
  async disabledRows(accountId: number, assetSourceId: number, page?: { offset?: number; limit?: number }): Promise<Page<DisabledRow>> {
    await this.deps.assetSources.ofKind(accountId, assetSourceId, 'feed');
    return this.deps.rows.listDisabled(assetSourceId, effectivePage(page));
  }

  /**
   * Starts the runs that are due. Each due source is claimed by moving its next run on in a
   * transaction that only one replica's update can win; a source with a run still queued or running
   * gets no second one (its next run is moved on all the same).
   */
  async startDueRuns(queueViewFor?: (accountId: number) => QueueViewAnnouncer): Promise<number> {
    const now = this.now();
    const batch = this.deps.sweepBatch ?? SWEEP_BATCH;
    // Accounts running as many feeds as they may: their due sources wait, and are passed over so that the
    // oldest due sources of one full account never keep every other account's from starting.
    const full = new Set<number>();
    let started = 0;
    for (let pass = 0; pass < SWEEP_PASSES; pass++) {
      const dueNow = await this.deps.feeds.due(now, batch, [...full]);
      for (const due of dueNow) {
        if (full.has(due.accountId)) continue;
        const outcome = await this.startDueRun(due, now);
        if (outcome === 'account-full') full.add(due.accountId);
        else if (outcome) {
          started++;
          await announceQueued(queueViewFor?.(due.accountId), outcome, this.deps.logger);
        }
      }
      // Another pass only when this one stopped at a full account with more due behind it.
      if (dueNow.length < batch || !dueNow.some((due) => full.has(due.accountId))) break;
    }
    return started;
  }

  /**
   * Claims one due source and queues its run: the Queued event, nothing when another replica claimed it or
   * a run of it is under way (its next run moved on all the same), or 'account-full' when its account
   * runs as many feeds as it may (the claim rolled back with the refusal: the source stays due and a later
   * sweep starts it once a run has ended).
   */
  private async startDueRun(due: { assetSourceId: number; accountId: number; nextRunAt: Date }, now: Date): Promise<JobProgress | 'account-full' | undefined> {
    const feed = await this.deps.feeds.get(due.assetSourceId);
    const schedule = feed && scheduleOf(feed);
    if (!feed || !schedule) return undefined;
    const next = nextFeedRun(schedule, due.nextRunAt, now);
    return withTransaction(this.deps.knex, async (trx) => {
      // Not the source's row lock an update or a refresh takes: a long swap holds it, and the sweep would
      // stall every account's starts behind it. hasActiveRun is a locking read: a run a refresh is queuing
      // meanwhile is waited for and seen.
      if (!(await this.deps.feeds.claimDue(trx, due.assetSourceId, due.nextRunAt, next))) return undefined;
      if (await this.deps.feeds.hasActiveRun(trx, due.assetSourceId)) return undefined;
      return this.enqueue(trx, due.accountId, due.assetSourceId, 'schedule', now);
    }).catch((error: unknown) => {
      if (error instanceof AppError && error.code === 'JOB_LIMIT_REACHED') return 'account-full' as const;
      throw error;
    });
  }

  /** The run's row, its Queued progress event and its request, in the caller's transaction; answers the Queued event. */
  private async enqueue(
    trx: Knex.Transaction,
    accountId: number,
    assetSourceId: number,
    trigger: FeedRunTrigger,
    now: Date,
    queueId: string = randomUUID(),
  ): Promise<JobProgress> {
    await admitJob(trx, {
      accountId,
      kind: FEED_INGEST_KIND,
      cap: this.deps.runCap ?? JOB_CONCURRENCY_CAPS[FEED_INGEST_KIND],
      countActive: (t) => this.deps.feeds.countActiveRuns(t, accountId),
    });
    await this.deps.feeds.insertRun(trx, { queueId, assetSourceId, accountId, trigger });
    const request: JobRequest<FeedIngestPayload> = { queueId, accountId, kind: FEED_INGEST_KIND, payload: { assetSourceId } };
    const { entries, queued } = jobAcceptedEntries(request, now.getTime());
    for (const entry of entries) await this.deps.events.record(trx, entry);
    return queued;
  }

  private async feedOf(assetSourceId: number): Promise<FeedSourceRecord> {
    const feed = await this.deps.feeds.get(assetSourceId);
    if (!feed) throw problem('ASSET_SOURCE_NOT_FOUND', `Asset source ${assetSourceId} was not found.`);
    return feed;
  }

  private settingsOf(input: FeedSourceInput, stored: FeedSourceRecord | undefined): FeedSettings {
    const members = new Set<string>(FEED_SECRET_FIELDS);
    const urlConfig = Object.fromEntries(Object.entries(input.location.urlConfig).filter(([k, v]) => v !== undefined && !members.has(k)));
    return {
      location: { ...input.location, urlConfig },
      format: { ...input.format, customCode: input.format.customCode?.trim() ? input.format.customCode : null },
      schedule: input.schedule,
      policies: {
        missingRowPolicy: input.policies.missingRowPolicy ?? stored?.policies.missingRowPolicy ?? 'delete',
        shrinkGuardPercent: input.policies.shrinkGuardPercent ?? stored?.policies.shrinkGuardPercent ?? FEED_SHRINK_GUARD_DEFAULT_PERCENT,
      },
    };
  }

  private seal(secrets: FeedSecrets): Buffer | null {
    return Object.keys(secrets).length === 0 ? null : this.deps.box.seal(JSON.stringify(secrets));
  }

  /** The stored secrets in the clear, for a read or to keep them across an update; never logged or answered. */
  open(feed: FeedSourceRecord): FeedSecrets {
    return feed.sealedSecrets ? (JSON.parse(this.deps.box.open(feed.sealedSecrets)) as FeedSecrets) : {};
  }
}

/**
 * An sftp host key pinned by an earlier run stays with its server, as the stored credentials do: an
 * update that names no fingerprint keeps it, an update to another server starts unpinned.
 */
function withPinnedHostKey(settings: FeedSettings, stored: FeedSourceRecord, sameDestination: boolean): FeedSettings {
  const pinned = stored.location.urlConfig.hostKeyFingerprint;
  if (!sameDestination || pinned === undefined || settings.location.urlConfig.hostKeyFingerprint !== undefined) return settings;
  return { ...settings, location: { ...settings.location, urlConfig: { ...settings.location.urlConfig, hostKeyFingerprint: pinned } } };
}
