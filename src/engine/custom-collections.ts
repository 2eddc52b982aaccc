import { customCidBase, everyString } from '../db/search-index.js';
import { invalidName, quotaExceeded } from './errors.js';
import { createCollectionStore, type CollectionStore, type Json, type StoreContext } from './collection-store.js';
import { defineCollection, type CollectionDefinition } from './definition.js';

/** A custom collection's name (contract section 10). */
export const customNamePattern = /^[a-z][a-z0-9_-]{0,63}$/;

/** How custom collections are named where all collections share one namespace: exports, events, `ctx.collection`. */
export const customPrefix = 'custom.';

export interface CustomCollectionInfo {
  name: string;
  /** Records it holds in the sandbox. */
  count: number;
}

/** The definition every custom collection shares: any JSON object, every string searched, `limits.customRecords`. */
export function customDefinition(name: string, cid = 0): CollectionDefinition {
  return defineCollection({
    name,
    singular: name,
    event: `${customPrefix}${name}`,
    cid,
    fields: {},
    required: [],
    searchable: [everyString],
    open: true,
    cap: 'customRecords',
  });
}

/** 400 for a name that is not a custom collection's. */
export function checkCustomName(name: string): void {
  if (!customNamePattern.test(name)) {
    throw invalidName(`${JSON.stringify(name.slice(0, 80))} is not a custom collection name: 1-64 characters of a-z 0-9 _ -, starting with a letter`);
  }
}

/**
 * Per-sandbox custom collections (`/custom/{name}`), on the same engine as the core ones: a
 * collection's records are overlay rows under a number the sandbox gets for that name on its first
 * write (`custom_collections`), so lists, search, cursors, caps, events, snapshots, exports and
 * resets treat them like any collection's. A collection exists while it holds records.
 */
export function createCustomCollections(context: StoreContext, limits: { customCollections?: number; customRecords?: number }) {
  const { sqlite } = context.db;
  const { sandboxes } = context;
  const numberOf = sqlite.prepare(`SELECT cid FROM custom_collections WHERE sid = ? AND name = ?`).pluck();
  const allocate = sqlite
    .prepare(
      `INSERT INTO custom_collections (cid, sid, name)
       VALUES ((SELECT max(coalesce(max(cid) + 1, 0), ${customCidBase}) FROM custom_collections), ?, ?) RETURNING cid`,
    )
    .pluck();
  const holding = sqlite.prepare(
    `SELECT c.name AS name, (SELECT count(*) FROM overlay o WHERE o.sid = c.sid AND o.cid = c.cid) AS count
       FROM custom_collections c WHERE c.sid = ? ORDER BY c.name`,
  );
  const othersHolding = sqlite
    .prepare(
      `SELECT count(*) FROM custom_collections c
        WHERE c.sid = ? AND c.name != ? AND EXISTS (SELECT 1 FROM overlay o WHERE o.sid = c.sid AND o.cid = c.cid)`,
    )
    .pluck();
  const names = sqlite.prepare(`SELECT cid, name FROM custom_collections WHERE sid = ?`);
  const createdRecords = sqlite.prepare(`SELECT doc FROM overlay WHERE sid = ? AND cid = ? AND state = 1 ORDER BY seq`).pluck();
  const hasRows = sqlite.prepare(`SELECT EXISTS (SELECT 1 FROM overlay WHERE sid = ? AND cid = ?)`).pluck();

  /** The store over one sandbox's collection number (cheap: the statements are shared). */
  const storeAt = (name: string, cid: number) => createCollectionStore(customDefinition(name, cid), context);
  /** Its number in the sandbox, or 0 (no rows have number 0, so reads find nothing). */
  const cidOf = (sandbox: string, name: string): number => {
    const sid = sandboxes.sidOf(sandbox);
    return sid ? ((numberOf.get(sid, name) as number | undefined) ?? 0) : 0;
  };
  /** Inside a write: the collection's number, given on its first record, within `limits.customCollections`. */
  const cidForWrite = (sid: number, name: string): number => {
    const limit = limits.customCollections ?? 20;
    const known = numberOf.get(sid, name) as number | undefined;
    if ((known === undefined || !hasRows.get(sid, known)) && (othersHolding.get(sid, name) as number) >= limit) {
      throw quotaExceeded(`a sandbox may hold at most ${limit} custom collections (limits.customCollections); delete one's records or reset the sandbox`);
    }
    return known ?? (allocate.get(sid, name) as number);
  };

  /**
   * The collection as a store: the same operations as a core collection's, each finding the
   * sandbox's number for the name (a read of a collection it never wrote finds nothing).
   */
  function collection(name: string): CollectionStore {
    const definition = customDefinition(name);
    const at = (sandbox: string) => storeAt(name, cidOf(sandbox, name));
    /** A create, given the collection's number in the sandbox (a new one on its first record). */
    const creating = <T>(sandbox: string, create: (store: CollectionStore) => T): T =>
      sandboxes.write(() => create(storeAt(name, cidForWrite(sandboxes.open(sandbox), name))));
    return {
      definition,
      list: (sandbox, query) => at(sandbox).list(sandbox, query),
      getJson: (sandbox, id, relations) => at(sandbox).getJson(sandbox, id, relations),
      findBy: (sandbox, field, value) => at(sandbox).findBy(sandbox, field, value),
      get: (sandbox, id) => at(sandbox).get(sandbox, id),
      create: (sandbox, body) => creating(sandbox, (store) => store.create(sandbox, body)),
      createJson: (sandbox, body) => creating(sandbox, (store) => store.createJson(sandbox, body)),
      replace: (sandbox, id, body) => at(sandbox).replace(sandbox, id, body),
      replaceJson: (sandbox, id, body) => at(sandbox).replaceJson(sandbox, id, body),
      patch: (sandbox, id, body) => at(sandbox).patch(sandbox, id, body),
      patchJson: (sandbox, id, body) => at(sandbox).patchJson(sandbox, id, body),
      remove: (sandbox, id) => at(sandbox).remove(sandbox, id),
    };
  }

  return {
    collection,
    /** Every record of the collection in the sandbox, oldest first (the order an import creates them in). */
    records(sandbox: string, name: string): Json[] {
      const sid = sandboxes.sidOf(sandbox);
      const cid = cidOf(sandbox, name);
      return sid && cid ? (createdRecords.all(sid, cid) as string[]).map((doc) => JSON.parse(doc) as Json) : [];
    },
    /**
     * Creates the records in order, all or none (one transaction): each as a `POST` would, so ids,
     * events, `limits.customRecords`, `customCollections` and `sandboxBytes` hold. Returns them.
     */
    importRecords(sandbox: string, name: string, records: Json[]): Json[] {
      const store = collection(name);
      return sandboxes.write(() => {
        const held = context.view.createdCount.get({ sid: sandboxes.sidOf(sandbox), cid: cidOf(sandbox, name) }) as number;
        const cap = limits.customRecords ?? 1000;
        if (held + records.length > cap) {
          throw quotaExceeded(`${records.length} records would bring ${name} to ${held + records.length}, more than limits.customRecords (${cap}) allows; nothing was imported`);
        }
        return records.map((record) => store.create(sandbox, record));
      });
    },
    /** The sandbox's collections holding records, by name, with their record counts. */
    list(sandbox: string): CustomCollectionInfo[] {
      const sid = sandboxes.sidOf(sandbox);
      return sid ? (holding.all(sid) as CustomCollectionInfo[]).filter((c) => c.count > 0) : [];
    },
    /** Collection number → name, for a sandbox's rows (exports). */
    names(sid: number): Map<number, string> {
      return new Map((names.all(sid) as { cid: number; name: string }[]).map((row) => [row.cid, row.name]));
    },
    /** The number of a name in the sandbox, given if new (imports; the caller checks the bounds). Call inside a write. */
    numberFor(sid: number, name: string): number {
      return (numberOf.get(sid, name) as number | undefined) ?? (allocate.get(sid, name) as number);
    },
  };
}

export type CustomCollections = ReturnType<typeof createCustomCollections>;
