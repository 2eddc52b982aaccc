/**
 * Event names and the patterns that select them (contract sections 8 and 15). A name is
 * `<category>.<action>` with a singular category (`post.created`, `custom.book.deleted`); a pattern
 * matches the exact name, the name with its category in the plural (`posts.created`), a category
 * wildcard (`post.*`, `posts.*`, also `custom.*` for every custom collection) or `*`.
 */

/** What a subscription or a filter may name: dotted words of a-z 0-9 _ -, or `*` in the last place. */
const validPattern = /^(\*|[a-z0-9_-]+(\.[a-z0-9_-]+)*(\.\*)?)$/;

export function isEventPattern(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 128 && validPattern.test(value);
}

/** English plural of one word, as the collection names use them (post → posts, sandbox → sandboxes, category → categories). */
export function pluralOf(word: string): string {
  if (/(s|x|z|ch|sh)$/.test(word)) return `${word}es`;
  if (/[^aeiou]y$/.test(word)) return `${word.slice(0, -1)}ies`;
  return `${word}s`;
}

/** The name's category in the plural: the last word before the action (`custom.book.created` → `custom.books.created`). */
function pluralName(name: string): string | undefined {
  const parts = name.split('.');
  if (parts.length < 2) return undefined;
  parts[parts.length - 2] = pluralOf(parts[parts.length - 2]);
  return parts.join('.');
}

/** Whether one pattern selects the event name. */
export function matchesEvent(pattern: string, name: string): boolean {
  if (pattern === '*' || pattern === name) return true;
  const plural = pluralName(name);
  if (pattern === plural) return true;
  if (!pattern.endsWith('.*')) return false;
  const prefix = pattern.slice(0, -1);
  return name.startsWith(prefix) || (plural !== undefined && plural.startsWith(prefix));
}

/**
 * A test for a list of patterns (any of them matches); no patterns selects everything. Results are
 * remembered per name: a stream or a subscription sees the same few names again and again.
 */
export function compilePatterns(patterns: readonly string[]): (name: string) => boolean {
  if (!patterns.length || patterns.includes('*')) return () => true;
  const known = new Map<string, boolean>();
  return (name) => {
    let hit = known.get(name);
    if (hit === undefined) {
      hit = patterns.some((pattern) => matchesEvent(pattern, name));
      if (known.size < 256) known.set(name, hit);
    }
    return hit;
  };
}

/** Splits `events=post.*,user.created` (a comma list; repeated parameters add up); undefined entries are skipped. */
export function parsePatternList(values: readonly string[]): { patterns: string[]; invalid?: string } {
  const patterns: string[] = [];
  for (const value of values) {
    for (const part of value.split(',')) {
      const pattern = part.trim();
      if (pattern === '') continue;
      if (!isEventPattern(pattern)) return { patterns, invalid: pattern };
      patterns.push(pattern);
    }
  }
  return { patterns };
}
