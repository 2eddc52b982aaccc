import { coreCollections } from './collections/registry.js';
import type { ResolvedConfig } from './config.js';
import { startCheckpoints } from './db/checkpoints.js';
import { openDatabase, type OpenDatabase } from './db/open.js';
import { loadBaseline } from './engine/baseline.js';
import { createEngine, type Engine } from './engine/engine.js';
import { version } from './version.js';

/** Everything a running server holds: config, the open database and the engine over it. */
export interface Runtime {
  config: ResolvedConfig;
  version: string;
  startedAt: number;
  db: OpenDatabase;
  engine: Engine;
  close(): void;
}

/** Opens the database, loads the baseline when the fixtures changed, and builds the engine. */
export async function createRuntime(config: ResolvedConfig): Promise<Runtime> {
  const db = openDatabase(config.db);
  try {
    loadBaseline(db, config.fixtures, coreCollections);
  } catch (error) {
    db.close();
    throw error;
  }
  const engine = createEngine({ db, collections: coreCollections, limits: config.limits });
  const stopCheckpoints = startCheckpoints(db.sqlite);
  return {
    config,
    version,
    startedAt: Date.now(),
    db,
    engine,
    close: () => {
      stopCheckpoints();
      db.close();
    },
  };
}
