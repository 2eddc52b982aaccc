import type { Statement } from 'better-sqlite3';
import { visible } from './merged-view.js';
import type { Sqlite } from './open.js';
import { maxPackedNumber, rowidRange } from './search-index.js';

export type Operator = 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte' | 'like';
export type KeyValue = string | number | null;
/**
 * A value a list continues after: a key value, or for a long text whose whole value is no longer
 * known (its record changed or vanished), the prefix it started with.
 */
export type AnchorValue = KeyValue | { prefix: string };

export interface ListShape {
  filters: { field: string; op: Operator; values: (string | number)[] }[];
  sort: { field: string; descending: boolean }[];
  /** An FTS5 query already made safe by `toMatchQuery`; restricts to matches, best first. */
  match?: string;
}

/** One key of the order a list is walked in; a cursor holds the last row's value of each. */
interface OrderKey {
  expr: string;
  descending: boolean;
  /** Sort fields may be missing from a doc; k, id and rank never are. */
  nullable: boolean;
}

/**
 * The search hits a sandbox sees, in the shape of the merged view plus `rank` (bm25, lower is
 * better): its own created and changed records that match (from its rowid range of the index),
 * and matching baseline records it has not overlaid (changed or deleted). Each FTS scan is
 * limited to one rowid range, so other sandboxes' rows are never read; the sandbox's scan is
 * skipped (a constant condition, checked before it) when the sandbox changed nothing here.
 */
const searchVisible = `
  SELECT 0 AS g, CASE o.state WHEN 1 THEN -o.seq ELSE o.id END AS k, o.id AS id, o.doc AS doc, h.rank AS rank
    FROM (SELECT rowid AS r, rank FROM search WHERE search MATCH :match
             AND rowid BETWEEN ${rowidRange.lo(':sid', ':cid')} AND ${rowidRange.hi(':sid', ':cid')}
             AND EXISTS (SELECT 1 FROM overlay INDEXED BY overlay_by_state WHERE sid = :sid AND cid = :cid AND state IN (1, 2))) h
    JOIN overlay o INDEXED BY overlay_by_state ON o.sid = :sid AND o.cid = :cid AND o.state IN (1, 2) AND o.seq = (h.r & ${maxPackedNumber})
  UNION ALL
  SELECT 1, b.id, b.id, b.doc, h.rank
    FROM (SELECT rowid AS r, rank FROM search WHERE search MATCH :match
             AND rowid BETWEEN ${rowidRange.lo('0', ':cid')} AND ${rowidRange.hi('0', ':cid')}) h
    JOIN base b ON b.cid = :cid AND b.id = (h.r & ${maxPackedNumber})
   WHERE NOT EXISTS (SELECT 1 FROM overlay o WHERE o.sid = :sid AND o.cid = :cid AND o.id = b.id)`;

const comparison = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;
const maxCachedShapes = 500;

export interface CompiledList {
  /**
   * `{json, keys, total, remaining?}`: the page as one JSON array text, each row's order key as
   * JSON joined by U+001E, the records matching in all, and (after a cursor) those from the
   * page's first on.
   */
  page: Statement;
  bind: Record<string, KeyValue>;
}

/**
 * Filtered, searched and sorted lists over the merged view, optionally starting after a cursor's
 * anchor (keyset pagination). Field names come from the collection's definition, never from the
 * client, and every value is bound; statements are prepared once per query shape and kept in a
 * bounded cache.
 */
export function createListCompiler(sqlite: Sqlite) {
  const rankNow = sqlite.prepare(`SELECT rank FROM (${searchVisible}) WHERE k = :k`).pluck();
  const cache = new Map<string, Statement>();

  function compile(shape: ListShape, anchor: AnchorValue[] | undefined) {
    const bind: Record<string, KeyValue> = {};
    let n = 0;
    const param = (value: KeyValue) => {
      const name = `p${n++}`;
      bind[name] = value;
      return `:${name}`;
    };
    const expr = (field: string) => (field === 'id' ? 'id' : `json_extract(doc, ${param(`$.${field}`)})`);
    const where = shape.filters.map(({ field, op, values }) => {
      const e = expr(field);
      if (op === 'eq') return `${e} IN (${values.map(param).join(', ')})`;
      if (op === 'ne') return values.map((v) => `${e} IS NOT ${param(v)}`).join(' AND ');
      if (op === 'like') return `(${values.map((v) => `instr(lower(${e}), lower(${param(v)})) > 0`).join(' OR ')})`;
      return values.map((v) => `${e} ${comparison[op]} ${param(v)}`).join(' AND ');
    });
    if (shape.match !== undefined) bind.match = shape.match;
    const source = shape.match !== undefined ? searchVisible : visible;
    const columns = shape.match !== undefined ? 'k, id, doc, rank' : 'k, id, doc';
    const filtered = `SELECT ${columns} FROM (${source})${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`;

    const keys: OrderKey[] = orderOf(shape).map((key) => ({ ...key, expr: key.field ? expr(key.field) : key.expr }));
    const order = keys.map((key) => `${key.expr} ${key.descending ? 'DESC' : 'ASC'}`).join(', ');

    let after = '';
    if (anchor) {
      // A prefix bound ends the key there: rows at or after any value with that prefix (and the
      // rest of the key unknown) follow. Ascending, the prefix itself sorts first; descending,
      // everything below it or starting with it (then NULLs, which sort last descending).
      const cut = anchor.findIndex((v) => v !== null && typeof v === 'object');
      const used = cut < 0 ? keys.length : cut + 1;
      const values = anchor.slice(0, used).map((v) => (v === null ? null : param(typeof v === 'object' ? v.prefix : v)));
      const beyond = (key: OrderKey, value: string | null, i: number) => {
        if (i === cut) {
          if (!key.descending) return `${key.expr} >= ${value}`;
          return `(${key.expr} < ${value} OR substr(${key.expr}, 1, length(${value})) = ${value}${key.nullable ? ` OR ${key.expr} IS NULL` : ''})`;
        }
        if (value === null) return key.descending ? '0' : `${key.expr} IS NOT NULL`; // NULLs sort first ascending
        if (key.descending) return key.nullable ? `(${key.expr} < ${value} OR ${key.expr} IS NULL)` : `${key.expr} < ${value}`;
        return `${key.expr} > ${value}`;
      };
      const branches = keys.slice(0, used).map((key, i) => {
        const equal = keys.slice(0, i).map((k, j) => (values[j] === null ? `${k.expr} IS NULL` : `${k.expr} IS ${values[j]}`));
        return [...equal, beyond(key, values[i]!, i)].join(' AND ');
      });
      after = ` WHERE (${branches.map((b) => `(${b})`).join(' OR ')})`;
    }

    // One statement: the matching rows are computed once (MATERIALIZED) and serve the page, the
    // total and the count after the cursor; separate count queries ran the search twice.
    const page = `SELECT doc, json_array(${keys.map((k) => k.expr).join(', ')}) AS c FROM matching${after}
                   ORDER BY ${order} LIMIT (:limit + 0) OFFSET (:offset + 0)`;
    return {
      sql: `WITH matching AS MATERIALIZED (${filtered})
            SELECT '[' || coalesce(group_concat(doc, ','), '') || ']' AS json, group_concat(c, char(30)) AS keys,
                   (SELECT count(*) FROM matching) AS total${anchor ? `, (SELECT count(*) FROM matching${after}) AS remaining` : ''}
              FROM (${page})`,
      bind,
    };
  }

  return (shape: ListShape, anchor?: AnchorValue[], where?: { sid: number; cid: number }): CompiledList => {
    if (anchor && where && shape.match !== undefined && !shape.sort.length) {
      // Ranks move as the index changes: continue from the anchor record's rank now, if it still matches.
      const rank = rankNow.get({ ...where, match: shape.match, k: anchor[1] }) as number | undefined;
      if (rank !== undefined) anchor = [rank, anchor[1]];
    }
    const { sql, bind } = compile(shape, anchor);
    let page = cache.get(sql);
    if (!page) {
      if (cache.size >= maxCachedShapes) cache.delete(cache.keys().next().value!);
      page = sqlite.prepare(sql);
      cache.set(sql, page);
    }
    return { page, bind };
  };
}

/**
 * The order a list is walked in: the sort fields then id, or (searching) rank then k, or k (the
 * default order). A field key's expression is built by the compiler, which binds its path.
 */
function orderOf(shape: ListShape): (OrderKey & { field?: string })[] {
  const key = (expr: string) => ({ expr, descending: false, nullable: false });
  if (shape.sort.length) {
    return [...shape.sort.map(({ field, descending }) => ({ field, expr: '', descending, nullable: field !== 'id' })), key('id')];
  }
  return shape.match !== undefined ? [key('rank'), key('k')] : [key('k')];
}

/** How many values a cursor of this shape carries: one per order key. */
export function orderKeyCount(shape: ListShape): number {
  return orderOf(shape).length;
}
