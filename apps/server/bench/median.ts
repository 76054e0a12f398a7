/** The item whose `key` is the median of the items' (the upper one of an even count): a run and its figures kept together. */
export function medianBy<T>(items: T[], key: (item: T) => number): T {
  return [...items].sort((a, b) => key(a) - key(b))[Math.floor(items.length / 2)];
}
