import type { Sqlite } from './open.js';

/**
 * The full-text index over every collection's searchable fields, built so that a sandbox's
 * search depends only on the baseline and its own changes (contract section 12).
 *
 * - The baseline lives in its own contentless FTS5 table, `search_base`, whose rowid packs the
 *   record (`cid << 24 | id`), so `rowid BETWEEN lo AND hi` reads one collection. FTS5's bm25
 *   there uses the baseline's statistics: its row count, average length and, per query term,
 *   the number of baseline rows that hold it.
 * - A sandbox's own records (created and changed, keyed by the overlay row's `seq`) live in two
 *   plain table, `search_terms` (sid, cid, term, seq, count, terms): the record's terms as FTS5's
 *   tokenizer makes them with how often each occurs, and under the term '' its length in tokens
 *   and its terms as a JSON array (to delete them). Matching a prefix term is a
 *   range of the primary key within the sandbox's own rows, and the list compiler scores those
 *   rows with FTS5's bm25 formula in SQL, fed the baseline's statistics (`search_base_totals`
 *   in `meta`, and the term counts of `search_base`). So another sandbox's rows are never read,
 *   never counted, and a reset drops the sandbox's rows with one range statement per table.
 *
 * Terms come from FTS5's own tokenizer (`unicode61 remove_diacritics 2`): text goes through a
 * scratch FTS5 table in the connection's temp schema and is read back through an `fts5vocab`
 * instance table, so the overlay's terms are exactly what the baseline's index holds.
 */
const tokenizer = `tokenize = 'unicode61 remove_diacritics 2'`;

/** The one table drizzle cannot declare (it has no virtual tables), so raw SQL; `search_terms` is in schema.ts. */
export const searchDdl = `
CREATE VIRTUAL TABLE IF NOT EXISTS search_base USING fts5(text, content = '', contentless_delete = 1, ${tokenizer});`;

/** Per connection: the scratch table that runs the tokenizer, and its instance view. */
const scratchDdl = `
CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_scratch USING fts5(text, content = '', contentless_delete = 1, ${tokenizer});
CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_scratch_terms USING fts5vocab(temp, search_scratch, instance);`;

/** What the index needs of a collection: its number and the fields it searches. */
export interface Searchable {
  cid: number;
  searchable: string[];
}

/**
 * Per-sandbox custom collections are numbered from here up (core and config-declared ones below),
 * so the index can tell their rows apart without a lookup.
 */
export const customCidBase = 2 ** 20;

/** n must fit in 24 bits (baseline ids and a sandbox's write counter). */
export const maxPackedNumber = 2 ** 24 - 1;

/**
 * The SQL for a packed rowid, `sid << 32 | cid << 24 | n`, computed by SQLite in 64-bit integers
 * (JS numbers would bind as REAL). Every shift is bracketed: SQLite gives `<<` and `|` the same
 * precedence. `search_base` uses sid 0; the scratch table packs all three to rebuild many rows at once.
 */
const packed = (sid: string, cid: string, n: string) => `(((${sid}) << 32) | ((${cid}) << 24) | (${n}))`;
/** A scratch row's rowid: the sandbox and the overlay row's seq (the collection is bound when it is stored). */
const scratchRowid = (sid: string, n: string) => `(((${sid}) << 24) | (${n}))`;
export const rowidRange = {
  lo: (sid: string, cid: string) => packed(sid, cid, '0'),
  hi: (sid: string, cid: string) => packed(sid, cid, String(maxPackedNumber)),
};

/** The `meta` key holding the baseline's `[rows, tokens]`, as FTS5 counts them for bm25. */
export const baseTotalsKey = 'search_base_totals';

/** `searchable: ['*']`: every string value of the record, nested ones too, but its `id` and `_sandbox` (custom collections). */
export const everyString = '*';

/** The text indexed for a record: its searchable fields (dotted paths allowed), space separated. */
export function searchText(fields: string[], record: Record<string, unknown>): string {
  const parts: string[] = [];
  if (fields[0] === everyString) {
    // Depth first, in key order, without recursion: a record stored deep must not overflow the stack.
    const stack = Object.entries(record)
      .filter(([key]) => key !== 'id' && key !== '_sandbox')
      .map(([, value]) => value)
      .reverse();
    while (stack.length) {
      const value = stack.pop();
      if (typeof value === 'string') parts.push(value);
      else if (value && typeof value === 'object') stack.push(...Object.values(value).reverse());
    }
    return parts.join(' ');
  }
  for (const field of fields) {
    let value: unknown = record;
    for (const key of field.split('.')) value = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
    if (typeof value === 'string' || typeof value === 'number') parts.push(String(value));
  }
  return parts.join(' ');
}

/** The same text, computed in SQL from a stored doc (for rebuilds). */
function searchTextSql(fields: string[]): string {
  if (!fields.length) return `''`;
  if (fields[0] === everyString) {
    return `coalesce((SELECT group_concat(value, ' ') FROM json_tree(doc) WHERE type = 'text' AND fullkey NOT IN ('$.id', '$._sandbox')), '')`;
  }
  return `concat_ws(' ', ${fields.map((f) => `json_extract(doc, '$.${f.replace(/'/g, "''")}')`).join(', ')})`;
}

/**
 * A rebuild statement: `INSERT INTO <into> (rowid, text) SELECT <rowid>, <text> FROM <from>`, the
 * text made by SQLite's JSON functions. Those refuse a doc nested past 1,000 levels (a record
 * stored before records were bounded), which would fail the whole statement and with it `serve`,
 * a reset or an import; so such rows (`json_valid` is 0) are read back and their text is made
 * in JS instead. Records are bounded now, so that list is normally empty.
 */
function rebuildStatement(sqlite: Sqlite, fields: string[], into: string, rowid: string, from: string) {
  const insert = sqlite.prepare(`INSERT INTO ${into} (rowid, text) SELECT ${rowid}, ${searchTextSql(fields)} FROM ${from} AND json_valid(doc)`);
  const unreadable = sqlite.prepare(`SELECT ${rowid} AS rowid, doc FROM ${from} AND NOT json_valid(doc)`).safeIntegers(true);
  const put = sqlite.prepare(`INSERT INTO ${into} (rowid, text) VALUES (?, ?)`);
  return {
    run(...params: [Record<string, unknown>?]): void {
      insert.run(...params);
      for (const row of unreadable.all(...params) as { rowid: bigint; doc: string }[]) put.run(row.rowid, textOf(fields, row.doc));
    },
  };
}

/** A stored doc's search text, made in JS; a doc JSON cannot read either has none. */
function textOf(fields: string[], doc: string): string {
  try {
    return searchText(fields, JSON.parse(doc) as Record<string, unknown>);
  } catch {
    return '';
  }
}

/**
 * Moves whatever the scratch table holds into `search_terms` (its rowids packed
 * as sid and seq; the collection number is bound, so any number fits) and empties it: one set of
 * statements for one record or a whole rebuild of one collection.
 */
function scratchStatements(sqlite: Sqlite) {
  sqlite.exec(scratchDdl);
  const doc = { sid: 'doc >> 24', cid: ':cid', seq: `doc & ${maxPackedNumber}` };
  const terms = sqlite.prepare(
    `INSERT INTO search_terms (sid, cid, term, seq, count)
     SELECT ${doc.sid}, ${doc.cid}, term, ${doc.seq}, count(*) FROM temp.search_scratch_terms GROUP BY doc, term`,
  );
  const docs = sqlite.prepare(
    `INSERT INTO search_terms (sid, cid, term, seq, count, terms)
     SELECT ${doc.sid}, ${doc.cid}, '', ${doc.seq}, count(*), json_group_array(DISTINCT term) FROM temp.search_scratch_terms GROUP BY doc`,
  );
  const clear = sqlite.prepare(`INSERT INTO temp.search_scratch (search_scratch) VALUES ('delete-all')`);
  return {
    put: sqlite.prepare(`INSERT INTO temp.search_scratch (rowid, text) VALUES (:rowid, :text)`),
    store(cid: number): void {
      terms.run({ cid });
      docs.run({ cid });
      clear.run();
    },
    clear,
    tokens: sqlite.prepare(`SELECT term FROM temp.search_scratch_terms ORDER BY offset`).pluck(),
  };
}

/** Writes to the index. Callers run these inside their own write transaction. */
export function createSearchIndex(sqlite: Sqlite, collections: Searchable[]) {
  const scratch = scratchStatements(sqlite);
  const base = {
    put: sqlite.prepare(`INSERT OR REPLACE INTO search_base (rowid, text) VALUES (${packed('0', ':cid', ':n')}, :text)`),
    remove: sqlite.prepare(`DELETE FROM search_base WHERE rowid = ${packed('0', ':cid', ':n')}`),
    clear: sqlite.prepare(`INSERT INTO search_base (search_base) VALUES ('delete-all')`),
    // FTS5 writes its own totals (the averages record) only at commit; each row's size is written at once.
    sizes: sqlite.prepare(`SELECT sz FROM search_base_docsize`).pluck(),
    writeTotals: sqlite.prepare(`INSERT INTO meta (key, value) VALUES ('${baseTotalsKey}', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`),
  };
  const own = {
    scratch: sqlite.prepare(`INSERT INTO temp.search_scratch (rowid, text) VALUES (${scratchRowid(':sid', ':n')}, :text)`),
    // The record's terms and its '' row (length and terms) in one statement each way.
    put: sqlite.prepare(
      `INSERT INTO search_terms (sid, cid, term, seq, count, terms)
       SELECT :sid, :cid, key, :n, value, NULL FROM json_each(:counts) UNION ALL SELECT :sid, :cid, '', :n, :length, :terms`,
    ),
    remove: sqlite.prepare(
      `DELETE FROM search_terms WHERE sid = :sid AND cid = :cid AND seq = :n
          AND term IN (SELECT value FROM json_each((SELECT terms FROM search_terms WHERE sid = :sid AND cid = :cid AND term = '' AND seq = :n)) UNION ALL SELECT '')`,
    ),
    forget: sqlite.prepare(`DELETE FROM search_terms WHERE sid = :sid`),
  };
  const readVersion = sqlite.prepare(`SELECT value FROM meta WHERE key = 'search_index'`).pluck();
  const writeVersion = sqlite.prepare(`INSERT INTO meta (key, value) VALUES ('search_index', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`);
  // The layout is part of it: files indexed the old ways (one shared FTS5 table) are rebuilt.
  const fingerprint = JSON.stringify(['baseline-stats-v3', 'docs-in-terms', collections.map((c) => [c.cid, c.searchable])]);
  const scratchTable = 'temp.search_scratch';
  const reindexRows = collections.map((c) => ({
    baseline: rebuildStatement(sqlite, c.searchable, 'search_base', packed('0', String(c.cid), 'id'), `base WHERE cid = ${c.cid}`),
    sandbox: rebuildStatement(sqlite, c.searchable, scratchTable, scratchRowid('sid', 'seq'), `overlay WHERE sid = :sid AND cid = ${c.cid} AND state IN (1, 2)`),
    everySandbox: rebuildStatement(sqlite, c.searchable, scratchTable, scratchRowid('sid', 'seq'), `overlay WHERE cid = ${c.cid} AND state IN (1, 2)`),
  }));
  // Custom collections (numbers from customCidBase up) index every string value of their records.
  const custom = {
    cids: sqlite.prepare(`SELECT DISTINCT cid FROM overlay WHERE sid = :sid AND cid >= ${customCidBase}`).pluck(),
    everyCid: sqlite.prepare(`SELECT DISTINCT cid FROM overlay WHERE cid >= ${customCidBase}`).pluck(),
    rows: rebuildStatement(
      sqlite,
      [everyString],
      scratchTable,
      scratchRowid('sid', 'seq'),
      `overlay WHERE cid = :cid AND (:sid IS NULL OR sid = :sid) AND state IN (1, 2)`,
    ),
  };
  /** Indexes the custom collections' rows of one sandbox, or of every sandbox (sid null). */
  function reindexCustom(sid: number | null): void {
    for (const cid of (sid === null ? custom.everyCid.all() : custom.cids.all({ sid })) as number[]) {
      custom.rows.run({ cid, sid });
      scratch.store(cid);
    }
  }

  /**
   * Stores the baseline's totals as FTS5's bm25 reads them (row count and token count, from the
   * size FTS5 keeps of each row) where the list SQL reads them. Baseline writes are rare (a
   * fixtures load), so summing every row's size then is cheap enough.
   */
  function saveTotals(): void {
    let rows = 0;
    let tokens = 0;
    for (const size of base.sizes.iterate() as Iterable<Buffer>) {
      rows++;
      tokens += readVarint(size);
    }
    base.writeTotals.run(JSON.stringify([rows, tokens]));
  }

  /** Fills the scratch table one collection at a time and stores each (the scratch rows carry no collection). */
  function reindexCollections(fill: (rows: (typeof reindexRows)[number]) => void): void {
    reindexRows.forEach((rows, i) => {
      fill(rows);
      scratch.store(collections[i]!.cid);
    });
  }

  function forgetOwn(sid: number): void {
    own.forget.run({ sid });
  }

  const index = {
    /** Indexes (or re-indexes) one record of a sandbox (sid > 0) or of the baseline (sid 0); `fresh`: `n` was never indexed. */
    put(sid: number, cid: number, n: number, text: string, fresh = false): void {
      if (sid === 0) {
        base.put.run({ cid, n, text });
        saveTotals();
        return;
      }
      if (!fresh) own.remove.run({ sid, cid, n });
      const counts = asciiTerms(text);
      if (!counts) {
        own.scratch.run({ sid, n, text });
        scratch.store(cid);
      } else if (counts.size) {
        own.put.run({
          sid,
          cid,
          n,
          counts: JSON.stringify(Object.fromEntries(counts)),
          length: [...counts.values()].reduce((a, b) => a + b, 0),
          terms: JSON.stringify([...counts.keys()]),
        });
      }
    },
    remove(sid: number, cid: number, n: number): void {
      if (sid === 0) {
        base.remove.run({ cid, n });
        saveTotals();
        return;
      }
      own.remove.run({ sid, cid, n });
    },
    /** Drops every row of a sandbox (sid > 0: one range statement per table) or of the baseline (sid 0). */
    forget(sid: number): void {
      if (sid === 0) {
        base.clear.run();
        saveTotals();
        return;
      }
      forgetOwn(sid);
    },
    /** Rebuilds a sandbox's rows from its overlay (after import or snapshot restore). */
    reindexSandbox(sid: number): void {
      forgetOwn(sid);
      reindexCollections((c) => c.sandbox.run({ sid }));
      reindexCustom(sid);
    },
    /** Rebuilds the baseline's rows from `base` (after the fixtures were loaded). */
    reindexBaseline(): void {
      base.clear.run();
      for (const rows of reindexRows) rows.baseline.run();
      saveTotals();
    },
    /** Rebuilds everything when the file's index was built for other searchable fields or another layout (or never). */
    ensureBuilt(): void {
      if (readVersion.get() === fingerprint) return;
      sqlite.transaction(() => {
        sqlite.exec(`DROP TABLE IF EXISTS search; DELETE FROM search_terms;`);
        scratch.clear.run();
        index.reindexBaseline();
        reindexCollections((c) => c.everySandbox.run());
        reindexCustom(null);
        writeVersion.run(fingerprint);
      }).immediate();
    },
  };
  return index;
}

export type SearchIndex = ReturnType<typeof createSearchIndex>;

/**
 * The terms of an ASCII-only text and how often each occurs, as `unicode61` makes them without
 * asking SQLite (about 40 µs saved a write): in the ASCII range its token characters are exactly
 * the letters and digits (categories L* and N*), folded to lower case. Undefined for any other
 * text, which goes through FTS5's tokenizer (a unit test holds the two to the same answers).
 */
export function asciiTerms(text: string): Map<string, number> | undefined {
  if (!/^[\x00-\x7f]*$/.test(text)) return undefined;
  const counts = new Map<string, number>();
  for (const term of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) counts.set(term, (counts.get(term) ?? 0) + 1);
  return counts;
}

/** The first varint of an FTS5 record (SQLite's format: 7 bits a byte, big-endian, a 9th byte of 8). */
function readVarint(block: Buffer): number {
  let value = 0;
  for (let i = 0; i < 9 && i < block.length; i++) {
    const byte = block[i]!;
    if (i === 8) return value * 256 + byte;
    value = value * 128 + (byte & 0x7f);
    if (!(byte & 0x80)) break;
  }
  return value;
}

/**
 * The tokenizer for query words (FTS5's own, through the scratch table), with the last answers
 * kept: each search needs its words' terms to read `search_terms`.
 */
export function createQueryTokenizer(sqlite: Sqlite, maxCached = 2000) {
  const scratch = scratchStatements(sqlite);
  const cache = new Map<string, string[]>();
  return (word: string): string[] => {
    let terms = cache.get(word);
    if (terms) return terms;
    const ascii = asciiTerms(word);
    if (ascii) terms = [...ascii.keys()];
    else {
      scratch.put.run({ rowid: 1, text: word });
      terms = scratch.tokens.all() as string[];
      scratch.clear.run();
    }
    if (cache.size >= maxCached) cache.delete(cache.keys().next().value!);
    cache.set(word, terms);
    return terms;
  };
}

/** The words of client text as the tokenizer sees them: runs of letters and digits. */
export function searchWords(text: string): string[] {
  return text.normalize('NFKC').match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Client text → an FTS5 query that treats every character as text: each word a quoted prefix term. */
export function toMatchQuery(text: string, maxTerms = 32): string | undefined {
  const words = searchWords(text);
  if (!words.length) return undefined;
  return words
    .slice(0, maxTerms)
    .map((word) => `"${word}"*`)
    .join(' ');
}

/** The words of a query made by `toMatchQuery`, back again. */
export function matchWords(match: string): string[] {
  return [...match.matchAll(/"([^"]*)"\*/g)].map((m) => m[1]!);
}

/** A term as an FTS5 prefix phrase (terms hold no quotes, but any would be doubled). */
export const prefixPhrase = (term: string) => `"${term.replace(/"/g, '""')}"*`;
