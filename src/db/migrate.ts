import type { Database } from 'better-sqlite3';
import { searchDdl } from './search-index.js';

/**
 * Bumped when the tables change shape; an older file is refused with a clear message. Tables added
 * with `IF NOT EXISTS` (snapshots, the search index) need no bump: an older file just gains them.
 */
export const schemaVersion = 1;

/** DDL matching `schema.ts`. WITHOUT ROWID keeps each sandbox's overlay rows together on disk. */
const ddl = `
CREATE TABLE IF NOT EXISTS meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS sandboxes (
  sid INTEGER PRIMARY KEY AUTOINCREMENT,
  key TEXT NOT NULL UNIQUE,
  seq INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  last_active_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS sandboxes_by_activity ON sandboxes (last_active_at);
CREATE TABLE IF NOT EXISTS base (
  cid INTEGER NOT NULL,
  id INTEGER NOT NULL,
  doc TEXT NOT NULL,
  PRIMARY KEY (cid, id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS overlay (
  sid INTEGER NOT NULL,
  cid INTEGER NOT NULL,
  id NUMERIC NOT NULL,
  state INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  doc TEXT,
  PRIMARY KEY (sid, cid, id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS overlay_by_state ON overlay (sid, cid, state, seq);
CREATE TABLE IF NOT EXISTS snapshots (
  sid INTEGER NOT NULL,
  name TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  PRIMARY KEY (sid, name)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS snapshot_rows (
  sid INTEGER NOT NULL,
  name TEXT NOT NULL,
  cid INTEGER NOT NULL,
  id NUMERIC NOT NULL,
  state INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  doc TEXT,
  PRIMARY KEY (sid, name, cid, id)
) WITHOUT ROWID;
${searchDdl}
`;

export class SchemaMismatchError extends Error {
  override name = 'SchemaMismatchError';
}

/** Creates the tables on a new file; checks the version on an existing one. */
export function migrate(db: Database): void {
  db.exec(ddl);
  const row = db.prepare(`SELECT value FROM meta WHERE key = 'schema_version'`).get() as { value: string } | undefined;
  if (!row) {
    db.prepare(`INSERT INTO meta (key, value) VALUES ('schema_version', ?)`).run(String(schemaVersion));
  } else if (Number(row.value) !== schemaVersion) {
    throw new SchemaMismatchError(
      `database schema version ${row.value} is not supported by this mockapi (expects ${schemaVersion}); use a new --db file`,
    );
  }
}
