export interface ExpiringLruOptions<V> {
  /** How long an entry lives after it was stored. */
  ttlMs: number;
  /** Bound on the summed weight of the entries; the least recently used go first. */
  maxWeight: number;
  /** An entry's share of maxWeight: 1 (the default) bounds the count, a body's length its bytes. */
  weigh?: (value: V) => number;
  /** Told of every entry that leaves, whatever the reason, except by clear(). */
  onRemove?: (key: string, value: V) => void;
  now?: () => number;
}

interface Slot<V> {
  value: V;
  weight: number;
  expiresAt: number;
}

/**
 * A map whose entries expire after a TTL and whose total weight is bounded, dropping the least
 * recently used first: the storage under the gateway's principal and response caches.
 */
export class ExpiringLru<V> {
  /** A Map keeps insertion order, so re-inserting on every hit makes its first key the LRU one. */
  private readonly slots = new Map<string, Slot<V>>();
  private totalWeight = 0;
  private readonly now: () => number;
  private readonly weigh: (value: V) => number;

  constructor(private readonly options: ExpiringLruOptions<V>) {
    if (!Number.isInteger(options.maxWeight) || options.maxWeight < 1) throw new Error('ExpiringLru: maxWeight must be a positive integer');
    this.now = options.now ?? Date.now;
    this.weigh = options.weigh ?? (() => 1);
  }

  get size(): number {
    return this.slots.size;
  }

  get weight(): number {
    return this.totalWeight;
  }

  /** The live value, marked as most recently used; undefined when absent or expired. */
  get(key: string): V | undefined {
    const slot = this.live(key);
    if (!slot) return undefined;
    this.slots.delete(key);
    this.slots.set(key, slot);
    return slot.value;
  }

  /** Like get, without touching the LRU order: for re-checking that an entry survived a wait. */
  peek(key: string): V | undefined {
    return this.live(key)?.value;
  }

  /** Stores the value (replacing the key's old one); false when it alone would exceed maxWeight. */
  set(key: string, value: V): boolean {
    const weight = this.weigh(value);
    if (weight > this.options.maxWeight) return false;
    this.delete(key);
    this.slots.set(key, { value, weight, expiresAt: this.now() + this.options.ttlMs });
    this.totalWeight += weight;
    while (this.totalWeight > this.options.maxWeight) this.delete(this.slots.keys().next().value as string);
    return true;
  }

  delete(key: string): void {
    const slot = this.slots.get(key);
    if (!slot) return;
    this.slots.delete(key);
    this.totalWeight -= slot.weight;
    this.options.onRemove?.(key, slot.value);
  }

  /** Every stored entry, expired ones included; safe to delete from while iterating. */
  *entries(): IterableIterator<[string, V]> {
    for (const [key, slot] of [...this.slots]) yield [key, slot.value];
  }

  clear(): void {
    this.slots.clear();
    this.totalWeight = 0;
  }

  private live(key: string): Slot<V> | undefined {
    const slot = this.slots.get(key);
    if (!slot) return undefined;
    if (slot.expiresAt <= this.now()) {
      this.delete(key);
      return undefined;
    }
    return slot;
  }
}
