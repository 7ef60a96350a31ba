/**
 * True when a JSON value nests objects or arrays more than `maxDepth` levels (the outermost counts
 * as 1). Iterative and stopping at the first level past the cap, so a value nested far deeper than
 * any stack allows is measured without recursion. The gateway and the services check free-form
 * JSON with this one function, so their notions of depth cannot drift apart.
 */
export function exceedsDepth(value: unknown, maxDepth: number): boolean {
  const pending: [unknown, number][] = [[value, 1]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop() as [unknown, number];
    if (depth > maxDepth) return true;
    for (const child of Object.values(current as object)) {
      if (child !== null && typeof child === 'object') pending.push([child, depth + 1]);
    }
  }
  return false;
}
