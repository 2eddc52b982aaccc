import type { Statement } from 'better-sqlite3';
import { visible } from './merged-view.js';
import type { Sqlite } from './open.js';
import { baseTotalsKey, createQueryTokenizer, matchWords, maxPackedNumber, prefixPhrase, rowidRange } from './search-index.js';

export type Operator = 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte' | 'like';
export type KeyValue = string | number | null;
/**
 * A value a list continues after: a key value, or for a long text whose whole value is no longer
 * known (its record changed or vanished), the prefix it started with.
 */
export type AnchorValue = KeyValue | { prefix: string };

export interface ListShape {
  /** `coerce`: the values are client text, compared as the JSON type each record holds at the field. */
  filters: { field: string; op: Operator; values: (string | number)[]; coerce?: boolean }[];
  /** `scalar`: the field may hold an object or array (open collections), which sorts as missing. */
  sort: { field: string; descending: boolean; scalar?: boolean }[];
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
 * better), for `terms` query terms (`:t0`, `:t1`, ... FTS5 tokens, each matching as a prefix):
 *
 * - its own created and changed records: the ones whose `search_terms` hold every term (each a
 *   range of the primary key within the sandbox's rows), scored by FTS5's bm25 formula, written
 *   out here term by term in FTS5's own order of operations (fts5_aux.c), with the baseline's
 *   statistics, bound: its row and token totals (`:rows`, `:tokens`, from `meta`) and each
 *   term's baseline row count (`:h<i>`), worked out once per baseline (`baselineStats`). k1, b and
 *   the idf floor are bound from JS so they are the same doubles FTS5 compiled in. So an own record scores exactly as the same text would in
 *   the baseline, and no other sandbox's rows are read or counted;
 * - the matching baseline records it has not overlaid, scored by FTS5 itself (`rank`) on the
 *   baseline's own table, read within the collection's rowid range.
 */
function searchVisible(terms: number): string {
  let sql = searchSql.get(terms);
  if (sql === undefined) searchSql.set(terms, (sql = searchVisibleSql(terms)));
  return sql;
}
const searchSql = new Map<number, string>();

function searchVisibleSql(terms: number): string {
  if (terms === 0) return `SELECT 0 AS g, 0 AS k, 0 AS id, '' AS doc, 0.0 AS rank WHERE 0`;
  const range = Array.from({ length: terms }, (_, i) => i);
  const avgdl = `(CASE WHEN :rows > 0 AND :tokens > 0 THEN CAST(:tokens AS REAL) / :rows ELSE 1.0 END)`;
  const idf = (i: number) => `(SELECT CASE WHEN v <= 0.0 THEN :tiny ELSE v END FROM (SELECT ln((coalesce(:rows, 0) - :h${i} + 0.5) / (:h${i} + 0.5)) AS v))`;
  const score = range.map((i) => `${idf(i)} * ((f${i} * (:k1 + 1.0)) / (f${i} + :k1 * (1 - :b + :b * d.count / ${avgdl})))`);
  const hits = range.map(
    (i) => `SELECT ${i} AS i, seq, count FROM search_terms WHERE sid = :sid AND cid = :cid AND term >= :t${i} AND term < :t${i} || char(1114111)`,
  );
  const own = `
    SELECT f.seq AS seq, -1.0 * (0.0 + ${score.join(' + ')}) AS rank
      FROM (SELECT seq, ${range.map((i) => `sum(count) FILTER (WHERE i = ${i}) AS f${i}`).join(', ')}, count(DISTINCT i) AS found
              FROM (${hits.join(' UNION ALL ')}) GROUP BY seq) f
      CROSS JOIN search_terms d ON d.sid = :sid AND d.cid = :cid AND d.term = '' AND d.seq = f.seq
     WHERE f.found = ${terms}`;
  return `
  SELECT 0 AS g, CASE o.state WHEN 1 THEN -o.seq ELSE o.id END AS k, o.id AS id, o.doc AS doc, h.rank AS rank
    FROM (${own}) h
    CROSS JOIN overlay o INDEXED BY overlay_newest ON o.sid = :sid AND o.cid = :cid AND o.state IN (1, 2) AND -o.seq = -h.seq
  UNION ALL
  SELECT 1, b.id, b.id, b.doc, h.rank
    FROM (SELECT rowid AS r, rank FROM search_base WHERE search_base MATCH :match
             AND rowid BETWEEN ${rowidRange.lo('0', ':cid')} AND ${rowidRange.hi('0', ':cid')}) h
    JOIN base b ON b.cid = :cid AND b.id = (h.r & ${maxPackedNumber})
   WHERE NOT EXISTS (SELECT 1 FROM overlay o WHERE o.sid = :sid AND o.cid = :cid AND o.id = b.id)`;
}

/** FTS5's bm25 constants (fts5_aux.c), bound as JS doubles, as the C compiler reads them. */
const bm25 = { k1: 1.2, b: 0.75, tiny: 1e-6 };

const comparison = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;
const maxCachedShapes = 500;
/** The longest query (its filters, sort and search as JSON) whose compiled form is kept whole. */
const maxKeptQuery = 1024;

/** Values worked out from the baseline alone, kept until it may change (`engine/baseline-memo.ts`). */
interface BaselineMemo {
  get<T>(key: string, compute: () => T): T;
}

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
export function createListCompiler(sqlite: Sqlite, baseline: BaselineMemo) {
  const tokenize = createQueryTokenizer(sqlite);
  const cache = new Map<string, Statement>();
  const compiledLists = new Map<string, CompiledList & { terms: string[] }>();
  const countHits = sqlite.prepare(`SELECT count(*) FROM search_base WHERE search_base MATCH ?`).pluck();
  const readTotals = sqlite.prepare(`SELECT value FROM meta WHERE key = '${baseTotalsKey}'`).pluck();

  /**
   * What bm25 needs of the baseline for a sandbox's own records: its row and token totals, and
   * each term's baseline row count (a scan of the term's doclist, ~10 µs each), kept per baseline.
   */
  function baselineStats(terms: string[]): Record<string, number | null> {
    const [rows = null, tokens = null] = baseline.get('search totals', () => {
      const stored = readTotals.get() as string | undefined;
      return stored === undefined ? [] : (JSON.parse(stored) as number[]);
    });
    const stats: Record<string, number | null> = { rows, tokens };
    terms.forEach((term, i) => {
      stats[`h${i}`] = baseline.get(`search hits ${term}`, () => countHits.get(prefixPhrase(term)) as number);
    });
    return stats;
  }

  function compile(shape: ListShape, anchor: AnchorValue[] | undefined, terms: string[]) {
    const bind: Record<string, KeyValue> = {};
    let n = 0;
    const param = (value: KeyValue) => {
      const name = `p${n++}`;
      bind[name] = value;
      return `:${name}`;
    };
    const expr = (field: string) => (field === 'id' ? 'id' : `json_extract(doc, ${param(`$.${field}`)})`);
    const where = shape.filters.map(({ field, op, values, coerce }) => {
      let e: string;
      let value: (v: string | number) => string = param;
      if (coerce) {
        // An open collection's field holds any JSON type, record by record: the client's text is
        // read as that type (`7` a number where it holds a number, `true` a boolean, else text).
        const path = param(`$.${field}`);
        e = `json_extract(doc, ${path})`;
        value = (v) => {
          const text = String(v);
          const number = param(text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : null);
          const boolean = param(text === 'true' ? 1 : text === 'false' ? 0 : null);
          return `(CASE json_type(doc, ${path}) WHEN 'integer' THEN ${number} WHEN 'real' THEN ${number} WHEN 'true' THEN ${boolean} WHEN 'false' THEN ${boolean} ELSE ${param(text)} END)`;
        };
      } else e = expr(field);
      if (op === 'eq') return coerce ? `(${values.map((v) => `${e} = ${value(v)}`).join(' OR ')})` : `${e} IN (${values.map(param).join(', ')})`;
      if (op === 'ne') return values.map((v) => `${e} IS NOT ${value(v)}`).join(' AND ');
      if (op === 'like') return `(${values.map((v) => `instr(unicode_lower(${e}), ${param(String(v).toLowerCase())}) > 0`).join(' OR ')})`;
      return values.map((v) => `${e} ${comparison[op]} ${value(v)}`).join(' AND ');
    });
    let source = visible;
    if (shape.match !== undefined) {
      source = searchVisible(terms.length);
      if (terms.length) {
        Object.assign(bind, bm25, { match: terms.map(prefixPhrase).join(' ') });
        terms.forEach((term, i) => Object.assign(bind, { [`t${i}`]: term }));
      }
    }
    const columns = shape.match !== undefined ? 'k, id, doc, rank' : 'k, id, doc';
    const filtered = `SELECT ${columns} FROM (${source})${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`;

    // An object or array has no order (and no place in a cursor): it sorts as a missing value.
    const scalarOnly = (field: string) => {
      const path = param(`$.${field}`);
      return `(CASE WHEN json_type(doc, ${path}) IN ('object', 'array') THEN NULL ELSE json_extract(doc, ${path}) END)`;
    };
    const keys: OrderKey[] = orderOf(shape).map((key) => ({ ...key, expr: key.field ? (key.scalar ? scalarOnly(key.field) : expr(key.field)) : key.expr }));
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

  /** The statement of a query's shape and its bound values, without the baseline's statistics. */
  function compiled(shape: ListShape, anchor: AnchorValue[] | undefined): CompiledList & { terms: string[] } {
    // Every word's FTS5 terms, each a prefix term that must match (a word the tokenizer splits
    // counts as its parts; one it drops, as FTS5 drops an empty phrase, counts as nothing).
    const terms = shape.match === undefined ? [] : matchWords(shape.match).flatMap(tokenize);
    const { sql, bind } = compile(shape, anchor, terms);
    // Keyed by what decides the SQL's text (names, operators, counts, where the anchor is null or
    // a prefix), not by the text itself: hashing a search's 3 KB of SQL cost more than building it.
    const key = JSON.stringify([
      // A field's path is bound, so only whether it is the id shapes the SQL (open collections name any path).
      shape.filters.map((f) => [f.field === 'id', f.op, f.values.length, f.coerce ? 1 : 0]),
      shape.sort.map((k) => [k.field === 'id', k.descending, k.scalar ? 1 : 0]),
      shape.match === undefined ? -1 : terms.length,
      anchor?.map((v) => (v === null ? 0 : typeof v === 'object' ? 2 : 1)) ?? null,
    ]);
    let page = cache.get(key);
    if (!page) {
      if (cache.size >= maxCachedShapes) cache.delete(cache.keys().next().value!);
      page = sqlite.prepare(sql);
      cache.set(key, page);
    }
    return { page, bind, terms };
  }

  return (shape: ListShape, anchor?: AnchorValue[]): CompiledList => {
    // A first page asked again (the same filters, search and sort: another sandbox, a reload, a
    // cache-busting parameter) takes its statement and values as they were built.
    const exact = anchor === undefined ? JSON.stringify([shape.filters, shape.sort, shape.match ?? null]) : undefined;
    let list = exact === undefined ? undefined : compiledLists.get(exact);
    if (!list) {
      list = compiled(shape, anchor);
      if (exact !== undefined && exact.length <= maxKeptQuery) {
        if (compiledLists.size >= maxCachedShapes) compiledLists.delete(compiledLists.keys().next().value!);
        compiledLists.set(exact, list);
      }
    }
    return shape.match === undefined || !list.terms.length ? list : { page: list.page, bind: { ...list.bind, ...baselineStats(list.terms) } };
  };
}

/**
 * The order a list is walked in: the sort fields then id, or (searching) rank then k, or k (the
 * default order). A field key's expression is built by the compiler, which binds its path.
 */
function orderOf(shape: ListShape): (OrderKey & { field?: string; scalar?: boolean })[] {
  const key = (expr: string) => ({ expr, descending: false, nullable: false });
  if (shape.sort.length) {
    return [...shape.sort.map(({ field, descending, scalar }) => ({ field, scalar, expr: '', descending, nullable: field !== 'id' })), key('id')];
  }
  return shape.match !== undefined ? [key('rank'), key('k')] : [key('k')];
}

/** How many values a cursor of this shape carries: one per order key. */
export function orderKeyCount(shape: ListShape): number {
  return orderOf(shape).length;
}
