import { describe, expect, it, afterAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { is } from 'drizzle-orm';
import { getTableConfig, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { openDatabase } from '../../src/db/open.js';
import * as schema from '../../src/db/schema.js';
import { createSearchIndex } from '../../src/db/search-index.js';

const tables = Object.values(schema).filter((value) => is(value, SQLiteTable)) as SQLiteTable[];
const dir = mkdtempSync(join(tmpdir(), 'mockapi-schema-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// migrate.ts derives the DDL from schema.ts (db/ddl.ts): what SQLite made is what drizzle declares.
describe('the DDL derived from the drizzle schema', () => {
  const db = openDatabase(':memory:');
  const master = (name: string) => db.sqlite.prepare(`SELECT sql FROM sqlite_master WHERE name = ?`).pluck().get(name) as string | undefined;

  it.each(tables.map((table) => [getTableConfig(table).name, table] as const))('%s has the declared columns, keys, indexes and storage', (name, table) => {
    const config = getTableConfig(table);
    const actual = db.sqlite.prepare(`PRAGMA table_info(${name})`).all() as { name: string; type: string; notnull: number; pk: number; dflt_value: string | null }[];
    expect(actual.map((c) => c.name).sort()).toEqual(config.columns.map((c) => c.name).sort());
    for (const column of config.columns) {
      const found = actual.find((c) => c.name === column.name)!;
      expect(found.type.toLowerCase(), `${name}.${column.name} type`).toBe(column.getSQLType().toLowerCase());
      expect(found.notnull === 1 || found.pk > 0, `${name}.${column.name} not null`).toBe(column.notNull);
      expect(found.dflt_value, `${name}.${column.name} default`).toBe(column.default === undefined ? null : String(column.default));
    }
    const key = config.primaryKeys[0]?.columns.map((c) => c.name) ?? config.columns.filter((c) => c.primary).map((c) => c.name);
    expect(actual.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name)).toEqual(key);
    for (const { config: index } of config.indexes) expect(master(index.name), index.name).toMatch(new RegExp(`^CREATE INDEX ${index.name} ON ${name} \\(`));
    expect(master(name)!.endsWith(' WITHOUT ROWID'), `${name} WITHOUT ROWID`).toBe(schema.withoutRowid.has(table));
  });

  it('keeps overlay ids typed: integers stay integers, local ids stay text', () => {
    db.sqlite.prepare(`INSERT INTO overlay (sid, cid, id, state, seq, doc) VALUES (1, 2, ?, 2, 1, '{}'), (1, 2, ?, 1, 2, '{}')`).run(7, 'local-x');
    const types = db.sqlite.prepare(`SELECT typeof(id) AS t FROM overlay ORDER BY seq`).pluck().all();
    expect(types).toEqual(['integer', 'text']);
  });
});

describe('opening a file made by an older mockapi', () => {
  it('a file from before sandboxes knew what they hold gains holds and bytes, worked out from its rows, and their index', () => {
    const file = join(dir, 'before-holds.db');
    const made = openDatabase(file);
    const insert = made.sqlite.prepare(`INSERT INTO sandboxes (key, created_at, last_active_at) VALUES (?, 1, 1) RETURNING sid`).pluck();
    const writer = insert.get('writer') as number;
    insert.get('reader');
    made.sqlite.prepare(`INSERT INTO overlay (sid, cid, id, state, seq, doc) VALUES (?, 1, 'local-a', 1, 1, '{"a":1}'), (?, 1, 7, 3, 2, NULL)`).run(writer, writer);
    made.close();
    // What that version's file looked like: no holds, no bytes, no index over them.
    const raw = new Database(file);
    raw.exec(`DROP INDEX sandboxes_holding; ALTER TABLE sandboxes DROP COLUMN holds; ALTER TABLE sandboxes DROP COLUMN bytes;`);
    raw.close();

    const opened = openDatabase(file);
    try {
      const rows = opened.sqlite.prepare(`SELECT key, holds, bytes FROM sandboxes ORDER BY key`).all();
      // '{"a":1}' is 7 bytes; the tombstone counts as its id, '7'.
      expect(rows).toEqual([
        { key: 'reader', holds: 0, bytes: 0 },
        { key: 'writer', holds: 1, bytes: 8 },
      ]);
      expect(opened.sqlite.prepare(`SELECT sql FROM sqlite_master WHERE name = 'sandboxes_holding'`).pluck().get()).toBe(
        'CREATE INDEX sandboxes_holding ON sandboxes (holds, last_active_at)',
      );
    } finally {
      opened.close();
    }
  });

  it("a file whose search index kept each record's length and terms in search_docs gains them under the term '', rebuilt from the overlay", () => {
    const file = join(dir, 'search-docs.db');
    const collections = [{ cid: 2, searchable: ['title'] }];
    const made = openDatabase(file);
    createSearchIndex(made.sqlite, collections).ensureBuilt();
    made.sqlite.prepare(`INSERT INTO overlay (sid, cid, id, state, seq, doc) VALUES (3, 2, 'local-a', 1, 4, '{"title":"Wombat tales, wombat"}')`).run();
    made.close();
    // That version's layout: a search_docs table, search_terms without the terms column, its fingerprint.
    const raw = new Database(file);
    raw.exec(`CREATE TABLE search_docs (sid INTEGER NOT NULL, cid INTEGER NOT NULL, seq INTEGER NOT NULL, length INTEGER NOT NULL, terms TEXT NOT NULL,
                PRIMARY KEY (sid, cid, seq)) WITHOUT ROWID;
              INSERT INTO search_docs VALUES (3, 2, 4, 3, '["tales","wombat"]');
              ALTER TABLE search_terms DROP COLUMN terms;
              INSERT INTO search_terms VALUES (3, 2, 'tales', 4, 1), (3, 2, 'wombat', 4, 2);
              UPDATE meta SET value = '["baseline-stats-v3",[[2,["title"]]]]' WHERE key = 'search_index';`);
    raw.close();

    const opened = openDatabase(file);
    try {
      const index = createSearchIndex(opened.sqlite, collections);
      index.ensureBuilt();
      const all = (sql: string) => opened.sqlite.prepare(sql).all();
      expect(all(`SELECT name FROM sqlite_master WHERE name = 'search_docs'`)).toEqual([]);
      expect(all(`SELECT term, count, terms FROM search_terms WHERE sid = 3 ORDER BY term`)).toEqual([
        { term: '', count: 3, terms: '["tales","wombat"]' },
        { term: 'tales', count: 1, terms: null },
        { term: 'wombat', count: 2, terms: null },
      ]);
      // and a change of the record replaces all of it
      index.put(3, 2, 4, 'only this');
      expect(all(`SELECT term, count FROM search_terms WHERE sid = 3 ORDER BY term`)).toEqual([
        { term: '', count: 2 },
        { term: 'only', count: 1 },
        { term: 'this', count: 1 },
      ]);
    } finally {
      opened.close();
    }
  });

  it('a file of another schema version is refused, naming both versions', () => {
    const file = join(dir, 'newer.db');
    openDatabase(file).close();
    const raw = new Database(file);
    raw.prepare(`UPDATE meta SET value = '99' WHERE key = 'schema_version'`).run();
    raw.close();
    expect(() => openDatabase(file)).toThrow(/schema version 99 is not supported by this mockapi \(expects 1\)/);
  });
});
