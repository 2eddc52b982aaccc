import type { Json } from '../engine/collection-store.js';
import type { ListArgs } from '../engine/list-query.js';
import type { SandboxView } from '../engine/sandbox-view.js';

/**
 * Collects the keys asked for while graphql-js walks one level of a result, then answers them
 * with one call: resolvers of a list's items all run before the microtasks that follow, so
 * dispatching after them (as DataLoader does: a resolved promise, then `process.nextTick`) sees
 * the whole level. Answers are kept per key for the request.
 */
class Batcher<K, V> {
  private readonly cache = new Map<unknown, Promise<V>>();
  private queue: { key: K; resolve: (value: V) => void; reject: (error: unknown) => void }[] = [];

  constructor(
    private readonly load: (keys: K[]) => Promise<V[]>,
    private readonly cacheKey: (key: K) => unknown,
  ) {}

  get(key: K): Promise<V> {
    const id = this.cacheKey(key);
    const known = this.cache.get(id);
    if (known) return known;
    const promise = new Promise<V>((resolve, reject) => {
      if (!this.queue.length) void Promise.resolve().then(() => process.nextTick(() => void this.dispatch()));
      this.queue.push({ key, resolve, reject });
    });
    this.cache.set(id, promise);
    return promise;
  }

  clear(): void {
    this.cache.clear();
  }

  private async dispatch(): Promise<void> {
    const batch = this.queue;
    this.queue = [];
    try {
      const values = await this.load(batch.map((item) => item.key));
      batch.forEach((item, i) => item.resolve(values[i]!));
    } catch (error) {
      for (const item of batch) item.reject(error);
    }
  }
}

/**
 * Per-request loaders: records by id (single queries and `one` relations share them) and the
 * children of a `many` relation for one set of list arguments. Each level of a nested query
 * costs one statement per loader, whatever the number of records.
 */
export function createLoaders(view: SandboxView) {
  const records = new Map<string, Batcher<unknown, Json | undefined>>();
  const children = new Map<string, Batcher<Json, Json[]>>();
  return {
    record(collection: string, id: unknown): Promise<Json | undefined> {
      let batcher = records.get(collection);
      if (!batcher) {
        batcher = new Batcher((ids) => view.collection(collection).getMany(ids), (id) => (typeof id === 'string' && /^\d+$/.test(id) ? Number(id) : id));
        records.set(collection, batcher);
      }
      return batcher.get(id);
    },
    children(collection: string, relation: string, parent: Json, keyField: string, args?: ListArgs): Promise<Json[]> {
      const name = JSON.stringify([collection, relation, args ?? null]);
      let batcher = children.get(name);
      if (!batcher) {
        batcher = new Batcher(
          async (parents) => (await view.collection(collection).relatedMany(parents, relation, args)) as Json[][],
          (record) => record[keyField],
        );
        children.set(name, batcher);
      }
      return batcher.get(parent);
    },
    /** After a write: later reads of the same request see it. */
    clear(): void {
      for (const batcher of [...records.values(), ...children.values()]) batcher.clear();
    },
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
