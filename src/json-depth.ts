/**
 * How deep a JSON value nests: a scalar is 0, an object or array 1 more than its deepest member.
 * Iterative, so a hostile nesting (JSON.parse builds 100,000 levels without complaint) cannot
 * overflow the stack here; stops as soon as it passes `cap`.
 */
export function nestingDepth(root: unknown, cap = Number.POSITIVE_INFINITY): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[root, 1]];
  while (stack.length) {
    const [value, depth] = stack.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    if (depth > deepest) deepest = depth;
    if (deepest > cap) return deepest;
    for (const child of Object.values(value)) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return deepest;
}
