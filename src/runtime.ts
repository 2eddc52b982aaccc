import { baselineCollections } from './collections/baseline.js';
import type { ResolvedConfig } from './config.js';
import { startCheckpoints } from './db/checkpoints.js';
import { openDatabase, type OpenDatabase } from './db/open.js';
import { loadBaseline } from './engine/baseline.js';
import { createEngine, type Engine } from './engine/engine.js';
import { startSandboxLifecycle } from './engine/sandbox-lifecycle.js';
import { createAuth, type Auth } from './auth/service.js';
import { version } from './version.js';
import { startDispatcher, type Dispatcher } from './webhooks/dispatcher.js';
import { createStreamHub, type StreamHub } from './live/stream-hub.js';
import { deepFreeze } from './per-config.js';

/** Bound when the server starts: a change is kept at its old value and reported, not applied. */
const restartKeys = ['port', 'host', 'db'] as const;

/**
 * Everything a running server holds: config, the open database and the engine over it.
 *
 * Live settings (STYLE.md, "One config, swapped whole"): `config` is frozen and only ever
 * replaced whole, by `reconfigure`. A request keeps the config it started with (`ctx.config`);
 * what is made from a config (custom route table, OpenAPI documents, CORS policy, simulation and
 * webhook settings, personas) is made once per config object (`perConfig`), the engine and the
 * dispatcher read through to the config in force, and the answer cache is emptied when the new
 * config differs. A new `collections` needs new stores and a new GraphQL schema: reconfigure then
 * hands the config to `options.rebuild` (serve's live runtime swaps in a new runtime and app).
 * Nothing compares an object with one remembered to see whether it was replaced.
 */
export interface Runtime {
  readonly config: ResolvedConfig;
  version: string;
  startedAt: number;
  db: OpenDatabase;
  engine: Engine;
  /** Accounts, tokens and sessions over the engine. */
  auth: Auth;
  /** Sends webhook deliveries (only a server runs one; the CLI commands only log events). */
  webhooks: Dispatcher;
  /** Open event streams (`GET /api/v1/events/stream`); `streams.closeAll()` ends them when the server stops. */
  streams: StreamHub;
  /**
   * Loads `config.fixtures` again; returns whether the baseline changed. Throws `FixtureError`
   * and keeps the old baseline when a file is broken.
   */
  reloadBaseline(): boolean;
  /**
   * Serves `next` from now on (`serve --watch`). Throws, and keeps the current config and
   * runtime, when a new runtime for changed `collections` cannot be built.
   */
  reconfigure(next: ResolvedConfig): Promise<Reconfigured>;
  close(): void;
}

export interface Reconfigured {
  /** The runtime serving now: the same one, or the new one built for changed `collections`. */
  runtime: Runtime;
  /** Keys that changed but stay bound until a restart (kept at their old values). */
  restart: string[];
}

export interface RuntimeOptions {
  /**
   * Builds a runtime from `config` and serves it instead of this one; throws, keeping this one,
   * when it cannot. Without it a change of `collections` waits for a restart.
   */
  rebuild?: (config: ResolvedConfig) => Promise<Runtime>;
}

/** Opens the database, loads the baseline when the fixtures changed, and builds the engine. */
export async function createRuntime(given: ResolvedConfig, options: RuntimeOptions = {}): Promise<Runtime> {
  let config = deepFreeze(given);
  const current = () => config;
  // One view of the limits for the engine and the lifecycle, following the config as it is swapped.
  const limits = limitsView(config);
  const db = openDatabase(config.db);
  let engine: Engine;
  let auth: Auth | undefined;
  // A user may not take a persona's username or email: register refuses them, and so does every write of users.
  const reserved = (collection: string, field: string, value: string) =>
    collection === 'users' && auth?.accounts.personaTaken(field === 'username' ? value : '', field === 'email' ? value : '') ? 'a persona' : undefined;
  try {
    const collections = baselineCollections(db.sqlite, config.collections);
    engine = createEngine({ db, collections, limits, reserved });
    loadBaseline(db, config.fixtures, collections, engine);
  } catch (error) {
    db.close();
    throw error;
  }
  const checkpoints = startCheckpoints(db.sqlite);
  const stopLifecycle = startSandboxLifecycle(engine.sandboxes, engine.activity, limits, checkpoints.bookkeeping);
  // A reload applies to the next delivery.
  const webhooks = startDispatcher(engine, current);
  const streams = createStreamHub(engine.changes);
  // `config` is a plain property, swapped whole by `reconfigure`: every request reads it.
  const runtime: Runtime = {
    config,
    version,
    startedAt: Date.now(),
    db,
    engine,
    auth: (auth = createAuth(engine, current)),
    webhooks,
    streams,
    reloadBaseline: () => {
      const changed = loadBaseline(db, config.fixtures, engine.collections, engine);
      // Every sandbox reads the baseline, so every cached answer may be stale.
      if (changed) engine.everythingChanged();
      return changed;
    },
    reconfigure: async (given) => {
      const restart: string[] = restartKeys.filter((key) => given[key] !== config[key]);
      const next = { ...given, port: config.port, host: config.host, db: config.db };
      if (JSON.stringify(next.collections) !== JSON.stringify(config.collections)) {
        if (options.rebuild) return { runtime: await options.rebuild(next), restart };
        restart.push('collections');
        next.collections = config.collections;
      }
      const before = config;
      config = deepFreeze(next);
      (runtime as { config: ResolvedConfig }).config = config;
      Object.setPrototypeOf(limits, config.limits);
      // Cached answers were made under the old limits (page sizes) and settings.
      if (JSON.stringify(config) !== JSON.stringify(before)) engine.everythingChanged();
      return { runtime, restart };
    },
    close: () => {
      streams.closeAll();
      webhooks.stop();
      stopLifecycle();
      checkpoints.stop();
      db.close();
    },
  };
  return runtime;
}

/** The limits the engine holds, read through to the config in force: a reload applies to the next call. */
/**
 * The limits as the engine reads them, on every request: an empty object whose prototype is the
 * current config's limits, so a read is a property read (no getter call) and `reconfigure` swaps
 * every value at once by swapping the prototype.
 */
function limitsView(config: ResolvedConfig): ResolvedConfig['limits'] {
  return Object.create(config.limits) as ResolvedConfig['limits'];
}
