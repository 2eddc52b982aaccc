import type { Database } from 'better-sqlite3';
import { searchDdl } from './search-index.js';

/**
 * Bumped when the tables change shape; an older file is refused with a clear message. Tables added
 * with `IF NOT EXISTS` (snapshots, the search index, the change log and webhooks) need no bump: an older file just gains them.
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
  last_active_at INTEGER NOT NULL,
  holds INTEGER NOT NULL DEFAULT 0,
  bytes INTEGER NOT NULL DEFAULT 0
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
CREATE INDEX IF NOT EXISTS overlay_newest ON overlay (sid, cid, state, -seq);
CREATE TABLE IF NOT EXISTS custom_collections (
  cid INTEGER PRIMARY KEY,
  sid INTEGER NOT NULL,
  name TEXT NOT NULL,
  UNIQUE (sid, name)
);
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
CREATE TABLE IF NOT EXISTS auth_passwords (
  sid INTEGER NOT NULL,
  user_id TEXT NOT NULL,
  hash TEXT NOT NULL,
  PRIMARY KEY (sid, user_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS auth_sessions (
  sid INTEGER PRIMARY KEY,
  user_id TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS auth_profiles (
  sid INTEGER NOT NULL,
  user_id TEXT NOT NULL,
  doc TEXT NOT NULL,
  PRIMARY KEY (sid, user_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS refresh_tokens (
  jti TEXT PRIMARY KEY,
  family TEXT NOT NULL,
  sid INTEGER NOT NULL,
  user_id TEXT NOT NULL,
  state INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS refresh_tokens_by_family ON refresh_tokens (family);
CREATE INDEX IF NOT EXISTS refresh_tokens_by_sandbox ON refresh_tokens (sid, user_id);
CREATE TABLE IF NOT EXISTS reset_tokens (
  sid INTEGER NOT NULL,
  user_id TEXT NOT NULL,
  token TEXT NOT NULL,
  used INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (sid, user_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS mailbox (
  sid INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  doc TEXT NOT NULL,
  PRIMARY KEY (sid, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS events (
  n INTEGER PRIMARY KEY AUTOINCREMENT,
  sid INTEGER NOT NULL,
  eseq INTEGER NOT NULL,
  upto INTEGER NOT NULL,
  event TEXT NOT NULL,
  at INTEGER NOT NULL,
  data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_by_sandbox ON events (sid, eseq);
CREATE TABLE IF NOT EXISTS webhooks (
  sid INTEGER NOT NULL,
  id TEXT NOT NULL,
  url TEXT NOT NULL,
  events TEXT NOT NULL,
  secret TEXT NOT NULL,
  signature TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  after_n INTEGER NOT NULL,
  PRIMARY KEY (sid, id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS deliveries (
  n INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  sid INTEGER NOT NULL,
  webhook_id TEXT NOT NULL,
  event TEXT NOT NULL,
  body TEXT NOT NULL,
  url TEXT NOT NULL,
  signature TEXT NOT NULL,
  secret TEXT,
  status TEXT NOT NULL,
  due INTEGER,
  max_attempts INTEGER NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS deliveries_by_webhook ON deliveries (sid, webhook_id, n);
CREATE INDEX IF NOT EXISTS deliveries_due ON deliveries (due);
CREATE TABLE IF NOT EXISTS delivery_attempts (
  n INTEGER PRIMARY KEY AUTOINCREMENT,
  sid INTEGER NOT NULL,
  delivery_id TEXT NOT NULL,
  at INTEGER NOT NULL,
  status_code INTEGER,
  duration_ms INTEGER NOT NULL,
  error TEXT
);
CREATE INDEX IF NOT EXISTS delivery_attempts_by_delivery ON delivery_attempts (delivery_id);
CREATE INDEX IF NOT EXISTS delivery_attempts_by_sandbox ON delivery_attempts (sid);
${searchDdl}
`;

export class SchemaMismatchError extends Error {
  override name = 'SchemaMismatchError';
}

/**
 * What a sandbox holds, worked out from its rows: whether it has overlay rows or snapshots (only
 * those count toward `limits.maxSandboxes`), and the UTF-8 bytes of the record JSON it stores,
 * overlay and snapshots together, a tombstone counting as its id (`limits.sandboxBytes`).
 */
export const rowBytesSql = (table: string) =>
  `(SELECT coalesce(sum(coalesce(length(CAST(doc AS BLOB)), length(CAST(id AS TEXT)))), 0) FROM ${table} WHERE sid = sandboxes.sid)`;
export const holdsSql = `(EXISTS (SELECT 1 FROM overlay WHERE sid = sandboxes.sid) OR EXISTS (SELECT 1 FROM snapshots WHERE sid = sandboxes.sid))`;

/** Files made before sandboxes knew what they hold gain the two columns, worked out from their rows. */
function addHoldingColumns(db: Database): void {
  const columns = (db.prepare(`PRAGMA table_info(sandboxes)`).all() as { name: string }[]).map((c) => c.name);
  if (!columns.includes('holds')) db.exec(`ALTER TABLE sandboxes ADD COLUMN holds INTEGER NOT NULL DEFAULT 0`);
  if (!columns.includes('bytes')) db.exec(`ALTER TABLE sandboxes ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0`);
  if (!columns.includes('holds') || !columns.includes('bytes')) {
    db.exec(`UPDATE sandboxes SET holds = ${holdsSql}, bytes = ${rowBytesSql('overlay')} + ${rowBytesSql('snapshot_rows')}`);
  }
  // Eviction reads the least recently active sandboxes that hold data.
  db.exec(`CREATE INDEX IF NOT EXISTS sandboxes_holding ON sandboxes (holds, last_active_at)`);
}

/**
 * Event ids number each sandbox's own events (issue 28: one global counter told a sandbox how much
 * the others wrote). The number lives on the sandbox's row so a reset's purge does not reuse one;
 * a file made before starts each sandbox where its log stands.
 */
function addEventSeqColumn(db: Database): void {
  const columns = (db.prepare(`PRAGMA table_info(sandboxes)`).all() as { name: string }[]).map((c) => c.name);
  if (columns.includes('event_seq')) return;
  db.exec(`ALTER TABLE sandboxes ADD COLUMN event_seq INTEGER NOT NULL DEFAULT 0`);
  db.exec(`UPDATE sandboxes SET event_seq = coalesce((SELECT max(eseq) FROM events WHERE sid = sandboxes.sid), 0)`);
}

/** Creates the tables on a new file; checks the version on an existing one. */
export function migrate(db: Database): void {
  db.exec(ddl);
  db.transaction(() => addHoldingColumns(db)).immediate();
  db.transaction(() => addEventSeqColumn(db)).immediate();
  const row = db.prepare(`SELECT value FROM meta WHERE key = 'schema_version'`).get() as { value: string } | undefined;
  if (!row) {
    db.prepare(`INSERT INTO meta (key, value) VALUES ('schema_version', ?)`).run(String(schemaVersion));
  } else if (Number(row.value) !== schemaVersion) {
    throw new SchemaMismatchError(
      `database schema version ${row.value} is not supported by this mockapi (expects ${schemaVersion}); use a new --db file`,
    );
  }
}
