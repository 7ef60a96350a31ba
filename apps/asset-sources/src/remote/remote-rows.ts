import type { Knex } from 'knex';
import { AppError, problem } from '@platform/errors';
import { withTransaction } from '@platform/mysql';
import { isOutboundFetchError, type OutboundFetch, type OutboundFetchErrorCode } from '@platform/outbound-fetch';
import type { AssetSourceRecord, RemoteSettings } from '../sources/asset-source.model';
import type { AssetSourceRepository } from '../sources/asset-source.repository';
import { MalformedBodyError, parseRemoteBody } from './remote-body.parser';

/** Failures the customer can fix in the source's settings (424); the rest are the remote's fault (502). */
const REFUSED: readonly OutboundFetchErrorCode[] = [
  'OUTBOUND_INVALID_URL',
  'OUTBOUND_SCHEME_NOT_ALLOWED',
  'OUTBOUND_ADDRESS_NOT_ALLOWED',
  'OUTBOUND_RESPONSE_TOO_LARGE',
];

/** The request a remote source's settings describe: additionalParams as the query (GET) or a form body (POST). */
export function remoteRequest(remote: RemoteSettings): { url: string; init: { method: 'GET' | 'POST'; headers?: Record<string, string>; body?: string } } {
  const params = remote.additionalParams.replace(/^[?&]+/, '');
  if (remote.httpMethod === 'POST')
    return { url: remote.url, init: { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: params } };
  if (params === '') return { url: remote.url, init: { method: 'GET' } };
  return { url: `${remote.url}${remote.url.includes('?') ? '&' : '?'}${params}`, init: { method: 'GET' } };
}

/**
 * Keeps a remote source's stored rows fresh: a copy fetched less than cacheTime seconds ago is
 * served as it is; otherwise the URL is fetched through the outbound guard, parsed and stored in
 * place of the old copy. A failed fetch stores nothing and answers 502 or 424 naming the cause.
 */
export class RemoteRows {
  constructor(
    private readonly knex: Knex,
    private readonly sources: AssetSourceRepository,
    private readonly outbound: OutboundFetch,
    private readonly options: { timeoutMs: number; maxBytes: number },
    private readonly now: () => Date = () => new Date(),
  ) {}

  isFresh(source: AssetSourceRecord): boolean {
    if (!source.remote || !source.rowsFetchedAt) return false;
    return this.now().getTime() - source.rowsFetchedAt.getTime() < source.remote.cacheTime * 1000;
  }

  /** Fetches in flight by source: reads that find the same copy stale share one fetch. */
  private readonly inFlight = new Map<number, Promise<void>>();

  /** True when it fetched (the stored rows changed). */
  async refreshIfStale(source: AssetSourceRecord): Promise<boolean> {
    if (!source.remote || this.isFresh(source)) return false;
    let refresh = this.inFlight.get(source.assetSourceId);
    if (!refresh) {
      refresh = this.refresh(source).finally(() => this.inFlight.delete(source.assetSourceId));
      this.inFlight.set(source.assetSourceId, refresh);
    }
    await refresh;
    return true;
  }

  private async refresh(source: AssetSourceRecord): Promise<void> {
    const at = this.now();
    const rows = await this.fetchRows(source);
    await withTransaction(this.knex, (trx) => this.sources.replaceRows(trx, source.assetSourceId, rows, source.columns.assetKeyColumn, 'rows_fetched_at', at));
  }

  private async fetchRows(source: AssetSourceRecord) {
    const remote = source.remote as RemoteSettings;
    const { url, init } = remoteRequest(remote);
    const id = source.assetSourceId;
    let response;
    try {
      response = await this.outbound.fetch(url, { ...init, timeoutMs: this.options.timeoutMs, maxBytes: this.options.maxBytes });
    } catch (error) {
      if (!isOutboundFetchError(error)) throw error;
      const refused = REFUSED.includes(error.code);
      throw new AppError(refused ? 'REMOTE_SOURCE_REFUSED' : 'REMOTE_SOURCE_UNREACHABLE', `Asset source ${id} could not be fetched: ${error.message}`, {
        extensions: { cause: error.code },
      });
    }
    if (response.status < 200 || response.status > 299)
      throw problem('REMOTE_SOURCE_BAD_STATUS', `Asset source ${id}: ${response.url} answered HTTP ${response.status}.`, {
        extensions: { upstreamStatus: response.status },
      });
    try {
      return parseRemoteBody(response.body, source.contentType ?? 'json', source.columnNames);
    } catch (error) {
      if (!(error instanceof MalformedBodyError)) throw error;
      throw problem(
        'REMOTE_SOURCE_MALFORMED',
        `Asset source ${id}: the ${source.contentType ?? 'json'} answer of ${response.url} is malformed: ${error.message}.`,
      );
    }
  }
}
