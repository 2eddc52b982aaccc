import type { Sqlite } from '../db/open.js';

/** The `meta` key holding `{name: number}` of every config-declared collection this file has seen. */
const key = 'collection_numbers';
/** Core collections hold 1-4; numbers up to 15 stay free for more of them. */
export const firstDeclaredNumber = 16;
/**
 * The search index packs a collection number in 8 bits of a rowid (db/search-index.ts); until it
 * is widened, declared collections stay below that. Per-sandbox custom collections start at 2^20.
 */
export const maxDeclaredNumber = 255;

/** More config-declared collection names than the numbers there are room for. */
export class CollectionNumbersExhausted extends Error {
  override name = 'CollectionNumbersExhausted';
}

/**
 * The collection number (`cid`) of each config-declared collection, kept in the database by name:
 * a name gets the next number the first time it is seen and keeps it, and a number is never given
 * to another name, even after its collection left the config. Sandbox overlays store rows by
 * number, so reordering, renaming or removing collections in the config never shows one
 * collection's rows in another.
 */
export function collectionNumbers(sqlite: Sqlite, names: readonly string[]): Map<string, number> {
  const read = sqlite.prepare(`SELECT value FROM meta WHERE key = ?`).pluck();
  const write = sqlite.prepare(`INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`);
  const allocate = sqlite.transaction(() => {
    const stored = read.get(key) as string | undefined;
    const known = new Map<string, number>(Object.entries(stored ? (JSON.parse(stored) as Record<string, number>) : {}));
    let next = Math.max(firstDeclaredNumber - 1, ...known.values()) + 1;
    let added = false;
    for (const name of names) {
      if (known.has(name)) continue;
      if (next > maxDeclaredNumber) {
        throw new CollectionNumbersExhausted(
          `cannot number collection "${name}": this database has given all ${maxDeclaredNumber - firstDeclaredNumber + 1} numbers for config collections to other names; use a new --db file`,
        );
      }
      known.set(name, next++);
      added = true;
    }
    if (added) write.run(key, JSON.stringify(Object.fromEntries(known)));
    return new Map(names.map((name) => [name, known.get(name)!]));
  });
  // IMMEDIATE: two processes opening one file at once must not give one number to two names.
  return names.length ? allocate.immediate() : new Map();
}
