import type { Sqlite } from '../db/open.js';
import { oncePerTurn } from './answer-cache.js';

/** Bound on the values kept (a search's hits are one per query text a client sends). */
const maxValues = 2_000;

/**
 * Values worked out from the baseline alone, shared by every sandbox: a collection's record
 * count (each page's total starts from it), a search's baseline hits. The baseline is read-only
 * between loads, so a value stays true until one: a reload in this process (`clear`, from the
 * engine's `everythingChanged`), or a commit of another process to the file (which may have
 * loaded another baseline), seen through `data_version` once per turn like the answer cache.
 */
export function createBaselineMemo(sqlite: Sqlite) {
  const otherCommits = oncePerTurn(sqlite);
  let version = otherCommits();
  const values = new Map<string, unknown>();
  return {
    /** The value kept under `key`, else `compute()`'s, kept. */
    get<T>(key: string, compute: () => T): T {
      const now = otherCommits();
      if (now !== version) {
        version = now;
        values.clear();
      }
      if (values.has(key)) return values.get(key) as T;
      const value = compute();
      if (values.size >= maxValues) values.delete(values.keys().next().value!);
      values.set(key, value);
      return value;
    },
    clear: () => values.clear(),
  };
}

export type BaselineMemo = ReturnType<typeof createBaselineMemo>;
