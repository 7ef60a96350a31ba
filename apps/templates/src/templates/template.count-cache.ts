import type { TemplateFilters } from './template.model';

/**
 * Totals of recent searches, each valid for one catalog version. Counting the matches of a filtered
 * search over a large catalog costs the database far more than reading the page itself (every
 * candidate row is visited); the catalog changes rarely, so the same search (typically the next
 * page of it) reuses its count until any write bumps the version. Bounded: the least recently used
 * entries go first.
 */
export class TemplateCountCache {
  private readonly entries = new Map<string, { version: number; total: number }>();

  constructor(private readonly maxEntries = 10_000) {}

  static key(accountId: number, filters: TemplateFilters): string {
    // A fixed member order, so the same search always has the same key whatever order it came in.
    const ordered = [
      filters.campaignName,
      filters.ownership,
      filters.isBookmarked,
      filters.retailerId,
      filters.inventoryType,
      filters.adFormat,
      filters.sourceOfProductInformation,
      filters.productSelectionMethod,
      filters.creativeStyle,
      filters.category,
      filters.templateType,
    ];
    return `${accountId}:${JSON.stringify(ordered)}`;
  }

  /** The total counted at exactly this version, if any. */
  get(key: string, version: number): number | undefined {
    const entry = this.entries.get(key);
    if (!entry || entry.version !== version) return undefined;
    // Re-inserted, so Map order is least recently used first.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.total;
  }

  /** Whether this search was counted at some version: then its page is read first and the count only if stale. */
  has(key: string): boolean {
    return this.entries.has(key);
  }

  set(key: string, version: number, total: number): void {
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { version, total });
  }
}
