/** Nearest-rank percentile of an ascending array; NaN when empty. */
export function percentile(sortedAscending: Float64Array, fraction: number): number {
  if (sortedAscending.length === 0) return Number.NaN;
  const rank = Math.ceil(fraction * sortedAscending.length);
  return sortedAscending[Math.min(sortedAscending.length, Math.max(1, rank)) - 1];
}
