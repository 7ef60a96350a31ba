import {
  ASSET_SOURCE_PARAMS_MAX,
  ASSET_SOURCE_SPECIAL_COLUMNS,
  ASSET_SOURCE_URL_MAX,
  effectivePage,
  REMOTE_CACHE_TIME_MAX,
  REMOTE_HTTP_METHODS,
  type AssetSourceSpecialColumn,
  type AssetSourceType,
} from '@contracts/domain';
import { AppError, type FieldError, notOneOf, problem, validationFailed } from '@platform/errors';
import type { Knex } from 'knex';
import { withTransaction, type Page } from '@platform/mysql';
import { recordChange, type EventOutbox } from '@platform/service';
import type { RemoteRows } from '../remote/remote-rows';
import type { AssetSourceRecord, AssetSourceSummary, RemoteSettings, SourceDefinition, SourceRow, SpecialColumns } from './asset-source.model';
import type { AssetSourceRepository } from './asset-source.repository';
import { definitionErrors, rowErrors } from './asset-source.rules';

export const assetSourceNotFound = (assetSourceId: number) => problem('ASSET_SOURCE_NOT_FOUND', `Asset source ${assetSourceId} was not found.`);

/** Sources built on another source (recommendations): they may veto a change and follow it. */
export interface SourceDependents {
  /** Why `next` may not replace `current` (e.g. a column a recommendation source maps would go); undefined when it may. */
  refusal(current: AssetSourceRecord, next: SourceDefinition): Promise<AppError | undefined>;
  /** Runs after a source's rows or columns changed. */
  changed(source: AssetSourceRecord): Promise<void>;
}

export interface InlineInput {
  definition: SourceDefinition;
  /** The rows as the request carried them: a JSON array text. */
  rowsJson: string;
}

/** The members of a PATCH body, by their body names; only those named in `present` change. */
export interface InlinePatch {
  present: ReadonlySet<string>;
  assetSourceName?: string;
  columnNames?: string[];
  columns: Partial<SpecialColumns>;
  contentType?: SourceDefinition['contentType'];
  rowsJson?: string;
}

export interface RemoteInput {
  definition: SourceDefinition;
  remote: RemoteSettings;
}

function parseRows(rowsJson: string): unknown[] {
  let rows: unknown;
  try {
    rows = rowsJson.trim() === '' ? [] : JSON.parse(rowsJson);
  } catch {
    throw validationFailed([{ pointer: '/data', code: 'INVALID_FORMAT', detail: 'data must be a JSON array of row objects.' }]);
  }
  if (!Array.isArray(rows)) throw validationFailed([{ pointer: '/data', code: 'INVALID_FORMAT', detail: 'data must be an array of row objects.' }]);
  return rows;
}

function remoteErrors(remote: RemoteSettings): FieldError[] {
  const errors: FieldError[] = [];
  let url: URL | undefined;
  try {
    url = new URL(remote.url);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || remote.url.length > ASSET_SOURCE_URL_MAX)
    errors.push({
      pointer: '/url',
      code: 'INVALID_FORMAT',
      detail: `url must be an absolute http or https URL of at most ${ASSET_SOURCE_URL_MAX} characters.`,
    });
  errors.push(...notOneOf('/httpMethod', remote.httpMethod, REMOTE_HTTP_METHODS));
  if (remote.additionalParams.length > ASSET_SOURCE_PARAMS_MAX)
    errors.push({ pointer: '/additionalParams', code: 'TOO_LONG', detail: `additionalParams must be at most ${ASSET_SOURCE_PARAMS_MAX} characters.` });
  if (!Number.isInteger(remote.cacheTime) || remote.cacheTime < 0 || remote.cacheTime > REMOTE_CACHE_TIME_MAX)
    errors.push({ pointer: '/cacheTime', code: 'OUT_OF_RANGE', detail: `cacheTime must be 0 to ${REMOTE_CACHE_TIME_MAX} seconds.` });
  return errors;
}

const trimmed = (definition: SourceDefinition): SourceDefinition => ({ ...definition, assetSourceName: definition.assetSourceName.trim() });

/** A kind with its article, by its first letter (which is how every kind's name sounds): "an inline", "a remote". */
const withArticle = (kind: string): string => `${/^[aeiou]/i.test(kind) ? 'an' : 'a'} ${kind}`;

/**
 * Asset sources of an account: listing, reading (a page of rows in milliseconds whatever the
 * source's size), and the inline and remote kinds. The rules are re-checked here because the
 * gateway is not the service's only caller.
 */
export class AssetSourceService {
  private dependents?: SourceDependents;

  constructor(
    private readonly knex: Knex,
    private readonly sources: AssetSourceRepository,
    private readonly remoteRows: RemoteRows,
    private readonly events: EventOutbox,
  ) {}

  /**
   * Enters a change of one of the account's sources in the audit trail, in the transaction that made
   * it: `before` as read in it before the change, the source as the transaction now sees it after (and
   * `extra`, such as a feed's settings, beside each). Every kind of source writes through here.
   */
  async recordSourceChange(
    trx: Knex.Transaction,
    change: {
      accountId: number;
      assetSourceId: number;
      action: 'create' | 'update' | 'delete';
      before?: object | null;
      resourceType?: 'asset-source' | 'feed-source';
    },
    extra?: () => Promise<object | undefined>,
  ): Promise<void> {
    const after = change.action === 'delete' ? null : await this.sources.findForChange(trx, change.accountId, change.assetSourceId);
    const more = after ? await extra?.() : undefined;
    await recordChange(trx, this.events, {
      resourceType: change.resourceType ?? 'asset-source',
      resourceId: change.assetSourceId,
      action: change.action,
      accountId: change.accountId,
      before: change.before,
      after: after && more ? { ...after, ...more } : after,
    });
  }

  /** The source as `trx` sees it, row locked: what a write records as its before. */
  async beforeChange(trx: Knex.Transaction, accountId: number, assetSourceId: number): Promise<AssetSourceRecord | undefined> {
    return this.sources.findForChange(trx, accountId, assetSourceId);
  }

  /** Recommendation sources register here once both exist (they are built on this service). */
  setDependents(dependents: SourceDependents): void {
    this.dependents = dependents;
  }

  /** Why the sources built on `current` refuse `next` (a key or mapped column would go); undefined when they take it. */
  async refuseChange(current: AssetSourceRecord, next: SourceDefinition): Promise<AppError | undefined> {
    return this.dependents?.refusal(current, next);
  }

  /** Tells the sources built on a source that its rows or columns changed (a feed version swapped in). */
  async changed(accountId: number, assetSourceId: number): Promise<void> {
    await this.dependents?.changed(await this.get(accountId, assetSourceId));
  }

  list(accountId: number, page?: { offset?: number; limit?: number }): Promise<Page<AssetSourceSummary>> {
    return this.sources.list(accountId, effectivePage(page));
  }

  async get(accountId: number, assetSourceId: number): Promise<AssetSourceRecord> {
    const source = await this.sources.get(accountId, assetSourceId);
    if (!source) throw assetSourceNotFound(assetSourceId);
    return source;
  }

  /** A page of rows as one JSON array text (stored row texts joined, never parsed), with the source and its row count. */
  async readData(
    accountId: number,
    assetSourceId: number,
    page?: { offset?: number; limit?: number },
  ): Promise<{ source: AssetSourceRecord; rowsJson: string; total: number }> {
    const source = await this.fresh(await this.get(accountId, assetSourceId));
    const window = effectivePage(page);
    const rows = window.offset >= source.rowCount ? [] : await this.sources.readRows(assetSourceId, window);
    return { source, rowsJson: `[${rows.join(',')}]`, total: source.rowCount };
  }

  /** The source with current rows: a remote source whose copy is stale is fetched first (502/424 when that fails). */
  async fresh(source: AssetSourceRecord): Promise<AssetSourceRecord> {
    if (source.assetSourceType !== 'remote' || !(await this.remoteRows.refreshIfStale(source))) return source;
    return this.get(source.accountId, source.assetSourceId);
  }

  describe(accountId: number, assetSourceIds: readonly number[]): Promise<AssetSourceRecord[]> {
    return this.sources.describe(accountId, assetSourceIds);
  }

  async findRows(accountId: number, assetSourceId: number, column: string, values: readonly string[]): Promise<{ value: string; rowJson: string }[]> {
    const source = await this.fresh(await this.get(accountId, assetSourceId));
    if (!source.columnNames.includes(column))
      throw validationFailed([
        { pointer: '/column', code: 'UNKNOWN_COLUMN', detail: `Asset source ${assetSourceId} has no column ${JSON.stringify(column)}.` },
      ]);
    return this.sources.findRows(source, column, values);
  }

  async createInline(accountId: number, input: InlineInput): Promise<number> {
    const rows = this.checkInline(input);
    return withTransaction(this.knex, async (trx) => {
      const assetSourceId = await this.sources.insert(trx, accountId, { ...trimmed(input.definition), assetSourceType: 'inline' }, rows);
      await this.recordSourceChange(trx, { accountId, assetSourceId, action: 'create' });
      return assetSourceId;
    });
  }

  async replaceInline(accountId: number, assetSourceId: number, input: InlineInput): Promise<number> {
    const current = await this.ofKind(accountId, assetSourceId, 'inline');
    const rows = this.checkInline(input);
    await this.save(current, trimmed(input.definition), rows);
    return assetSourceId;
  }

  /** Changes only the members the body named; the result must satisfy every rule a PUT would. */
  async patchInline(accountId: number, assetSourceId: number, patch: InlinePatch): Promise<number> {
    const current = await this.ofKind(accountId, assetSourceId, 'inline');
    const has = (name: string) => patch.present.has(name);
    const columns = Object.fromEntries(
      ASSET_SOURCE_SPECIAL_COLUMNS.map((field) => [field, has(field) ? (patch.columns[field] ?? null) : current.columns[field]]),
    ) as Record<AssetSourceSpecialColumn, string | null>;
    const next: SourceDefinition = {
      assetSourceName: has('assetSourceName') ? (patch.assetSourceName ?? '') : current.assetSourceName,
      columnNames: has('columnNames') ? (patch.columnNames ?? []) : current.columnNames,
      columns,
      contentType: has('contentType') ? (patch.contentType ?? null) : current.contentType,
    };
    const errors = definitionErrors(next);
    let rows: SourceRow[] | undefined;
    if (has('data')) {
      const given = parseRows(patch.rowsJson ?? '');
      errors.push(...rowErrors(given, next.columnNames, next.columns.rotationWeightColumn));
      rows = given as SourceRow[];
    } else if (errors.length === 0 && (has('columnNames') || next.columns.rotationWeightColumn !== current.columns.rotationWeightColumn)) {
      // The stored rows must still fit: their keys among the new columns, their weights numeric.
      // The first misfit of each kind is named: the caller fixes the columns, not a row of data it did not send.
      const stored = await this.sources.allRows(assetSourceId);
      const misfits = new Map<string, FieldError>();
      for (const e of rowErrors(stored, next.columnNames, next.columns.rotationWeightColumn)) {
        const pointer = e.code === 'NOT_NUMERIC' ? '/rotationWeightColumn' : '/columnNames';
        if (!misfits.has(pointer)) misfits.set(pointer, { pointer, code: e.code, detail: `The stored data does not fit: ${e.detail}` });
      }
      errors.push(...misfits.values());
    }
    if (errors.length > 0) throw validationFailed(errors);
    await this.save(current, trimmed(next), rows);
    return assetSourceId;
  }

  async createRemote(accountId: number, input: RemoteInput): Promise<number> {
    this.checkRemote(input);
    return withTransaction(this.knex, async (trx) => {
      const assetSourceId = await this.sources.insert(trx, accountId, { ...trimmed(input.definition), assetSourceType: 'remote', remote: input.remote });
      await this.recordSourceChange(trx, { accountId, assetSourceId, action: 'create' });
      return assetSourceId;
    });
  }

  /** Replaces a remote source's settings; the stored copy is dropped so the next read fetches with them. */
  async replaceRemote(accountId: number, assetSourceId: number, input: RemoteInput): Promise<number> {
    const current = await this.ofKind(accountId, assetSourceId, 'remote');
    this.checkRemote(input);
    await this.save(current, trimmed(input.definition), [], input.remote, { rows_fetched_at: null });
    return assetSourceId;
  }

  /** The account's source of the given kind: 404 when missing, 409 when it is of another kind. */
  async ofKind(accountId: number, assetSourceId: number, kind: AssetSourceType): Promise<AssetSourceRecord> {
    const source = await this.get(accountId, assetSourceId);
    if (source.assetSourceType !== kind)
      throw problem(
        'ASSET_SOURCE_KIND_MISMATCH',
        `Asset source ${assetSourceId} is ${withArticle(source.assetSourceType)} source, not ${withArticle(kind)} one.`,
      );
    return source;
  }

  private checkInline(input: InlineInput): SourceRow[] {
    const rows = parseRows(input.rowsJson);
    const errors = [...definitionErrors(input.definition), ...rowErrors(rows, input.definition.columnNames, input.definition.columns.rotationWeightColumn)];
    if (errors.length > 0) throw validationFailed(errors);
    return rows as SourceRow[];
  }

  private checkRemote(input: RemoteInput): void {
    const errors = [...definitionErrors(input.definition), ...remoteErrors(input.remote)];
    if (!input.definition.contentType)
      errors.push({ pointer: '/contentType', code: 'REQUIRED', detail: 'contentType (csv, json or xml) says how the fetched body is parsed.' });
    if (errors.length > 0) throw validationFailed(errors);
  }

  private async save(
    current: AssetSourceRecord,
    next: SourceDefinition,
    rows?: SourceRow[],
    remote?: RemoteSettings,
    extra?: Record<string, unknown>,
  ): Promise<void> {
    const refusal = await this.dependents?.refusal(current, next);
    if (refusal) throw refusal;
    await withTransaction(this.knex, async (trx) => {
      const before = await this.sources.findForChange(trx, current.accountId, current.assetSourceId);
      await this.sources.update(trx, current.assetSourceId, { ...next, assetSourceType: current.assetSourceType, remote: remote ?? current.remote }, rows, {
        keyColumnChanged: next.columns.assetKeyColumn !== current.columns.assetKeyColumn,
        extra,
      });
      await this.recordSourceChange(trx, { accountId: current.accountId, assetSourceId: current.assetSourceId, action: 'update', before });
    });
    await this.dependents?.changed(await this.get(current.accountId, current.assetSourceId));
  }
}
