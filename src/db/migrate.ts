import type { Database } from 'better-sqlite3';
import { is } from 'drizzle-orm';
import { SQLiteTable } from 'drizzle-orm/sqlite-core';
import { addColumnSql, createIndexesSql, createTableSql } from './ddl.js';
import * as schema from './schema.js';
import { searchDdl } from './search-index.js';

/**
 * Bumped when the tables change shape; an older file is refused with a clear message. Tables added
 * with `IF NOT EXISTS` (snapshots, the search index, the change log and webhooks) need no bump: an older file just gains them.
 */
export const schemaVersion = 1;

const tables = Object.values(schema).filter((value) => is(value, SQLiteTable)) as SQLiteTable[];

/** The tables of `schema.ts` (derived: `ddl.ts`) and the FTS5 table, created when missing. */
const ddl = [...tables.map((table) => createTableSql(table, { withoutRowid: schema.withoutRowid.has(table) })), searchDdl].join('\n');

/** Their indexes, made after the upgrades below: an index may be on a column an upgrade adds to an older file. */
const indexDdl = tables.flatMap(createIndexesSql).join('\n');

/**
 * Indexes older files have and this version does not: each costs every write one more page in
 * its commit (issue 29). `overlay_by_state` (sid, cid, state, seq) duplicated `overlay_newest`;
 * `sandboxes_by_activity` (last_active_at) is `sandboxes_holding`'s second column.
 */
const retiredIndexDdl = ['overlay_by_state', 'sandboxes_by_activity'].map((name) => `DROP INDEX IF EXISTS ${name};`).join('\n');

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
  if (!columns.includes('holds')) db.exec(addColumnSql(schema.sandboxes, schema.sandboxes.holds));
  if (!columns.includes('bytes')) db.exec(addColumnSql(schema.sandboxes, schema.sandboxes.bytes));
  if (!columns.includes('holds') || !columns.includes('bytes')) {
    db.exec(`UPDATE sandboxes SET holds = ${holdsSql}, bytes = ${rowBytesSql('overlay')} + ${rowBytesSql('snapshot_rows')}`);
  }
}

/**
 * Event ids number each sandbox's own events (issue 28: one global counter told a sandbox how much
 * the others wrote). The number lives on the sandbox's row so a reset's purge does not reuse one;
 * a file made before starts each sandbox where its log stands.
 */
function addEventSeqColumn(db: Database): void {
  const columns = (db.prepare(`PRAGMA table_info(sandboxes)`).all() as { name: string }[]).map((c) => c.name);
  if (columns.includes('event_seq')) return;
  db.exec(addColumnSql(schema.sandboxes, schema.sandboxes.eventSeq));
  db.exec(`UPDATE sandboxes SET event_seq = coalesce((SELECT max(eseq) FROM events WHERE sid = sandboxes.sid), 0)`);
}

/**
 * Files made before each own record's length and terms moved to its '' row of `search_terms`
 * (issue 29) kept them in a table `search_docs`: the column is added and the table goes. The
 * index's fingerprint changed with it, so it is rebuilt from the overlay on open (`ensureBuilt`).
 */
function foldSearchDocs(db: Database): void {
  const columns = (db.prepare(`PRAGMA table_info(search_terms)`).all() as { name: string }[]).map((c) => c.name);
  if (!columns.includes('terms')) db.exec(addColumnSql(schema.searchTerms, schema.searchTerms.terms));
  db.exec(`DROP TABLE IF EXISTS search_docs`);
}

/** Creates the tables on a new file; checks the version on an existing one. */
export function migrate(db: Database): void {
  db.exec(ddl);
  db.transaction(() => addHoldingColumns(db)).immediate();
  db.transaction(() => addEventSeqColumn(db)).immediate();
  db.transaction(() => foldSearchDocs(db)).immediate();
  db.exec(indexDdl);
  db.exec(retiredIndexDdl);
  const row = db.prepare(`SELECT value FROM meta WHERE key = 'schema_version'`).get() as { value: string } | undefined;
  if (!row) {
    db.prepare(`INSERT INTO meta (key, value) VALUES ('schema_version', ?)`).run(String(schemaVersion));
  } else if (Number(row.value) !== schemaVersion) {
    throw new SchemaMismatchError(
      `database schema version ${row.value} is not supported by this mockapi (expects ${schemaVersion}); use a new --db file`,
    );
  }
}
