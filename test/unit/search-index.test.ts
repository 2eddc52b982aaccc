import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.js';
import { createSearchIndex, maxPackedNumber, rowidRange, searchText, toMatchQuery } from '../../src/db/search-index.js';

describe('search index rowids', () => {
  const db = openDatabase(':memory:');
  const index = createSearchIndex(db.sqlite, [{ cid: 2, searchable: ['title'] }]);
  const rows = () => db.sqlite.prepare('SELECT rowid FROM search ORDER BY rowid').pluck().safeIntegers().all() as bigint[];
  const pack = (sid: number, cid: number, n: number) => (BigInt(sid) << 32n) | (BigInt(cid) << 24n) | BigInt(n);

  it('packs sid, collection and number without overlap, for any sid up to 2^31', () => {
    const sids = [0, 1, 127, 128, 255, 256, 257, 65_536, 2 ** 31 - 1];
    for (const sid of sids) index.put(sid, 2, 7, `word${sid}`);
    index.put(1, 3, maxPackedNumber, 'edge');
    expect(rows()).toEqual([...sids.map((sid) => pack(sid, 2, 7)), pack(1, 3, maxPackedNumber)].sort((a, b) => (a < b ? -1 : 1)));
    for (const row of rows()) expect(row > 0n || row === pack(0, 2, 7)).toBe(true);
  });

  it('forgets one sandbox range only', () => {
    index.forget(256);
    index.forget(1);
    const left = rows();
    expect(left).not.toContain(pack(256, 2, 7));
    expect(left).not.toContain(pack(1, 2, 7));
    expect(left).toContain(pack(0, 2, 7));
    expect(left).toContain(pack(257, 2, 7));
    expect(left).toContain(pack(255, 2, 7));
  });

  it('bounds one collection of one sandbox with rowidRange', () => {
    const [lo, hi] = db.sqlite.prepare(`SELECT ${rowidRange.lo(':sid', ':cid')}, ${rowidRange.hi(':sid', ':cid')}`).raw().safeIntegers().get({ sid: 257, cid: 2 }) as bigint[];
    expect(lo).toBe(pack(257, 2, 0));
    expect(hi).toBe(pack(257, 2, maxPackedNumber));
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

  it('caps the number of terms', () => {
    expect(toMatchQuery('a '.repeat(100), 5)).toBe('"a"* "a"* "a"* "a"* "a"*');
  });
});
