import { describe, expect, it } from 'vitest';
import { expectProblem } from './helpers/problems.js';
import { ftsSyntax } from './helpers/list-features.js';
import { sandboxClient, useServer } from './helpers/server.js';

// Full-text search (`q`): FTS5 over baseline and overlays, per sandbox, any text safe.
const server = useServer();
const fresh = () => sandboxClient(server.api);
const ids = (answer: { body: { data: { id: unknown }[] } }) => answer.body.data.map((r) => r.id);

describe('q: full-text search', () => {
  it('finds baseline records by a word, case-insensitively, in the searched fields', async () => {
    const client = fresh();
    const lower = await client.get('/posts?q=sunt&limit=50');
    expect(lower.status).toBe(200);
    expect(lower.body.pagination.total).toBeGreaterThan(0);
    for (const post of lower.body.data) expect(`${post.title} ${post.body}`.toLowerCase()).toMatch(/\bsunt/);
    const upper = await client.get('/posts?q=SUNT&limit=50');
    expect(ids(upper)).toEqual(ids(lower));
  });

  it('matches every term, each also as a word prefix', async () => {
    const client = fresh();
    const user = (await client.get('/users/1')).body;
    const [first, last] = user.name.split(' ');
    expect(ids(await client.get(`/users?q=${first.slice(0, 3)}`))).toContain(1);
    expect(ids(await client.get(`/users?q=${encodeURIComponent(`${first} ${last.slice(0, 2)}`)}`))).toContain(1);
    expect(ids(await client.get(`/users?q=${encodeURIComponent(`${first} zzyzx`)}`))).toEqual([]);
    // nested searched field: company name
    const company = user.company.name.split(' ')[0];
    expect(ids(await client.get(`/users?q=${encodeURIComponent(company)}&limit=50`))).toContain(1);
  });

  it.each([
    ['users', 1, ['username', 'email', 'phone', 'website']],
    ['comments', 1, ['email', 'body']],
  ] as const)('searches every contract field of %s (record %i: %j)', async (collection, id, fields) => {
    const client = fresh();
    const record = (await client.get(`/${collection}/${id}`)).body;
    for (const field of fields) {
      const word = String(record[field]).split(/[^\p{L}\p{N}]+/u).filter(Boolean).sort((a, b) => b.length - a.length)[0];
      const found = await client.get(`/${collection}?q=${encodeURIComponent(word)}&limit=200`);
      expect(ids(found), `${field}: ${word}`).toContain(id);
    }
  });

  it('ranks the best match first when there is no _sort, and follows _sort when there is', async () => {
    const client = fresh();
    const title = await client.post('/posts', { user_id: 1, title: 'quokka quokka quokka', body: 'quokka' });
    const once = await client.post('/posts', { user_id: 1, title: 'one', body: `a long body that names the quokka once among ${'many other words '.repeat(20)}` });
    expect(ids(await client.get('/posts?q=quokka'))).toEqual([title.body.id, once.body.id]);
    expect(ids(await client.get('/posts?q=quokka&_sort=title'))).toEqual([once.body.id, title.body.id]);
  });

  it('covers created and updated records of the sandbox, never another sandbox, never deleted ones', async () => {
    const mine = fresh();
    const other = fresh();
    const created = await mine.post('/comments', { post_id: 1, name: 'zzyzx note', email: 'a@example.com', body: 'b' });
    await mine.patch('/comments/2', { body: 'now about zzyzx' });
    const found = await mine.get('/comments?q=zzyzx');
    expect(found.body.pagination.total).toBe(2);
    expect(new Set(ids(found))).toEqual(new Set([created.body.id, 2]));
    expect(found.body.data.find((c: any) => c.id === 2)._sandbox).toBe('updated');
    expect((await other.get('/comments?q=zzyzx')).body.pagination.total).toBe(0);

    // the old text of the updated record no longer matches in this sandbox, but still does in the other
    const before = (await other.get('/comments/2')).body.body.split(/\W+/).find((w: string) => w.length > 5);
    const stillThere = await other.get(`/comments?q=${before}&limit=200`);
    expect(ids(stillThere)).toContain(2);
    expect(ids(await mine.get(`/comments?q=${before}&limit=200`))).not.toContain(2);

    await mine.delete(`/comments/${created.body.id}`);
    await mine.delete('/comments/2');
    expect((await mine.get('/comments?q=zzyzx')).body.pagination.total).toBe(0);
    const deletedBaseline = await mine.get(`/comments?q=${before}&limit=200`);
    expect(ids(deletedBaseline)).not.toContain(2);
  });

  it('keeps a changed record findable through writes that leave its searched fields alone, and follows those that change them', async () => {
    const client = fresh();
    const created = await client.post('/todos', { user_id: 1, title: 'Feed the qwombat', completed: false });
    await client.patch('/todos/3', { title: 'Brush the qwombat' });
    const search = async (word: string) => ids(await client.get(`/todos?q=${word}&limit=200`)).map(String).sort();
    const both = [String(created.body.id), '3'].sort();
    expect(await search('qwombat')).toEqual(both);
    const ranked = (await client.get('/todos?q=qwombat')).body.data.map((t: any) => [t.id, t.completed]);
    // not a searched field: the same hits, the same order
    await client.patch(`/todos/${created.body.id}`, { completed: true });
    await client.patch('/todos/3', { completed: true });
    await client.put('/todos/3', { user_id: 2, title: 'Brush the qwombat', completed: false });
    expect(await search('qwombat')).toEqual(both);
    expect((await client.get('/todos?q=qwombat')).body.data.map((t: any) => t.id)).toEqual(ranked.map(([id]: [unknown]) => id));
    // a searched field: the new words find it, the old ones no longer do
    await client.patch(`/todos/${created.body.id}`, { title: 'Walk the qzebra' });
    await client.put('/todos/3', { user_id: 2, title: 'Groom the qzebra', completed: true });
    expect(await search('qwombat')).toEqual([]);
    expect(await search('feed')).not.toContain(String(created.body.id));
    expect(await search('qzebra')).toEqual(both);
  });

  it("ranks, counts and cursors of a sandbox do not move when another sandbox writes the word", async () => {
    const mine = fresh();
    const other = fresh();
    await mine.post('/posts', { user_id: 1, title: 'sunt here', body: 'mine sunt sunt' });
    await mine.patch('/posts/7', { body: 'sunt changed by me' });
    // `_=n` (ignored by the server) makes every request new, so no cached answer hides a change
    let n = 0;
    const look = async () => {
      const all = await mine.get(`/posts?q=sunt&limit=200&_=${n++}`);
      const pages: unknown[] = [];
      for (const limit of [1, 3, 5, 8]) pages.push((await mine.get(`/posts?q=sunt&limit=${limit}&_=${n++}`)).body.pagination.nextCursor);
      return { ids: ids(all), total: all.body.pagination.total, cursors: pages };
    };
    const before = await look();
    const cursor = (await mine.get('/posts?q=sunt&limit=4')).body.pagination.nextCursor;
    const restBefore = ids(await mine.get(`/posts?q=sunt&limit=200&cursor=${cursor}&_=${n++}`));
    // The other sandbox fills the index with the word: created posts and changed baseline ones.
    for (let i = 0; i < 30; i++) expect((await other.post('/posts', { user_id: 1, title: `sunt ${i}`, body: 'sunt '.repeat(1 + (i % 5)) })).status).toBe(200);
    for (let id = 1; id <= 60; id++) expect((await other.patch(`/posts/${id}`, { title: id % 2 ? 'sunt' : 'nothing' })).status).toBe(200);
    for (let i = 0; i < 30; i++) expect((await other.post('/comments', { post_id: 1, name: 'sunt', email: `s${i}@example.com`, body: 'sunt sunt' })).status).toBe(200);
    expect(await look()).toEqual(before);
    expect(ids(await mine.get(`/posts?q=sunt&limit=200&cursor=${cursor}&_=${n++}`))).toEqual(restBefore);
  });

  it('scores own records with the baseline statistics: the same text ranks as the baseline record does', async () => {
    const client = fresh();
    const original = (await client.get('/posts/12')).body;
    const words = `${original.title} ${original.body}`.split(/[^\p{L}\p{N}]+/u).filter((w: string) => w.length > 3);
    const q = encodeURIComponent(words.slice(0, 4).join(' '));
    const copy = await client.post('/posts', { user_id: 2, title: original.title, body: original.body });
    await client.patch('/posts/40', { title: original.title, body: original.body });
    const found = await client.get(`/posts?q=${q}&limit=3`);
    // equal scores, ties by the default order: created records first, then by id
    expect(ids(found)).toEqual([copy.body.id, 12, 40]);
    const rankAt = async (limit: number) => {
      const cursor = (await client.get(`/posts?q=${q}&limit=${limit}`)).body.pagination.nextCursor as string | null;
      const full = (await client.get(`/posts?q=${q}&limit=200`)).body.data.length;
      if (!cursor) return limit === full ? 'last' : 'none';
      return JSON.parse(Buffer.from(cursor, 'base64url').toString())[1];
    };
    const ranks = [await rankAt(1), await rankAt(2)];
    expect(typeof ranks[0]).toBe('number');
    expect(ranks[1]).toBe(ranks[0]);
  });

  it('forgets a sandbox search rows on reset', async () => {
    const client = fresh();
    await client.post('/todos', { user_id: 1, title: 'quokka todo', completed: false });
    await client.patch('/todos/1', { title: 'quokka changed' });
    expect((await client.get('/todos?q=quokka')).body.pagination.total).toBe(2);
    await client.post('/sandbox/reset');
    expect((await client.get('/todos?q=quokka')).body.pagination.total).toBe(0);
    expect(ids(await client.get('/todos?id=1'))).toEqual([1]);
  });

  it('combines with filters, paging and embeds', async () => {
    const client = fresh();
    const all = await client.get('/posts?q=sunt&limit=200');
    const userId = all.body.data[0].user_id;
    const filtered = await client.get(`/posts?q=sunt&user_id=${userId}&_expand=user`);
    expect(filtered.body.data.length).toBeGreaterThan(0);
    for (const post of filtered.body.data) expect(post).toMatchObject({ user_id: userId, user: { id: userId } });
    const page2 = await client.get('/posts?q=sunt&limit=1&page=2');
    expect(ids(page2)).toEqual([all.body.data[1].id]);
  });

  it.each(ftsSyntax('sunt'))('treats %j as text (never a syntax error)', async (q) => {
    const answer = await fresh().get(`/posts?q=${encodeURIComponent(q)}`);
    expect(answer.status).toBe(200);
    expect(answer.body.data).toBeInstanceOf(Array);
  });

  it('reads FTS operators as plain words that must all match', async () => {
    const client = fresh();
    // "OR" is a word here, and no post holds "zzyzx": nothing matches
    expect((await client.get('/posts?q=sunt%20OR%20zzyzx')).body.pagination.total).toBe(0);
    const plain = await client.get('/posts?q=sunt&limit=50');
    expect(ids(await client.get('/posts?q=%22sunt*%22&limit=50'))).toEqual(ids(plain));
  });

  it('answers a 10 KB q: one long word matches nothing, too many words is a clear 400', async () => {
    const client = fresh();
    const long = await client.get(`/posts?q=${'a'.repeat(10_000)}`);
    expect(long.status).toBe(200);
    expect(long.body.data).toEqual([]);
    const many = await client.get(`/posts?q=${encodeURIComponent('sunt '.repeat(2000))}`);
    expectProblem(many, 400, 'INVALID_QUERY');
    expect(many.body.detail).toContain('"q"');
  });

  it('finds nothing for a q of symbols only, and everything for a blank q', async () => {
    const client = fresh();
    expect((await client.get('/posts?q=%21%21%21')).body.pagination.total).toBe(0);
    expect((await client.get('/posts?q=%20')).body.pagination.total).toBe(100);
  });
});
