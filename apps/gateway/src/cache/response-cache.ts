import type { CachedView } from '@contracts/domain';
import { ExpiringLru } from './expiring-lru';

/** A success answer exactly as it went out: the bytes are written again as they are. */
export interface CachedResponse {
  status: number;
  headers?: Record<string, string>;
  body: Buffer;
}

export interface ResponseCacheOptions {
  /** Longest time an entry is served; 0 disables the cache. */
  ttlMs: number;
  /** Bound on the bodies held, in bytes; the least recently used go first. */
  maxBytes: number;
  now?: () => number;
}

/** Taken before asking the backend; a fill is kept only if its tenant's view was not invalidated since. */
export type ResponseTicket = number;

interface Entry {
  value: CachedResponse;
  scope: string;
}

/** Partitions remembered for the ticket check before the map is reset by a full clear. */
const MAX_REMEMBERED_CHANGES = 100_000;

const scopeOf = (view: CachedView, tenant: string) => `${view}\n${tenant}`;

/**
 * Answers of cacheable routes, by request, grouped by view and tenant so a change notice drops all
 * of one tenant's pages at once. Bounded by bytes (least recently used go first) and by a TTL, the
 * backstop for a notice that never arrived.
 */
export class ResponseCache {
  private readonly entries: ExpiringLru<Entry>;
  private readonly keysByScope = new Map<string, Set<string>>();
  /** Bumped by every invalidation and clear; tickets are values of it. */
  private version = 0;
  private readonly changedAt = new Map<string, number>();
  private clearedAt = 0;

  constructor(private readonly options: ResponseCacheOptions) {
    if (!Number.isInteger(options.maxBytes) || options.maxBytes < 1) throw new Error('ResponseCache: maxBytes must be a positive integer');
    this.entries = new ExpiringLru<Entry>({
      ttlMs: options.ttlMs,
      maxWeight: options.maxBytes,
      weigh: (entry) => entry.value.body.length,
      onRemove: (key, entry) => this.forgetKey(key, entry.scope),
      now: options.now,
    });
  }

  get enabled(): boolean {
    return this.options.ttlMs > 0;
  }

  get size(): number {
    return this.entries.size;
  }

  get heldBytes(): number {
    return this.entries.weight;
  }

  /** The live entry, marked as most recently used; undefined when absent or expired. */
  get(key: string): CachedResponse | undefined {
    return this.entries.get(key)?.value;
  }

  /** Like get, without touching the LRU order: for re-checking that an entry survived a wait. */
  peek(key: string): CachedResponse | undefined {
    return this.entries.peek(key)?.value;
  }

  ticket(): ResponseTicket {
    return this.version;
  }

  /**
   * Stores the answer, unless the tenant's view was invalidated (or everything cleared) after the
   * ticket was taken: the backend may have read the rows just before a change whose notice has already
   * been handled, and storing its answer would bring the old page back.
   */
  set(key: string, view: CachedView, tenant: string, value: CachedResponse, ticket: ResponseTicket): boolean {
    const scope = scopeOf(view, tenant);
    if (!this.enabled || this.clearedAt > ticket || (this.changedAt.get(scope) ?? 0) > ticket) return false;
    if (!this.entries.set(key, { value, scope })) return false;
    let keys = this.keysByScope.get(scope);
    if (!keys) this.keysByScope.set(scope, (keys = new Set()));
    keys.add(key);
    return true;
  }

  /** Drops every page of the tenant's view, and refuses fills that started before. */
  invalidate(view: CachedView, tenant: string): void {
    const scope = scopeOf(view, tenant);
    this.version += 1;
    if (this.changedAt.size >= MAX_REMEMBERED_CHANGES && !this.changedAt.has(scope)) return this.clear();
    this.changedAt.set(scope, this.version);
    for (const key of [...(this.keysByScope.get(scope) ?? [])]) this.entries.delete(key);
  }

  clear(): void {
    this.version += 1;
    this.clearedAt = this.version;
    this.changedAt.clear();
    this.entries.clear();
    this.keysByScope.clear();
  }

  private forgetKey(key: string, scope: string): void {
    const keys = this.keysByScope.get(scope);
    keys?.delete(key);
    if (keys?.size === 0) this.keysByScope.delete(scope);
  }
}
