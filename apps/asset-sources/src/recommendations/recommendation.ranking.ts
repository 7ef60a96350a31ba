import type { RecommendationMapEntry, SourceRow } from '../sources/asset-source.model';

/** An item of the source catalogue: its asset key and row, in source row order. */
export interface CatalogueItem {
  key: string;
  row: SourceRow;
}

export interface Recommendation {
  key: string;
  score: number;
}

/** Item-item co-occurrence: for an item, how many cookies interacted with it and with each other item. */
export type CoOccurrence = ReadonlyMap<string, ReadonlyMap<string, number>>;

const text = (value: unknown): string | undefined => {
  if (value === null || value === undefined) return undefined;
  const s = typeof value === 'string' ? value : JSON.stringify(value);
  return s === '' ? undefined : s;
};

const numeric = (value: unknown): number | undefined => {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
};

/** Index of the first element of the ascending `values` not below `target`. */
function lowerBound(values: readonly number[], target: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((values[mid] as number) < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Content-based scores between every pair of items: each mapped string column adds its priority
 * when two items hold the same (non-empty) value, each mapped numeric column adds 1 when their
 * values differ by at most acceptedRange. Only pairs sharing something are visited (values are
 * bucketed, numbers sorted), so a catalogue of distinct items costs near-linear time.
 */
export function contentScores(items: readonly CatalogueItem[], map: readonly RecommendationMapEntry[]): Map<number, Map<number, number>> {
  // Sparse per item: a dense n x n matrix would need gigabytes for a catalogue of ten thousand.
  const scores = new Map<number, Map<number, number>>();
  const row = (i: number) => {
    let s = scores.get(i);
    if (!s) scores.set(i, (s = new Map<number, number>()));
    return s;
  };
  for (const entry of map) {
    const column = entry.assetSourceColumn;
    if (entry.dataType === 'string') {
      const weight = entry.priority ?? 1;
      const buckets = new Map<string, number[]>();
      items.forEach((item, i) => {
        const value = text(item.row[column]);
        if (value === undefined) return;
        const bucket = buckets.get(value);
        if (bucket) bucket.push(i);
        else buckets.set(value, [i]);
      });
      for (const bucket of buckets.values()) {
        if (bucket.length < 2) continue;
        for (const i of bucket) {
          const s = row(i);
          for (const j of bucket) if (j !== i) s.set(j, (s.get(j) ?? 0) + weight);
        }
      }
    } else {
      const range = entry.acceptedRange ?? 0;
      const present = items.flatMap((item, i) => {
        const value = numeric(item.row[column]);
        return value === undefined ? [] : [{ i, value }];
      });
      present.sort((a, b) => a.value - b.value || a.i - b.i);
      const values = present.map((p) => p.value);
      for (const { i, value } of present) {
        const s = row(i);
        for (let k = lowerBound(values, value - range); k < present.length && (values[k] as number) <= value + range; k++) {
          const j = (present[k] as { i: number }).i;
          if (j !== i) s.set(j, (s.get(j) ?? 0) + 1);
        }
      }
    }
  }
  return scores;
}

/**
 * For each item, the top `max` other items by score (ties by source row order), leaving out items
 * that share nothing with it (score 0). `coOccurrence`, when given, adds the number of cookies that
 * interacted with both items (collaborative: the only signal; hybrid: added to the content score).
 */
export function rankRecommendations(
  items: readonly CatalogueItem[],
  options: { map?: readonly RecommendationMapEntry[]; coOccurrence?: CoOccurrence; max: number },
): Map<string, Recommendation[]> {
  const content = options.map ? contentScores(items, options.map) : new Map<number, Map<number, number>>();
  const indexOf = new Map(items.map((item, i) => [item.key, i]));
  const result = new Map<string, Recommendation[]>();
  items.forEach((item, i) => {
    const scores = new Map<number, number>(content.get(i) ?? []);
    for (const [otherKey, together] of options.coOccurrence?.get(item.key) ?? []) {
      const j = indexOf.get(otherKey);
      if (j !== undefined && j !== i) scores.set(j, (scores.get(j) ?? 0) + together);
    }
    const ranked = [...scores.entries()]
      .sort(([ja, a], [jb, b]) => b - a || ja - jb)
      .slice(0, options.max)
      .map(([j, score]) => ({ key: (items[j] as CatalogueItem).key, score }));
    result.set(item.key, ranked);
  });
  return result;
}
