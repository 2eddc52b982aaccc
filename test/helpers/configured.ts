import { afterEach } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startServer, type RunningServer } from './server.js';

/**
 * Servers started with a config file of their own, each removed after its test. Call once per
 * test file; `serve(config)` starts one (on `db` when given, for restarts).
 */
export function configuredServers() {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });
  return {
    /** `cli`: the real CLI in its own process (to kill it), else in-process (see startServer). */
    async serve(config: Record<string, unknown>, db?: string, { cli = false } = {}): Promise<RunningServer & { configFile: string }> {
      const dir = mkdtempSync(join(tmpdir(), 'mockapi-configured-'));
      const configFile = join(dir, 'mockapi.config.json');
      writeFileSync(configFile, JSON.stringify(config));
      const server = await startServer({ args: ['--config', configFile], db, cli });
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }), () => server.cleanup());
      return Object.assign(server, { configFile });
    },
    /** Registers a cleanup of the running test. */
    defer(cleanup: () => Promise<void> | void) {
      cleanups.push(cleanup);
    },
  };
}

/** Reads the database file as another process would (read-only), then closes it. */
export function readFile<T>(file: string, read: (db: Database.Database) => T): T {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

/** The keys of the sandboxes that hold data (overlay rows or snapshots), from the rows themselves. */
export function keysHoldingData(file: string): string[] {
  return readFile(file, (db) =>
    db
      .prepare(
        `SELECT key FROM sandboxes s WHERE EXISTS (SELECT 1 FROM overlay o WHERE o.sid = s.sid)
            OR EXISTS (SELECT 1 FROM snapshots n WHERE n.sid = s.sid) ORDER BY key`,
      )
      .pluck()
      .all() as string[],
  );
}
