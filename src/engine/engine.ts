import type { OpenDatabase } from '../db/open.js';
import { prepareMergedView } from '../db/merged-view.js';
import { createListCompiler } from '../db/list-sql.js';
import type { CollectionDefinition } from './definition.js';
import { createCollectionStore, type ChangeEvent, type CollectionStore, type ReservedValues } from './collection-store.js';
import { createSandboxStore } from './sandbox-store.js';
import { createActivityLog } from './activity.js';
import { createAnswerCache } from './answer-cache.js';
import { createBaselineMemo } from './baseline-memo.js';
import { createSearchIndex } from '../db/search-index.js';
import { createAuthStore } from './auth-store.js';
import { createChangeLog } from './change-log.js';
import { createWebhookStore } from './webhook-store.js';
import { SandboxView, type SandboxViewOptions } from './sandbox-view.js';
import type { Caller } from '../auth/authorize.js';
import { createCustomCollections, customNamePattern, customPrefix } from './custom-collections.js';
import { customCidBase } from '../db/search-index.js';

export interface EngineOptions {
  db: OpenDatabase;
  collections: CollectionDefinition[];
  limits: { createdPerCollection: number; customCollections?: number; customRecords?: number; sandboxTtl?: number; maxSandboxes?: number; sandboxBytes?: number; activity?: number; eventsPerSandbox?: number };
  /** Unique values held outside the collections (the personas' usernames and emails). */
  reserved?: ReservedValues;
}


/**
 * The collection engine: one generic store per collection definition over the shared baseline
 * and per-sandbox overlays. Routes, GraphQL and the CLI commands all go through it.
 */
export function createEngine(options: EngineOptions) {
  const { db } = options;
  const view = prepareMergedView(db.sqlite);
  const search = createSearchIndex(db.sqlite, options.collections);
  search.ensureBuilt();
  const activity = createActivityLog(options.limits);
  const sandboxes = createSandboxStore(db, search, {
    limits: options.limits,
    lastSeen: activity.lastSeen,
    // An expired or evicted sandbox starts over: its answers and its telemetry go too.
    dropped: (key) => {
      activity.forget(key);
      sandboxChanged(key);
    },
  });
  const changes = createChangeLog(db, options.limits);
  const webhooks = createWebhookStore(db, sandboxes);
  const answers = createAnswerCache(db, sandboxes, options.limits);
  const baseline = createBaselineMemo(db.sqlite);
  const sandboxChanged = (sandbox: string) => {
    sandboxes.forget(sandbox);
    answers.drop(sandbox);
  };
  const byName = new Map<string, CollectionDefinition>(options.collections.map((c) => [c.name, c]));
  const stores = new Map<string, CollectionStore>();
  const context = {
    db,
    view,
    baseline,
    compileList: createListCompiler(db.sqlite, baseline),
    sandboxes,
    search,
    limits: options.limits,
    changes,
    collection: (name: string) => byName.get(name),
    reserved: options.reserved,
    // Readers of changes (webhooks, /events, SSE) read the change log; a write only drops the
    // sandbox's cached answers read from the record's collection.
    emit: (event: ChangeEvent) => {
      sandboxes.forget(event.sandbox);
      answers.collectionChanged(event.sandbox, event.collection.name);
    },
  };
  for (const definition of options.collections) stores.set(definition.name, createCollectionStore(definition, context));
  const custom = createCustomCollections(context, options.limits);
  const viewDeps = { context, store: (name: string) => resolve(name), answers, custom };
  /**
   * The collection registry (STYLE.md): one name space for core and config-declared collections
   * (`posts`) and the sandbox's custom ones (`custom.invoices`); a custom name that is not one is
   * undefined, like an unknown collection.
   */
  const resolve = (name: string): CollectionStore | undefined => {
    if (!name.startsWith(customPrefix)) return stores.get(name);
    const customName = name.slice(customPrefix.length);
    return customNamePattern.test(customName) ? custom.collection(customName) : undefined;
  };

  return {
    collections: options.collections,
    sandboxes,
    search,
    /** What authentication keeps per sandbox: passwords, sessions, refresh families, the mailbox. */
    auth: createAuthStore(db, sandboxes),
    /** Request counts and recent requests per sandbox, in memory (telemetry of this process). */
    activity,
    /** Finished answers of reads, kept true by `sandboxChanged` and the file's data version. */
    answers,
    /** The store of a core or config-declared collection, or undefined for a name that is not one. */
    collection(name: string): CollectionStore | undefined {
      return stores.get(name);
    },
    /** Any collection by its registry name: `posts`, or a sandbox's custom `custom.invoices`. */
    resolve,
    /** Per-sandbox custom collections (`/custom/{name}`): their stores, listing and numbers. */
    custom,
    /**
     * The change log: every committed change of a sandbox, appended in its transaction. Later layers
     * (auth, GraphQL, custom collections) append their events with `changes.append(sid, name, data)`
     * inside `sandboxes.write` (auth does so for `auth.login`); webhooks, `/events` and `webhook tail` read it.
     */
    changes,
    /** Webhook subscriptions and their deliveries, per sandbox. */
    webhooks,
    /**
     * The engine bound to one sandbox, unchecked (no caller to authorize): for in-process callers
     * that are the owner. No route uses it (they call `for(ctx)`); its users are tests
     * (test/graphql-surface.test.ts, test/graphql-batching.test.ts).
     */
    forSandbox(sandbox: string, viewOptions?: SandboxViewOptions) {
      return new SandboxView(viewDeps, sandbox, viewOptions);
    },
    /**
     * The engine bound to a caller (STYLE.md "One way into the engine"): its sandbox, and every
     * operation authorized for it with the one decision (`auth/authorize.ts`), the collections a
     * list embeds or expands included. What REST's reads and custom routes' `ctx.collection` call:
     * one object per call (a class, no closures).
     */
    for(caller: Caller & { readonly sandbox: string }, viewOptions?: SandboxViewOptions) {
      return new SandboxView(viewDeps, caller.sandbox, viewOptions, caller);
    },
    /**
     * Says that a sandbox's visible data changed (a record write says so itself; import, restore,
     * expiry and eviction call this after committing), so caches of its answers are dropped.
     */
    sandboxChanged,
    /** Says that what every sandbox sees changed (a baseline or config reload). */
    everythingChanged: () => {
      sandboxes.forget();
      answers.clear();
      baseline.clear();
    },
    /** Purges the sandbox's overlay in one transaction; returns the purged row counts by collection (`custom`: all custom collections' records). */
    reset(sandbox: string): Record<string, number> {
      const named = (counts: Map<number, number>) => {
        let customRows = 0;
        for (const [cid, n] of counts) if (cid >= customCidBase) customRows += n;
        return { ...Object.fromEntries(options.collections.map((c) => [c.name, counts.get(c.cid) ?? 0])), custom: customRows };
      };
      const counts = sandboxes.write(() => {
        const sid = sandboxes.sidOf(sandbox);
        if (!sid) return new Map<number, number>();
        const held = sandboxes.holdsData(sid);
        const purged = sandboxes.purge(sid);
        // The log starts over with the reset itself; a sandbox that held nothing logs nothing.
        changes.purge(sid);
        if (held) changes.append(sid, 'sandbox.reset', { sandbox, purged: named(purged) });
        return purged;
      });
      sandboxChanged(sandbox);
      return named(counts);
    },
  };
}

export type Engine = ReturnType<typeof createEngine>;
