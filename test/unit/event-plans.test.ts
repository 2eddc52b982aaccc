import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.js';

// The change log and the webhook tables are read on every write (the dispatcher's scan) and deleted
// per sandbox on expiry and eviction: none of these statements may scan a whole table.
describe('query plans of the change log and webhooks', () => {
  const db = openDatabase(':memory:');
  const plan = (sql: string, ...args: unknown[]) =>
    (db.sqlite.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[]).map((r) => r.detail).join(' | ');

  it.each(['events', 'webhooks', 'deliveries', 'delivery_attempts'])('deleting a sandbox from %s searches an index', (table) => {
    expect(plan(`DELETE FROM ${table} WHERE sid = ?`, 1)).toMatch(/^SEARCH /);
  });

  it.each([
    [`SELECT n, event FROM events WHERE sid = ? ORDER BY eseq DESC`, [1]],
    [`SELECT * FROM events WHERE n > ? ORDER BY n LIMIT 500`, [1]],
    [`SELECT * FROM events WHERE sid = ? AND n > ? ORDER BY eseq LIMIT 1000`, [1, 1]],
    [`SELECT * FROM deliveries WHERE due <= ? ORDER BY due, n LIMIT 100`, [1]],
    [`SELECT * FROM deliveries WHERE sid = ? AND webhook_id = ? ORDER BY n DESC LIMIT 10`, [1, 'wh_x']],
    [`SELECT * FROM delivery_attempts WHERE delivery_id = ? ORDER BY n`, ['del_x']],
  ])('%s searches an index', (sql, args) => {
    const detail = plan(sql, ...args);
    expect(detail).not.toMatch(/SCAN (events|deliveries|delivery_attempts)\b(?! USING)/);
  });
});
