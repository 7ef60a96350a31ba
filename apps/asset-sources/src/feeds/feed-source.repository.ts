import type { Knex } from 'knex';
import type { FeedMissingRowPolicy, FeedSecretField } from '@contracts/domain';
import { listWithTotalQuery, readJsonColumn, writeJsonColumn, type Page, type PageWindow, type ServiceDatabase } from '@platform/mysql';
import { KEY_VALUE_MAX } from '../sources/asset-source.model';
import type { FeedConfig } from './feed-reading';
import type {
  FeedReportEntry,
  FeedRunHealth,
  FeedRunRecord,
  FeedRunStatus,
  FeedRunTrigger,
  FeedColumnSet,
  FeedLocationSettings,
  FeedSettings,
  FeedSourceRecord,
  FeedUrlSettings,
} from './feed-source.model';

interface FeedSourceRowDb {
  asset_source_id: number;
  url_type: FeedSettings['location']['urlType'];
  url: string;
  url_config: string;
  sealed_credentials: Buffer | null;
  file_id: string | null;
  content_type: FeedSettings['format']['contentType'];
  character_encoding: FeedSettings['format']['characterEncoding'];
  csv_separator: FeedSettings['format']['csvSeparator'];
  first_row_is_header: number;
  cdp: number;
  custom_code: string | null;
  feed_config: string | null;
  is_scheduled: number;
  frequency: FeedSettings['schedule']['frequency'];
  start_time: string | null;
  /** A DATE: the driver reads it as midnight UTC (the connection's time zone), see calendarDay. */
  end_date: Date | null;
  next_run_at: Date | null;
  missing_row_policy: FeedMissingRowPolicy;
  shrink_guard_percent: number;
  held_queue_id: string | null;
  held_reason: string | null;
  disabled_rows: number;
  applied_queue_id: string | null;
  applied_etag: string | null;
  applied_last_modified: string | null;
  applied_content_hash: string | null;
  pending_columns: string | null;
}

interface FeedRunRowDb {
  queue_id: string;
  asset_source_id: number;
  account_id: number;
  run_trigger: FeedRunTrigger;
  status: FeedRunStatus;
  message: string;
  rows_read: number;
  rows_stored: number;
  duplicate_keys: number;
  empty_keys: number;
  rejected_rows: number;
  etag: string | null;
  last_modified: string | null;
  content_hash: string | null;
  created_at: Date;
  finished_at: Date | null;
  cancel_requested_at: Date | null;
  superseded_by: string | null;
  read_again_at: Date | null;
  column_set: string | null;
}

/** Which secret members the sealed blob holds is stored beside it in the clear: names only, never values. */
interface StoredUrlConfig extends FeedUrlSettings {
  secretsSet?: FeedSecretField[];
}

/** A DATE column's day as stored, yyyy-mm-dd: the driver gives midnight UTC of it. */
const calendarDay = (date: Date | null): string | null => (date === null ? null : date.toISOString().slice(0, 10));

const toSource = (row: FeedSourceRowDb): FeedSourceRecord => {
  const { secretsSet = [], ...urlConfig } = readJsonColumn<StoredUrlConfig>(row.url_config) ?? {};
  return {
    assetSourceId: Number(row.asset_source_id),
    location: { urlType: row.url_type, url: row.url, fileId: row.file_id, urlConfig },
    format: {
      contentType: row.content_type,
      characterEncoding: row.character_encoding,
      csvSeparator: row.csv_separator,
      firstRowIsHeader: Boolean(row.first_row_is_header),
      cdp: Boolean(row.cdp),
      customCode: row.custom_code,
      feedConfig: readJsonColumn<FeedConfig>(row.feed_config),
    },
    schedule: { isScheduled: Boolean(row.is_scheduled), frequency: row.frequency, startTime: row.start_time, endDate: calendarDay(row.end_date) },
    policies: { missingRowPolicy: row.missing_row_policy, shrinkGuardPercent: Number(row.shrink_guard_percent) },
    secretsSet,
    sealedSecrets: row.sealed_credentials,
    nextRunAt: row.next_run_at,
    held: row.held_queue_id === null ? null : { queueId: row.held_queue_id, reason: row.held_reason ?? '' },
    disabledRows: Number(row.disabled_rows),
    applied: { queueId: row.applied_queue_id, etag: row.applied_etag, lastModified: row.applied_last_modified, contentHash: row.applied_content_hash },
    pendingColumns: readJsonColumn<FeedColumnSet>(row.pending_columns),
  };
};

const toRun = (row: FeedRunRowDb): FeedRunRecord => ({
  queueId: row.queue_id,
  assetSourceId: Number(row.asset_source_id),
  accountId: Number(row.account_id),
  trigger: row.run_trigger,
  status: row.status,
  message: row.message,
  rowsRead: Number(row.rows_read),
  rowsStored: Number(row.rows_stored),
  duplicateKeys: Number(row.duplicate_keys),
  emptyKeys: Number(row.empty_keys),
  rejectedRows: Number(row.rejected_rows),
  etag: row.etag,
  lastModified: row.last_modified,
  contentHash: row.content_hash,
  createdAt: row.created_at,
  finishedAt: row.finished_at,
  cancelRequestedAt: row.cancel_requested_at,
  supersededBy: row.superseded_by,
  readAgainAt: row.read_again_at,
  columnSet: readJsonColumn<FeedColumnSet>(row.column_set),
});

const settingsColumns = (settings: FeedSettings, sealed: Buffer | null, secretsSet: FeedSecretField[], nextRunAt: Date | null) => ({
  url_type: settings.location.urlType,
  url: settings.location.url,
  url_config: writeJsonColumn({ ...settings.location.urlConfig, secretsSet } satisfies StoredUrlConfig),
  sealed_credentials: sealed,
  file_id: settings.location.fileId,
  content_type: settings.format.contentType,
  character_encoding: settings.format.characterEncoding,
  csv_separator: settings.format.csvSeparator,
  first_row_is_header: settings.format.firstRowIsHeader,
  cdp: settings.format.cdp,
  custom_code: settings.format.customCode,
  feed_config: writeJsonColumn(settings.format.feedConfig),
  is_scheduled: settings.schedule.isScheduled,
  frequency: settings.schedule.frequency,
  start_time: settings.schedule.startTime,
  end_date: settings.schedule.endDate,
  next_run_at: nextRunAt,
  missing_row_policy: settings.policies.missingRowPolicy,
  shrink_guard_percent: settings.policies.shrinkGuardPercent,
});

/** Report entries one statement deletes. */
const REPORT_DELETE_BATCH = 10_000;
/** Old runs one prune drops at most. */
const PRUNE_BATCH = 100;

/** A run the queue still shows as waiting or running. */
const ACTIVE_STATUSES: FeedRunStatus[] = ['Queued', 'Processing'];

/** Feed settings, runs and their health reports: the SQL and the row mapping, nothing else. */
export class FeedSourceRepository {
  constructor(private readonly db: ServiceDatabase) {}

  async get(assetSourceId: number, trx?: Knex.Transaction): Promise<FeedSourceRecord | undefined> {
    const row = (await (trx ?? this.db.knex)('feed_sources').where({ asset_source_id: assetSourceId }).first()) as FeedSourceRowDb | undefined;
    return row && toSource(row);
  }

  async insert(
    trx: Knex.Transaction,
    assetSourceId: number,
    settings: FeedSettings,
    sealed: Buffer | null,
    secretsSet: FeedSecretField[],
    nextRunAt: Date | null,
  ): Promise<void> {
    await trx('feed_sources').insert({ asset_source_id: assetSourceId, ...settingsColumns(settings, sealed, secretsSet, nextRunAt) });
  }

  /**
   * Pins the host key an sftp source's run met, unless the source has one already or was moved
   * meanwhile (its url or port changed by an update while the run read).
   */
  async pinHostKey(assetSourceId: number, at: Pick<FeedLocationSettings, 'url' | 'urlConfig'>, fingerprint: string): Promise<void> {
    await this.db.write(
      `UPDATE feed_sources SET url_config = JSON_SET(url_config, '$.hostKeyFingerprint', ?) ` +
        `WHERE asset_source_id = ? AND url = ? AND JSON_EXTRACT(url_config, '$.hostKeyFingerprint') IS NULL ` +
        `AND COALESCE(JSON_EXTRACT(url_config, '$.portNumber'), 0) = ?`,
      [fingerprint, assetSourceId, at.url, at.urlConfig.portNumber ?? 0],
    );
  }

  async update(
    trx: Knex.Transaction,
    assetSourceId: number,
    settings: FeedSettings,
    sealed: Buffer | null,
    secretsSet: FeedSecretField[],
    nextRunAt: Date | null,
  ): Promise<void> {
    await trx('feed_sources')
      .where({ asset_source_id: assetSourceId })
      .update(settingsColumns(settings, sealed, secretsSet, nextRunAt));
  }

  /** Scheduled sources whose next run is due, oldest first, but those of the accounts passed over. */
  async due(now: Date, limit: number, passOver: readonly number[] = []): Promise<{ assetSourceId: number; accountId: number; nextRunAt: Date }[]> {
    const query = this.db
      .knex('feed_sources as f')
      .join('asset_sources as s', 's.asset_source_id', 'f.asset_source_id')
      .where('f.is_scheduled', true)
      .andWhere('f.next_run_at', '<=', now);
    if (passOver.length > 0) query.whereNotIn('s.account_id', passOver);
    const rows: { asset_source_id: number; account_id: number; next_run_at: Date }[] = await query
      .orderBy('f.next_run_at')
      .limit(limit)
      .select('f.asset_source_id', 's.account_id', 'f.next_run_at');
    return rows.map((r) => ({ assetSourceId: Number(r.asset_source_id), accountId: Number(r.account_id), nextRunAt: r.next_run_at }));
  }

  /**
   * Moves a due source's next run on, only if it still is the run this replica saw due: of several
   * replicas sweeping at once, exactly one changes the row and so starts the run.
   */
  async claimDue(trx: Knex.Transaction, assetSourceId: number, seenNextRunAt: Date, nextRunAt: Date | null): Promise<boolean> {
    const changed = await trx('feed_sources')
      .where({ asset_source_id: assetSourceId, next_run_at: seenNextRunAt, is_scheduled: true })
      .update({ next_run_at: nextRunAt });
    return changed === 1;
  }

  async setHeld(trx: Knex.Transaction, assetSourceId: number, held: { queueId: string; reason: string } | null): Promise<void> {
    await trx('feed_sources')
      .where({ asset_source_id: assetSourceId })
      .update({ held_queue_id: held?.queueId ?? null, held_reason: held?.reason.slice(0, 1000) ?? null });
  }

  /**
   * Locks the source's feed settings row: what a refresh takes so that two refreshes at once find the same
   * run. Not the source's own row, which a swap holds for as long as it takes to serve a large version.
   */
  async lockSettings(trx: Knex.Transaction, assetSourceId: number): Promise<void> {
    await trx('feed_sources').where({ asset_source_id: assetSourceId }).forUpdate().first('asset_source_id');
  }

  /** The queue id of the version the source holds, its row locked: a confirm decides on what it reads here. */
  async lockHeld(trx: Knex.Transaction, assetSourceId: number): Promise<string | null> {
    const row = (await trx('feed_sources').where({ asset_source_id: assetSourceId }).forUpdate().first('held_queue_id')) as
      Pick<FeedSourceRowDb, 'held_queue_id'> | undefined;
    return row?.held_queue_id ?? null;
  }

  /** Lets go of the version a run held, when it is still the one the source holds. */
  async releaseHeld(trx: Knex.Transaction, assetSourceId: number, queueId: string): Promise<void> {
    await trx('feed_sources').where({ asset_source_id: assetSourceId, held_queue_id: queueId }).update({ held_queue_id: null, held_reason: null });
  }

  /** The columns an update gave while a version serves (null: none wait), in the caller's transaction. */
  async setPendingColumns(trx: Knex.Transaction, assetSourceId: number, columns: FeedColumnSet | null): Promise<void> {
    await trx('feed_sources')
      .where({ asset_source_id: assetSourceId })
      .update({ pending_columns: writeJsonColumn(columns) });
  }

  async setApplied(trx: Knex.Transaction, assetSourceId: number, run: Pick<FeedRunRecord, 'queueId' | 'etag' | 'lastModified' | 'contentHash'>): Promise<void> {
    await trx('feed_sources').where({ asset_source_id: assetSourceId }).update({
      applied_queue_id: run.queueId,
      applied_etag: run.etag,
      applied_last_modified: run.lastModified,
      applied_content_hash: run.contentHash,
      held_queue_id: null,
      held_reason: null,
    });
  }

  async insertRun(trx: Knex.Transaction, run: { queueId: string; assetSourceId: number; accountId: number; trigger: FeedRunTrigger }): Promise<void> {
    await trx('feed_runs').insert({
      queue_id: run.queueId,
      asset_source_id: run.assetSourceId,
      account_id: run.accountId,
      run_trigger: run.trigger,
      status: 'Queued',
      message: 'Queued',
    });
  }

  async getRun(queueId: string): Promise<FeedRunRecord | undefined> {
    const row = (await this.db.knex('feed_runs').where({ queue_id: queueId }).first()) as FeedRunRowDb | undefined;
    return row && toRun(row);
  }

  /**
   * A run, its row locked until the caller's transaction ends: what a cancel and a run's end serialize
   * on. Its source's row is locked first, as a swap locks it first, so a cancel and a swap (or a
   * confirm) wait for each other instead of deadlocking.
   */
  async lockRun(trx: Knex.Transaction, queueId: string): Promise<FeedRunRecord | undefined> {
    const source = (await trx('feed_runs').where({ queue_id: queueId }).first('asset_source_id')) as Pick<FeedRunRowDb, 'asset_source_id'> | undefined;
    if (!source) return undefined;
    await trx.raw('SELECT asset_source_id FROM asset_sources WHERE asset_source_id = ? FOR UPDATE', [source.asset_source_id]);
    const row = (await trx('feed_runs').where({ queue_id: queueId }).forUpdate().first()) as FeedRunRowDb | undefined;
    return row && toRun(row);
  }

  /**
   * Stamps a cancel on a run, in the caller's transaction (the run locked): the owner's, or that of the
   * update whose run `supersededBy` is.
   */
  async requestCancel(trx: Knex.Transaction, queueId: string, at: Date, supersededBy: string | null = null): Promise<void> {
    await trx('feed_runs').where({ queue_id: queueId }).whereNull('cancel_requested_at').update({ cancel_requested_at: at, superseded_by: supersededBy });
  }

  /** A run of the source that waits to read its feed again, brought forward to read now; its queue id, if any. */
  async readNow(assetSourceId: number, now: Date, trx?: Knex.Transaction): Promise<string | undefined> {
    const db = trx ?? this.db.knex;
    const waiting = () =>
      db('feed_runs').where({ asset_source_id: assetSourceId, status: 'Processing' }).whereNull('cancel_requested_at').where('read_again_at', '>', now);
    const row = (await waiting().orderBy('created_at').first('queue_id')) as Pick<FeedRunRowDb, 'queue_id'> | undefined;
    if (!row) return undefined;
    await db('feed_runs').where({ queue_id: row.queue_id }).update({ read_again_at: now });
    return row.queue_id;
  }

  /** The queue id of a run of the source that is still queued (the oldest), if any. */
  async queuedRunOf(assetSourceId: number, trx?: Knex.Transaction): Promise<string | undefined> {
    const row = (await (trx ?? this.db.knex)('feed_runs')
      .where({ asset_source_id: assetSourceId, status: 'Queued' })
      .orderBy('created_at')
      .first('queue_id')) as Pick<FeedRunRowDb, 'queue_id'> | undefined;
    return row?.queue_id;
  }

  /** A source's queued and running runs, locked until the caller's transaction ends (its source's row locked before). */
  async lockActiveRuns(trx: Knex.Transaction, assetSourceId: number): Promise<FeedRunRecord[]> {
    const rows = (await trx('feed_runs')
      .where({ asset_source_id: assetSourceId })
      .whereIn('status', ACTIVE_STATUSES)
      .forUpdate()
      .select('*')) as FeedRunRowDb[];
    return rows.map(toRun);
  }

  /** Whether the run was cancelled (by its owner or an update): what a running ingestion looks for. */
  async cancelRequested(queueId: string): Promise<boolean> {
    const row = (await this.db.knex('feed_runs').where({ queue_id: queueId }).first('cancel_requested_at')) as
      Pick<FeedRunRowDb, 'cancel_requested_at'> | undefined;
    return row !== undefined && row.cancel_requested_at !== null;
  }

  /** A source's runs, newest first (the queue id breaks a tie in the same millisecond), through ix_feed_runs_source. */
  listRuns(assetSourceId: number, window: PageWindow): Promise<Page<FeedRunRecord>> {
    const query = this.db
      .knex('feed_runs')
      .where({ asset_source_id: assetSourceId })
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'queue_id', order: 'desc' },
      ]);
    return listWithTotalQuery<FeedRunRowDb, FeedRunRecord>(query.select('*'), window, toRun);
  }

  /**
   * The account's runs, of every source, queued or running: what its feed-ingest job cap counts. This and
   * hasActiveRun are locking reads: they see the runs committed after the caller's transaction took its
   * snapshot (a plain read earlier in it fixes one), and wait for one another transaction is inserting, so
   * two transactions admitting runs at once never both count without the other's.
   */
  async countActiveRuns(trx: Knex.Transaction, accountId: number): Promise<number> {
    const [{ active }] = await trx('feed_runs').where({ account_id: accountId }).whereIn('status', ACTIVE_STATUSES).forUpdate().count({ active: '*' });
    return Number(active);
  }

  async hasActiveRun(trx: Knex.Transaction, assetSourceId: number): Promise<boolean> {
    const row = await trx('feed_runs').where({ asset_source_id: assetSourceId }).whereIn('status', ACTIVE_STATUSES).forUpdate().first('queue_id');
    return row !== undefined;
  }

  /**
   * A run's state and counts; an end stamps finished_at. Once the run is cancelled (by its owner or an
   * update), only Cancelled is written: any other state answers false and changes nothing, so a
   * cancelled run is never served, held or skipped (inside a transaction, the caller rolls back on false).
   */
  async saveRun(
    trx: Knex.Transaction | undefined,
    queueId: string,
    state: {
      status: FeedRunStatus;
      message: string;
      health?: FeedRunHealth;
      version?: { etag: string | null; lastModified: string | null; contentHash: string | null };
      /** A run that waits to read its feed again: when it does. Every other state clears it. */
      readAgainAt?: Date;
    },
  ): Promise<boolean> {
    const health = state.health && {
      rows_read: state.health.rowsRead,
      rows_stored: state.health.rowsStored,
      duplicate_keys: state.health.duplicateKeys,
      empty_keys: state.health.emptyKeys,
      rejected_rows: state.health.rejectedRows,
    };
    const version = state.version && {
      etag: state.version.etag?.slice(0, 512) ?? null,
      last_modified: state.version.lastModified?.slice(0, 128) ?? null,
      content_hash: state.version.contentHash,
    };
    const finished = state.status === 'Queued' || state.status === 'Processing' ? {} : { finished_at: new Date() };
    const run = (trx ?? this.db.knex)('feed_runs').where({ queue_id: queueId });
    if (state.status !== 'Cancelled') run.whereNull('cancel_requested_at');
    const updated = await run.update({
      status: state.status,
      message: state.message.slice(0, 2000),
      read_again_at: state.readAgainAt ?? null,
      ...health,
      ...version,
      ...finished,
    });
    return Number(updated) > 0;
  }

  /** Deletes a run's health report, a batch at a time (a report may hold a million entries: no statement locks them all). */
  async deleteReport(queueId: string): Promise<void> {
    for (;;) {
      const deleted = await this.db.knex.raw('DELETE FROM feed_report_entries WHERE queue_id = ? LIMIT ?', [queueId, REPORT_DELETE_BATCH]);
      if (Number((deleted as [{ affectedRows: number }])[0].affectedRows) < REPORT_DELETE_BATCH) return;
    }
  }

  /**
   * Drops a source's runs beyond the newest `keep`, with their health reports, sparing runs still under
   * way and the runs the source serves or holds; at most PRUNE_BATCH a call (the rest go at the next).
   * Answers how many were dropped.
   */
  async pruneRuns(assetSourceId: number, keep: number): Promise<number> {
    const feed = (await this.db.knex('feed_sources').where({ asset_source_id: assetSourceId }).first('applied_queue_id', 'held_queue_id')) as
      Pick<FeedSourceRowDb, 'applied_queue_id' | 'held_queue_id'> | undefined;
    if (!feed) return 0;
    const older = (await this.db
      .knex('feed_runs')
      .where({ asset_source_id: assetSourceId })
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'queue_id', order: 'desc' },
      ])
      .offset(keep)
      .limit(PRUNE_BATCH)
      .select('queue_id', 'status')) as Pick<FeedRunRowDb, 'queue_id' | 'status'>[];
    const spared = new Set([feed.applied_queue_id, feed.held_queue_id]);
    const dropped = older.filter((run) => !ACTIVE_STATUSES.includes(run.status) && !spared.has(run.queue_id));
    for (const { queue_id: queueId } of dropped) {
      await this.deleteReport(queueId);
      await this.db.knex('feed_runs').where({ queue_id: queueId }).delete();
    }
    return dropped.length;
  }

  async insertReportEntries(queueId: string, entries: readonly FeedReportEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await this.db.knex('feed_report_entries').insert(
      entries.map((e) => ({
        queue_id: queueId,
        seq: e.seq,
        line: e.line,
        kind: e.kind,
        key_value: e.keyValue?.slice(0, KEY_VALUE_MAX) ?? null,
        reason: e.reason.slice(0, 1000),
      })),
    );
  }

  /** A page of a run's report in feed order (line, then the order entries were noted), after the entry at (afterLine, afterSeq). */
  async reportPage(queueId: string, after: { line: number; seq: number }, limit: number): Promise<FeedReportEntry[]> {
    const rows = await this.db.execute<{ seq: number; line: number; kind: FeedReportEntry['kind']; key_value: string | null; reason: string }>(
      'SELECT seq, line, kind, key_value, reason FROM feed_report_entries WHERE queue_id = ? AND (line > ? OR (line = ? AND seq > ?)) ORDER BY line, seq LIMIT ?',
      [queueId, after.line, after.line, after.seq, limit],
    );
    return rows.map((r) => ({ seq: Number(r.seq), line: Number(r.line), kind: r.kind, keyValue: r.key_value, reason: r.reason }));
  }
}
