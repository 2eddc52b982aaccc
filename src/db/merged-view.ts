import type { Statement } from 'better-sqlite3';
import type { Sqlite } from './open.js';

/**
 * The copy-on-write merge, in SQL. drizzle cannot express it (a UNION ALL over a LEFT JOIN with
 * a computed sort group), so this is the one place that writes it.
 *
 * A sandbox's view of collection `cid` is:
 *   - its created records (overlay state 1), newest first (key -seq, always negative);
 *   - every baseline record, replaced by the sandbox's changed copy (state 2) and hidden by its
 *     tombstone (state 3), by id (key id, always positive).
 * A sandbox id that holds no data (sid 0, never allocated) sees the plain baseline.
 * Pages are built as one JSON text in SQLite from the stored JSON: no parse, no re-serialise.
 * `INDEXED BY`: without statistics the planner reads the created arm through the primary key,
 * every changed and deleted row of the sandbox included. `overlay_newest` holds the rows by state
 * and `-seq`, the created arm's key itself, so the arm comes out of the index already in page
 * order and merges with the baseline's; ordered by `seq` it was sorted first, 14 times slower
 * for a page of a sandbox's 100 created records (a unit test checks the plans).
 */
export const visible = `
  SELECT 0 AS g, -o.seq AS k, o.id AS id, o.doc AS doc
    FROM overlay o INDEXED BY overlay_newest WHERE o.sid = :sid AND o.cid = :cid AND o.state = 1
  UNION ALL
  SELECT 1, b.id, b.id, coalesce(o.doc, b.doc)
    FROM base b LEFT JOIN overlay o ON o.sid = :sid AND o.cid = b.cid AND o.id = b.id
   WHERE b.cid = :cid AND (o.state IS NULL OR o.state = 2)`;

/** The same view restricted to keys after a cursor's: `k > :after` pushed into each arm. */
const visibleAfter = `
  SELECT 0 AS g, -o.seq AS k, o.id AS id, o.doc AS doc
    FROM overlay o INDEXED BY overlay_newest WHERE o.sid = :sid AND o.cid = :cid AND o.state = 1 AND -o.seq > :after
  UNION ALL
  SELECT 1, b.id, b.id, coalesce(o.doc, b.doc)
    FROM base b LEFT JOIN overlay o ON o.sid = :sid AND o.cid = b.cid AND o.id = b.id
   WHERE b.cid = :cid AND b.id > :after AND (o.state IS NULL OR o.state = 2)`;

/** Bounds what one embed can add to a page. */
export const maxRelated = 10_000;

/**
 * Records in the sandbox's view: the baseline's (`:baseCount`, counted once per baseline: a count
 * over the base table reads every leaf page of the collection's docs, 3-5 µs for 100 posts), plus
 * created, minus deleted.
 */
const countSql = `SELECT :baseCount
  + (SELECT count(*) FROM overlay INDEXED BY overlay_newest WHERE sid = :sid AND cid = :cid AND state = 1)
  - (SELECT count(*) FROM overlay INDEXED BY overlay_newest WHERE sid = :sid AND cid = :cid AND state = 3)`;

export interface MergedViewStatements {
  /** `{json, last, total}` for one page in default order: the docs as one JSON array text, the last row's key, the records in all. */
  page: Statement<{ sid: number; cid: number; limit: number; offset: number; baseCount: number }>;
  /** The same page after a cursor's key (`k > after`), each arm walking its own index, plus `remaining` from there on. */
  pageAfter: Statement<{ sid: number; cid: number; limit: number; after: number; baseCount: number }>;
  /** The baseline's records in collection `cid` (kept in the baseline memo). */
  baseCount: Statement<[number]>;
  /** `{state, seq, doc}` of one record as the sandbox sees it; state 0 (seq 0) = untouched baseline. */
  get: Statement<{ sid: number; cid: number; id: number | string }>;
  /** Another visible record whose field equals the value, case-insensitively (unique fields). */
  duplicate: Statement<{ sid: number; cid: number; path: string; value: string; id: number | string | null }>;
  /** Live created records of the sandbox in the collection (the quota). */
  createdCount: Statement<{ sid: number; cid: number }>;
  /** Docs whose field (`path`, e.g. `$.post_id`) is one of `values` (a JSON array), default order: batched embeds. */
  relatedByField: Statement<{ sid: number; cid: number; path: string; values: string }>;
  /** Docs whose id is one of `values` (a JSON array). */
  relatedById: Statement<{ sid: number; cid: number; values: string }>;
}

export function prepareMergedView(sqlite: Sqlite): MergedViewStatements {
  return {
    // One statement a page (page, total and the count after a cursor): each statement on a WAL
    // file takes and releases a shared lock, a few µs of system calls.
    page: sqlite.prepare(
      // Ordering the compound itself by k (created: -seq < 0 < baseline id) lets SQLite merge
      // the two arms, the baseline arm in primary-key order: ~12 µs a page at any size,
      // against ~110 µs when the union is sorted as a whole. `LIMIT (? + 0)`: see PERF-NOTES.
      `SELECT '[' || coalesce(group_concat(doc, ','), '') || ']' AS json, max(k) AS last, (${countSql}) AS total FROM (${visible}
         ORDER BY 2 LIMIT (:limit + 0) OFFSET (:offset + 0))`,
    ),
    pageAfter: sqlite.prepare(
      `SELECT '[' || coalesce(group_concat(doc, ','), '') || ']' AS json, max(k) AS last, (${countSql}) AS total,
              (SELECT count(*) FROM (${visibleAfter})) AS remaining FROM (${visibleAfter}
         ORDER BY 2 LIMIT (:limit + 0))`,
    ),
    baseCount: sqlite.prepare(`SELECT count(*) FROM base WHERE cid = ?`).pluck(),
    get: sqlite.prepare(
      `SELECT coalesce(o.state, 0) AS state, coalesce(o.seq, 0) AS seq, coalesce(o.doc, b.doc) AS doc
         FROM (SELECT :id AS id) k
         LEFT JOIN overlay o ON o.sid = :sid AND o.cid = :cid AND o.id = k.id
         LEFT JOIN base b ON b.cid = :cid AND b.id = k.id
        WHERE o.state IS NOT NULL OR b.id IS NOT NULL`,
    ),
    duplicate: sqlite
      .prepare(
        `SELECT id FROM (${visible})
          WHERE lower(json_extract(doc, :path)) = lower(:value) AND id IS NOT :id LIMIT 1`,
      )
      .pluck(),
    createdCount: sqlite.prepare(`SELECT count(*) FROM overlay WHERE sid = :sid AND cid = :cid AND state = 1`).pluck(),
    relatedByField: sqlite
      .prepare(`SELECT doc FROM (${visible}) WHERE json_extract(doc, :path) IN (SELECT value FROM json_each(:values)) ORDER BY k LIMIT ${maxRelated}`)
      .pluck(),
    relatedById: sqlite
      .prepare(`SELECT doc FROM (${visible}) WHERE id IN (SELECT value FROM json_each(:values)) ORDER BY k LIMIT ${maxRelated}`)
      .pluck(),
  };
}
