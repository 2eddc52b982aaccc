import { describe, expect, it } from 'vitest';
import { getTableConfig } from 'drizzle-orm/sqlite-core';
import { openDatabase } from '../../src/db/open.js';
import * as schema from '../../src/db/schema.js';

// migrate.ts writes the DDL by hand; this keeps it and the drizzle schema in step.
describe('drizzle schema and DDL', () => {
  const db = openDatabase(':memory:');
  const tables = [
    schema.meta,
    schema.sandboxes,
    schema.base,
    schema.overlay,
    schema.customCollections,
    schema.snapshots,
    schema.snapshotRows,
    schema.authPasswords,
    schema.authSessions,
    schema.authProfiles,
    schema.refreshTokens,
    schema.resetTokens,
    schema.mailbox,
    schema.searchTerms,
    schema.searchDocs,
    schema.events,
    schema.webhooks,
    schema.deliveries,
    schema.deliveryAttempts,
  ];

  it.each(tables.map((table) => [getTableConfig(table).name, table] as const))('%s has the same columns', (name, table) => {
    const config = getTableConfig(table);
    const actual = db.sqlite.prepare(`PRAGMA table_info(${name})`).all() as { name: string; type: string; notnull: number; pk: number }[];
    expect(actual.map((c) => c.name).sort()).toEqual(config.columns.map((c) => c.name).sort());
    for (const column of config.columns) {
      const found = actual.find((c) => c.name === column.name)!;
      expect(found.type.toLowerCase(), `${name}.${column.name} type`).toBe(column.getSQLType().toLowerCase());
      expect(found.notnull === 1 || found.pk > 0, `${name}.${column.name} not null`).toBe(column.notNull);
    }
  });

  it('keeps overlay ids typed: integers stay integers, local ids stay text', () => {
    db.sqlite.prepare(`INSERT INTO overlay (sid, cid, id, state, seq, doc) VALUES (1, 2, ?, 2, 1, '{}'), (1, 2, ?, 1, 2, '{}')`).run(7, 'local-x');
    const types = db.sqlite.prepare(`SELECT typeof(id) AS t FROM overlay ORDER BY seq`).pluck().all();
    expect(types).toEqual(['integer', 'text']);
  });
});
