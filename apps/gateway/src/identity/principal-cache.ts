import type { Principal } from '@platform/grpc';
import { ExpiringLru } from '../cache/expiring-lru';

export interface CachedPrincipal {
  principal: Principal;
  /** SHA-256 of the key's secret: a hit still has to prove the caller holds the secret. */
  secretSha256: Buffer;
}

export interface PrincipalCacheOptions {
  /** Longest time an entry is served; 0 disables the cache. */
  ttlMs: number;
  maxEntries: number;
  now?: () => number;
}

/** Taken before reading MySQL; a fill is kept only if nothing was invalidated since. */
export type FillTicket = number;

/**
 * API-key principals by keyId, bounded (least recently used go first) and with a TTL as a backstop
 * for a broadcast that never arrived. Only keys that MySQL showed to be live are ever stored, so an
 * unknown key is never remembered and a freshly created one works on its first request.
 */
export class PrincipalCache {
  private readonly entries: ExpiringLru<CachedPrincipal>;
  private generation = 0;

  constructor(private readonly options: PrincipalCacheOptions) {
    if (!Number.isInteger(options.maxEntries) || options.maxEntries < 1) throw new Error('PrincipalCache: maxEntries must be a positive integer');
    this.entries = new ExpiringLru({ ttlMs: options.ttlMs, maxWeight: options.maxEntries, now: options.now });
  }

  get enabled(): boolean {
    return this.options.ttlMs > 0;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The live entry for keyId, marked as most recently used; undefined when absent or expired. */
  get(keyId: string): CachedPrincipal | undefined {
    return this.entries.get(keyId);
  }

  /** Like get, without touching the LRU order: for re-checking that an entry survived a wait. */
  peek(keyId: string): CachedPrincipal | undefined {
    return this.entries.peek(keyId);
  }

  ticket(): FillTicket {
    return this.generation;
  }

  /**
   * Stores what MySQL returned, unless an invalidation (of any key) or a flush happened after the
   * ticket was taken: the row may have been read just before a revocation whose broadcast has
   * already been handled, and storing it would bring the revoked key back.
   */
  set(keyId: string, value: CachedPrincipal, ticket: FillTicket): boolean {
    if (!this.enabled || ticket !== this.generation) return false;
    return this.entries.set(keyId, value);
  }

  evictKey(keyId: string): void {
    this.generation += 1;
    this.entries.delete(keyId);
  }

  /** Drops every key of the org, e.g. when its account list changes. */
  evictOrg(orgId: string): void {
    this.generation += 1;
    for (const [keyId, entry] of this.entries.entries()) if (entry.principal.orgId === orgId) this.entries.delete(keyId);
  }

  clear(): void {
    this.generation += 1;
    this.entries.clear();
  }
}
