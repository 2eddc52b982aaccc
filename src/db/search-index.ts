import type { Sqlite } from './open.js';

/**
 * The full-text index (FTS5) over every collection's searchable fields, baseline and overlays.
 *
 * One contentless table (`content=''`, `contentless_delete=1`): it stores the index only, never
 * the text, and each row's rowid packs where the record lives:
 *
 *     rowid = sid << 32 | cid << 24 | n
 *
 * where sid 0 is the baseline (n = the record's id) and any other sid is a sandbox (n = the
 * overlay row's `seq`, stable while the row exists). So `rowid BETWEEN lo AND hi` jumps straight
 * to one sandbox's rows of one collection, and a reset drops a sandbox's rows in one statement.
 */
export const searchDdl = `
CREATE VIRTUAL TABLE IF NOT EXISTS search USING fts5(
  text, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2'
);`;

/** What the index needs of a collection: its number and the fields it searches. */
export interface Searchable {
  cid: number;
  searchable: string[];
}

/** n must fit in 24 bits (baseline ids and a sandbox's write counter). */
export const maxPackedNumber = 2 ** 24 - 1;

/**
 * The SQL for the packed rowid, computed by SQLite in 64-bit integers (JS numbers would bind as
 * REAL). Every shift is bracketed: SQLite gives `<<` and `|` the same precedence.
 */
const packed = (sid: string, cid: string, n: string) => `(((${sid}) << 32) | ((${cid}) << 24) | (${n}))`;
export const rowidRange = {
  lo: (sid: string, cid: string) => packed(sid, cid, '0'),
  hi: (sid: string, cid: string) => packed(sid, cid, String(maxPackedNumber)),
};

/** The text indexed for a record: its searchable fields (dotted paths allowed), space separated. */
export function searchText(fields: string[], record: Record<string, unknown>): string {
  const parts: string[] = [];
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
  return `concat_ws(' ', ${fields.map((f) => `json_extract(doc, '$.${f.replace(/'/g, "''")}')`).join(', ')})`;
}

/** Writes to the index. Callers run these inside their own write transaction. */
export function createSearchIndex(sqlite: Sqlite, collections: Searchable[]) {
  const put = sqlite.prepare(`INSERT OR REPLACE INTO search (rowid, text) VALUES (${packed(':sid', ':cid', ':n')}, :text)`);
  const remove = sqlite.prepare(`DELETE FROM search WHERE rowid = ${packed(':sid', ':cid', ':n')}`);
  const forget = sqlite.prepare(`DELETE FROM search WHERE rowid BETWEEN ${packed(':sid', '0', '0')} AND ${packed(':sid', '255', String(maxPackedNumber))}`);
  const readVersion = sqlite.prepare(`SELECT value FROM meta WHERE key = 'search_index'`).pluck();
  const writeVersion = sqlite.prepare(`INSERT INTO meta (key, value) VALUES ('search_index', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`);
  // The layout version is part of it: files indexed with the old (mis-bracketed) rowids are rebuilt.
  const fingerprint = JSON.stringify(['rowid-v2', collections.map((c) => [c.cid, c.searchable])]);
  const reindexRows = collections.map((c) => ({
    baseline: sqlite.prepare(`INSERT INTO search (rowid, text) SELECT ${packed('0', String(c.cid), 'id')}, ${searchTextSql(c.searchable)} FROM base WHERE cid = ${c.cid}`),
    sandbox: sqlite.prepare(
      `INSERT INTO search (rowid, text) SELECT ${packed('sid', 'cid', 'seq')}, ${searchTextSql(c.searchable)}
         FROM overlay WHERE sid = :sid AND cid = ${c.cid} AND state IN (1, 2)`,
    ),
    everySandbox: sqlite.prepare(
      `INSERT INTO search (rowid, text) SELECT ${packed('sid', 'cid', 'seq')}, ${searchTextSql(c.searchable)}
         FROM overlay WHERE cid = ${c.cid} AND state IN (1, 2)`,
    ),
  }));

  const index = {
    /** Indexes (or re-indexes) one record of a sandbox (sid > 0) or of the baseline (sid 0). */
    put(sid: number, cid: number, n: number, text: string): void {
      put.run({ sid, cid, n, text });
    },
    remove(sid: number, cid: number, n: number): void {
      remove.run({ sid, cid, n });
    },
    /** Drops every row of a sandbox (sid > 0) or of the baseline (sid 0) in one statement. */
    forget(sid: number): void {
      forget.run({ sid });
    },
    /** Rebuilds a sandbox's rows from its overlay (after import or snapshot restore). */
    reindexSandbox(sid: number): void {
      forget.run({ sid });
      for (const rows of reindexRows) rows.sandbox.run({ sid });
    },
    /** Rebuilds the baseline's rows from `base` (after the fixtures were loaded). */
    reindexBaseline(): void {
      forget.run({ sid: 0 });
      for (const rows of reindexRows) rows.baseline.run();
    },
    /** Rebuilds everything when the file's index was built for other searchable fields (or never). */
    ensureBuilt(): void {
      if (readVersion.get() === fingerprint) return;
      sqlite.transaction(() => {
        sqlite.prepare(`DELETE FROM search`).run();
        for (const rows of reindexRows) {
          rows.baseline.run();
          rows.everySandbox.run();
        }
        writeVersion.run(fingerprint);
      }).immediate();
    },
  };
  return index;
}

export type SearchIndex = ReturnType<typeof createSearchIndex>;

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
