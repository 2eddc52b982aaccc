import { describe, expect, it } from 'vitest';
import type { Statement } from 'better-sqlite3';
import { createListCompiler, type AnchorValue, type ListShape } from '../../src/db/list-sql.js';
import { prepareMergedView } from '../../src/db/merged-view.js';
import { openDatabase } from '../../src/db/open.js';
import { createBaselineMemo } from '../../src/engine/baseline-memo.js';

// Every list, filter, sort, search and cursor statement must reach the overlay through an index
// (its primary key or the state index), never by scanning it: 5,000 sandboxes share the table.
const db = openDatabase(':memory:');
const view = prepareMergedView(db.sqlite);
const compile = createListCompiler(db.sqlite, createBaselineMemo(db.sqlite));
const where = { sid: 7, cid: 2 };

function planOf(statement: Statement, bind: Record<string, unknown>): string[] {
  return (db.sqlite.prepare(`EXPLAIN QUERY PLAN ${statement.source}`).all(bind) as { detail: string }[]).map((row) => row.detail);
}

function expectIndexed(plan: string[]): void {
  for (const line of plan) {
    expect(line, plan.join('\n')).not.toMatch(/^SCAN (o|b|overlay|base)\b/);
    // full-text reads: the baseline's FTS5 table by MATCH only (M), never a scan; a sandbox's own
    // terms through their primary key within the sandbox and collection, never another's rows
    if (/VIRTUAL TABLE/.test(line) && !line.includes('json_each')) expect(line).toMatch(/^SCAN search_base VIRTUAL TABLE INDEX \d+:M\d+/);
    if (line.includes('search_terms')) expect(line).toBe('SEARCH search_terms USING PRIMARY KEY (sid=? AND cid=? AND term>? AND term<?)');
    // each hit's length: its '' row, one primary-key lookup
    if (/ d USING/.test(line)) expect(line).toBe('SEARCH d USING PRIMARY KEY (sid=? AND cid=? AND term=? AND seq=?)');
  }
  expect(plan.some((line) => /SEARCH (o|overlay) USING (PRIMARY KEY|(COVERING )?INDEX overlay_newest)/.test(line)), plan.join('\n')).toBe(true);
}

describe('query plans', () => {
  it.each([
    ['page', view.page, { ...where, limit: 10, offset: 0, baseCount: 100 }],
    ['page after a cursor', view.pageAfter, { ...where, limit: 10, after: 3, baseCount: 100 }],
    ['get', view.get, { ...where, id: 3 }],
    ['created count (the cap)', view.createdCount, where],
    ['unique check', view.duplicate, { ...where, path: '$.email', value: 'a@b.c', id: null }],
    ['embed by field', view.relatedByField, { ...where, path: '$.post_id', values: '[1,2]' }],
    ['expand by id', view.relatedById, { ...where, values: '[1,2]' }],
  ] as const)('%s uses the indexes', (_name, statement, bind) => {
    expectIndexed(planOf(statement as Statement, bind));
  });

  it('reads only created rows for the created arm, already in page order (no sort), in cursor order too', () => {
    const page = planOf(view.page, { ...where, limit: 10, offset: 0, baseCount: 100 }).join('\n');
    expect(page).toContain('overlay_newest (sid=? AND cid=? AND state=?)');
    expect(page).not.toContain('TEMP B-TREE');
    const after = planOf(view.pageAfter, { ...where, limit: 10, after: 3, baseCount: 100 }).join('\n');
    expect(after).toContain('overlay_newest (sid=? AND cid=? AND state=? AND <expr>>?)');
    expect(after).not.toContain('TEMP B-TREE');
  });

  const shapes: [string, ListShape, AnchorValue[] | undefined][] = [
    ['a filter', { filters: [{ field: 'user_id', op: 'eq', values: [1, 2] }], sort: [] }, undefined],
    ['filters of every operator', { filters: [{ field: 'id', op: 'gt', values: [1] }, { field: 'title', op: 'like', values: ['a'] }, { field: 'user_id', op: 'ne', values: [3] }], sort: [] }, undefined],
    ['a sort', { filters: [], sort: [{ field: 'title', descending: true }] }, undefined],
    ['a sort after a cursor', { filters: [], sort: [{ field: 'title', descending: true }] }, ['x', 5]],
    ['a sort after a cursor with a null key', { filters: [], sort: [{ field: 'title', descending: false }] }, [null, 5]],
    ['a sort after a cursor whose long key changed (a prefix bound)', { filters: [], sort: [{ field: 'body', descending: true }, { field: 'title', descending: false }] }, [{ prefix: 'x' }, 'y', 5]],
    ['a filter and a sort after a cursor', { filters: [{ field: 'user_id', op: 'eq', values: [1] }], sort: [{ field: 'user_id', descending: false }, { field: 'title', descending: true }] }, [1, 'a', 9]],
    ['a default-order filter after a cursor', { filters: [{ field: 'user_id', op: 'eq', values: [1] }], sort: [] }, [4]],
    ['a search', { filters: [], sort: [], match: '"sunt"*' }, undefined],
    ['a search after a cursor', { filters: [], sort: [], match: '"sunt"*' }, [-1.5, 4]],
    ['a search of three words', { filters: [], sort: [], match: '"sunt"* "et"* "qui"*' }, undefined],
    ['a search with a filter and a sort', { filters: [{ field: 'user_id', op: 'eq', values: [1] }], sort: [{ field: 'id', descending: true }], match: '"sunt"*' }, [3, 3]],
  ];
  it.each(shapes)('a list with %s uses the indexes', (_name, shape, anchor) => {
    const compiled = compile(shape, anchor);
    const plan = planOf(compiled.page, { ...compiled.bind, ...where, limit: 10, offset: 0 });
    expectIndexed(plan);
    if (shape.match !== undefined) {
      // the baseline arm reads one collection's rowid range (M = match, >< = range); each term is one range of the sandbox's own terms
      expect(plan.some((line) => /SCAN search_base VIRTUAL TABLE INDEX \d+:M\d+></.test(line)), plan.join('\n')).toBe(true);
      expect(plan.filter((line) => line.includes('search_terms'))).toHaveLength((shape.match.match(/"\*/g) ?? []).length);
    }
  });
});
