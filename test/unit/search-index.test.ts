import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.js';
import { createListCompiler } from '../../src/db/list-sql.js';
import { createBaselineMemo } from '../../src/engine/baseline-memo.js';
import { baseTotalsKey, createQueryTokenizer, createSearchIndex, customCidBase, maxPackedNumber, rowidRange, searchText, toMatchQuery } from '../../src/db/search-index.js';

describe('search index', () => {
  const db = openDatabase(':memory:');
  const sqlite = db.sqlite;
  const collections = [{ cid: 2, searchable: ['title', 'body'] }, { cid: 4, searchable: ['title'] }];
  const index = createSearchIndex(sqlite, collections);
  const all = (sql: string, ...args: unknown[]) => sqlite.prepare(sql).all(...args);
  const termsOf = (sid: number, cid: number, seq: number) =>
    Object.fromEntries((all("SELECT term, count FROM search_terms WHERE sid = ? AND cid = ? AND seq = ? AND term != '' ORDER BY term", sid, cid, seq) as { term: string; count: number }[]).map((r) => [r.term, r.count]));
  const totals = () => JSON.parse(sqlite.prepare(`SELECT value FROM meta WHERE key = ?`).pluck().get(baseTotalsKey) as string);

  it("stores a sandbox record's terms as FTS5's tokenizer makes them, with counts and length", () => {
    index.put(3, 2, 7, 'Crème brûlée CAFÉ café, straße!');
    expect(termsOf(3, 2, 7)).toEqual({ brulee: 1, cafe: 2, creme: 1, straße: 1 });
    expect(all("SELECT count AS length FROM search_terms WHERE sid = 3 AND cid = 2 AND term = '' AND seq = 7")).toEqual([{ length: 5 }]);
    index.put(3, 2, 7, 'only this');
    expect(termsOf(3, 2, 7)).toEqual({ only: 1, this: 1 });
    index.remove(3, 2, 7);
    expect(termsOf(3, 2, 7)).toEqual({});
    expect(all('SELECT * FROM search_terms WHERE sid = 3')).toEqual([]);
  });

  it("stores ASCII text (tokenized in JS) exactly as FTS5's tokenizer would (the rebuild path)", () => {
    const next = (() => {
      let seed = 11;
      return () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    })();
    const chars = 'aZ9 _-.,\'"*:()\u0000\t\nQx0';
    const texts = Array.from({ length: 40 }, () => Array.from({ length: Math.floor(next() * 60) }, () => chars[Math.floor(next() * chars.length)]).join(''));
    texts.forEach((text, i) => index.put(8, 2, i + 1, text));
    const fast = all("SELECT * FROM search_terms WHERE sid = 8 AND term != '' ORDER BY seq, term");
    const fastDocs = all("SELECT * FROM search_terms WHERE sid = 8 AND term = '' ORDER BY seq");
    // the same texts through FTS5's tokenizer: a rebuild from the overlay goes through the scratch table
    sqlite.exec('DELETE FROM search_terms WHERE sid = 8');
    const row = sqlite.prepare(`INSERT INTO overlay (sid, cid, id, state, seq, doc) VALUES (8, 2, ?, 1, ?, ?)`);
    texts.forEach((text, i) => row.run(`local-${i}`, i + 1, JSON.stringify({ title: text })));
    index.reindexSandbox(8);
    sqlite.exec('DELETE FROM overlay WHERE sid = 8');
    expect(all("SELECT * FROM search_terms WHERE sid = 8 AND term != '' ORDER BY seq, term")).toEqual(fast);
    expect(all("SELECT * FROM search_terms WHERE sid = 8 AND term = '' ORDER BY seq").map((d: any) => ({ ...d, terms: JSON.parse(d.terms).sort() }))).toEqual(
      fastDocs.map((d: any) => ({ ...d, terms: JSON.parse(d.terms).sort() })),
    );
    expect(fast.length).toBeGreaterThan(20);
    index.forget(8);
  });

  it('forgets one sandbox only, and keeps the baseline out of the sandbox tables', () => {
    for (const sid of [1, 2, 3, 256]) index.put(sid, 2, 1, `word${sid} shared`);
    index.put(0, 2, 5, 'baseline words');
    index.forget(2);
    expect(all('SELECT DISTINCT sid FROM search_terms ORDER BY sid')).toEqual([{ sid: 1 }, { sid: 3 }, { sid: 256 }]);
    expect(all("SELECT DISTINCT sid FROM search_terms WHERE term = '' ORDER BY sid")).toEqual([{ sid: 1 }, { sid: 3 }, { sid: 256 }]);
    expect(all(`SELECT rowid FROM search_base WHERE search_base MATCH '"baseline"*'`)).toEqual([{ rowid: (2 << 24) | 5 }]);
    for (const sid of [1, 3, 256]) index.forget(sid);
  });

  it("keeps the baseline's totals (rows, tokens) as FTS5 counts them, through puts, removes and rebuilds", () => {
    index.forget(0);
    expect(totals()).toEqual([0, 0]);
    index.put(0, 2, 1, 'one two three');
    index.put(0, 4, 1, 'four');
    index.put(0, 2, 1, 'one two');
    expect(totals()).toEqual([2, 3]);
    index.remove(0, 4, 1);
    expect(totals()).toEqual([1, 2]);
    sqlite.prepare(`INSERT INTO base (cid, id, doc) VALUES (2, 1, ?), (2, 2, ?), (4, 1, ?)`).run('{"title":"a b","body":"c"}', '{"title":"d"}', '{"title":"e f g"}');
    index.reindexBaseline();
    expect(totals()).toEqual([3, 7]);
  });

  it('rebuilds a sandbox from its overlay, and a file indexed the old way from scratch', () => {
    sqlite.prepare(`INSERT INTO overlay (sid, cid, id, state, seq, doc) VALUES (9, 2, 'local-a', 1, 1, ?), (9, 2, 1, 2, 2, ?), (9, 2, 2, 3, 3, NULL)`).run('{"title":"new post","body":"x"}', '{"title":"changed","body":"y"}');
    index.put(9, 2, 1, 'stale');
    index.reindexSandbox(9);
    expect(termsOf(9, 2, 1)).toEqual({ new: 1, post: 1, x: 1 });
    expect(termsOf(9, 2, 2)).toEqual({ changed: 1, y: 1 });
    expect(termsOf(9, 2, 3)).toEqual({});

    // an older file: one shared FTS5 table and another fingerprint
    sqlite.exec(`CREATE VIRTUAL TABLE search USING fts5(text, content = '', contentless_delete = 1); UPDATE meta SET value = 'old' WHERE key = 'search_index';
                 DELETE FROM search_terms; INSERT INTO search_base (search_base) VALUES ('delete-all');`);
    createSearchIndex(sqlite, collections).ensureBuilt();
    expect(all(`SELECT name FROM sqlite_master WHERE name = 'search'`)).toEqual([]);
    expect(termsOf(9, 2, 2)).toEqual({ changed: 1, y: 1 });
    expect(totals()).toEqual([3, 7]);
    expect(all(`SELECT rowid FROM search_base WHERE search_base MATCH '"e"*'`)).toEqual([{ rowid: (4 << 24) | 1 }]);
  });

  it('rebuilds around records too deep for SQLite\'s JSON functions (stored by an older version), indexing their text in JS', () => {
    // SQLite refuses JSON nested past 1,000 levels: json_tree over such a doc failed the whole rebuild.
    // (posts search title and body, which is no string here; the custom collection every string)
    const deep = (levels: number, leaf: string) => `{"title":"deep ${leaf}","body":${'['.repeat(levels)}"${leaf}body"${']'.repeat(levels)}}`;
    const cid = customCidBase + 1;
    sqlite
      .prepare(`INSERT INTO overlay (sid, cid, id, state, seq, doc) VALUES (12, 2, 'local-d', 1, 1, ?), (12, 2, 'local-e', 1, 2, ?), (12, ?, 'local-f', 1, 3, ?)`)
      .run(deep(5_000, 'alpha'), '{"title":"shallow","body":"b"}', cid, deep(2_000, 'gamma'));
    index.reindexSandbox(12);
    expect(termsOf(12, 2, 1)).toEqual({ alpha: 1, deep: 1 });
    expect(termsOf(12, 2, 2)).toEqual({ b: 1, shallow: 1 });
    expect(termsOf(12, cid, 3)).toEqual({ deep: 1, gamma: 1, gammabody: 1 });
    // a whole rebuild (a search-field change, another config) too
    sqlite.exec(`UPDATE meta SET value = 'changed' WHERE key = 'search_index'`);
    createSearchIndex(sqlite, collections).ensureBuilt();
    expect(termsOf(12, 2, 1)).toEqual({ alpha: 1, deep: 1 });
    expect(termsOf(12, cid, 3)).toEqual({ deep: 1, gamma: 1, gammabody: 1 });
    sqlite.exec('DELETE FROM overlay WHERE sid = 12');
    index.forget(12);
  });

  it('bounds one collection of the baseline with rowidRange', () => {
    const [lo, hi] = sqlite.prepare(`SELECT ${rowidRange.lo('0', ':cid')}, ${rowidRange.hi('0', ':cid')}`).raw().safeIntegers().get({ cid: 2 }) as bigint[];
    expect(lo).toBe(2n << 24n);
    expect(hi).toBe((2n << 24n) | BigInt(maxPackedNumber));
  });

  it("folds query words with FTS5's tokenizer", () => {
    const tokenize = createQueryTokenizer(sqlite);
    expect(tokenize('CAFÉ')).toEqual(['cafe']);
    expect(tokenize('Straße')).toEqual(['straße']);
    expect(tokenize('日本語')).toEqual(['日本語']);
  });
});

describe('own records scored in SQL', () => {
  // The list compiler scores a sandbox's own records with bm25 written out in SQL and the
  // baseline's statistics; FTS5 scores the baseline. The same text must get the very same double.
  const db = openDatabase(':memory:');
  const sqlite = db.sqlite;
  const index = createSearchIndex(sqlite, [{ cid: 2, searchable: ['title'] }]);
  const compile = createListCompiler(sqlite, createBaselineMemo(sqlite));
  const random = (seed: number) => () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const next = random(7);
  const vocabulary = ['alpha', 'alphabet', 'beta', 'gamma', 'delta', 'Épsilon', 'zeta', 'eta', 'theta', 'al'];
  const texts = Array.from({ length: 60 }, () => Array.from({ length: 1 + Math.floor(next() * 25) }, () => vocabulary[Math.floor(next() * vocabulary.length)]).join(' '));
  sqlite.transaction(() => {
    texts.forEach((text, i) => {
      sqlite.prepare(`INSERT INTO base (cid, id, doc) VALUES (2, ?, ?)`).run(i + 1, JSON.stringify({ id: i + 1, title: text }));
      sqlite.prepare(`INSERT INTO overlay (sid, cid, id, state, seq, doc) VALUES (5, 2, ?, 1, ?, ?)`).run(`local-${i}`, i + 1, JSON.stringify({ id: `local-${i}`, title: text }));
    });
    index.reindexBaseline();
    index.reindexSandbox(5);
  })();

  it.each(['"al"*', '"alpha"*', '"epsilon"* "al"*', '"beta"* "beta"*', '"zeta"* "eta"* "theta"*', '"gam"*'])('%s: each own copy ranks exactly as its baseline original', (match) => {
    const { page, bind } = compile({ filters: [], sort: [], match });
    const row = page.get({ ...bind, sid: 5, cid: 2, limit: 200, offset: 0 }) as { json: string; keys: string };
    const docs = JSON.parse(row.json) as { id: number | string; title: string }[];
    const ranks = row.keys.split('\x1e').map((k) => JSON.parse(k)[0] as number);
    const byText = new Map<string, Set<number>>();
    docs.forEach((doc, i) => byText.set(doc.title, (byText.get(doc.title) ?? new Set()).add(ranks[i]!)));
    expect(docs.filter((d) => typeof d.id === 'number').length).toBe(docs.length / 2);
    for (const [text, set] of byText) expect([...set], text).toHaveLength(1);
  });
});

describe('search text and queries', () => {
  it('joins the searchable fields, nested ones by dotted path, skipping absent ones', () => {
    expect(searchText(['name', 'company.name', 'phone'], { name: 'Ann', company: { name: 'Acme' } })).toBe('Ann Acme');
  });

  it.each([
    ['hello', '"hello"*'],
    ['  Hello,   WORLD!  ', '"Hello"* "WORLD"*'],
    ['"unbalanced', '"unbalanced"*'],
    ['a*b-c', '"a"* "b"* "c"*'],
    ['NEAR(x y)', '"NEAR"* "x"* "y"*'],
    ['ｆｕｌｌ', '"full"*'],
    ['日本語 テキスト', '"日本語"* "テキスト"*'],
    ['😀 !!', undefined],
    ['', undefined],
  ])('%j becomes %j', (text, query) => {
    expect(toMatchQuery(text)).toBe(query);
  });

  it('walks every string of a record nested 100,000 levels without recursing', () => {
    let value: unknown = 'bottom';
    for (let i = 0; i < 100_000; i++) value = i % 2 ? [value, 'x'] : { v: value };
    expect(searchText(['*'], { id: 1, top: 'first', deep: value }).split(' ').slice(0, 2)).toEqual(['first', 'bottom']);
  });

  it('caps the number of terms', () => {
    expect(toMatchQuery('a '.repeat(100), 5)).toBe('"a"* "a"* "a"* "a"* "a"*');
  });
});
