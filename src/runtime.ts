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

/** Everything a running server holds: config, the open database and the engine over it. */
export interface Runtime {
  config: ResolvedConfig;
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
   * Loads `config.fixtures` again (the watcher changes that path in place); returns whether the
   * baseline changed. Throws `FixtureError` and keeps the old baseline when a file is broken.
   */
  reloadBaseline(): boolean;
  close(): void;
}

/** Opens the database, loads the baseline when the fixtures changed, and builds the engine. */
export async function createRuntime(config: ResolvedConfig): Promise<Runtime> {
  const db = openDatabase(config.db);
  let engine: Engine;
  let auth: Auth | undefined;
  // A user may not take a persona's username or email: register refuses them, and so does every write of users.
  const reserved = (collection: string, field: string, value: string) =>
    collection === 'users' && auth?.accounts.personaTaken(field === 'username' ? value : '', field === 'email' ? value : '') ? 'a persona' : undefined;
  try {
    const collections = baselineCollections(db.sqlite, config.collections);
    engine = createEngine({ db, collections, limits: config.limits, reserved });
    loadBaseline(db, config.fixtures, collections, engine);
  } catch (error) {
    db.close();
    throw error;
  }
  const checkpoints = startCheckpoints(db.sqlite);
  const stopLifecycle = startSandboxLifecycle(engine.sandboxes, engine.activity, config.limits, checkpoints.bookkeeping);
  let runtime: Runtime | undefined;
  // Reads the config through the runtime, so a reload (--watch) applies to the next delivery.
  const webhooks = startDispatcher(engine, () => runtime?.config ?? config);
  const streams = createStreamHub(engine.changes);
  return (runtime = {
    config,
    version,
    startedAt: Date.now(),
    db,
    engine,
    auth: (auth = createAuth(engine, config)),
    webhooks,
    streams,
    reloadBaseline: () => {
      const changed = loadBaseline(db, config.fixtures, engine.collections, engine);
      // Every sandbox reads the baseline, so every cached answer may be stale.
      if (changed) engine.everythingChanged();
      return changed;
    },
    close: () => {
      streams.closeAll();
      webhooks.stop();
      stopLifecycle();
      checkpoints.stop();
      db.close();
    },
  });
}
