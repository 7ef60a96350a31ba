import type { CachedView } from '@contracts/domain';

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
  expiresAt: number;
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
  /** A Map keeps insertion order, so re-inserting on every hit makes its first key the LRU one. */
  private readonly entries = new Map<string, Entry>();
  private readonly keysByScope = new Map<string, Set<string>>();
  private bytes = 0;
  /** Bumped by every invalidation and clear; tickets are values of it. */
  private version = 0;
  private readonly changedAt = new Map<string, number>();
  private clearedAt = 0;
  private readonly now: () => number;

  constructor(private readonly options: ResponseCacheOptions) {
    if (!Number.isInteger(options.maxBytes) || options.maxBytes < 1) throw new Error('ResponseCache: maxBytes must be a positive integer');
    this.now = options.now ?? Date.now;
  }

  get enabled(): boolean {
    return this.options.ttlMs > 0;
  }

  get size(): number {
    return this.entries.size;
  }

  get heldBytes(): number {
    return this.bytes;
  }

  /** The live entry, marked as most recently used; undefined when absent or expired. */
  get(key: string): CachedResponse | undefined {
    const entry = this.unexpired(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Like get, without touching the LRU order: for re-checking that an entry survived a wait. */
  peek(key: string): CachedResponse | undefined {
    return this.unexpired(key)?.value;
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
    if (value.body.length > this.options.maxBytes) return false;
    this.remove(key);
    this.entries.set(key, { value, scope, expiresAt: this.now() + this.options.ttlMs });
    let keys = this.keysByScope.get(scope);
    if (!keys) this.keysByScope.set(scope, (keys = new Set()));
    keys.add(key);
    this.bytes += value.body.length;
    while (this.bytes > this.options.maxBytes) this.remove(this.entries.keys().next().value as string);
    return true;
  }

  /** Drops every page of the tenant's view, and refuses fills that started before. */
  invalidate(view: CachedView, tenant: string): void {
    const scope = scopeOf(view, tenant);
    this.version += 1;
    if (this.changedAt.size >= MAX_REMEMBERED_CHANGES && !this.changedAt.has(scope)) return this.clear();
    this.changedAt.set(scope, this.version);
    for (const key of [...(this.keysByScope.get(scope) ?? [])]) this.remove(key);
  }

  clear(): void {
    this.version += 1;
    this.clearedAt = this.version;
    this.changedAt.clear();
    this.entries.clear();
    this.keysByScope.clear();
    this.bytes = 0;
  }

  private unexpired(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.remove(key);
      return undefined;
    }
    return entry;
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.value.body.length;
    const keys = this.keysByScope.get(entry.scope);
    keys?.delete(key);
    if (keys?.size === 0) this.keysByScope.delete(entry.scope);
  }
}
