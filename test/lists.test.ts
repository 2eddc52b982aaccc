import { describe, it, expect } from 'vitest';
import { sandboxClient, useServer } from './helpers/server.js';
import { BASELINE, COLLECTIONS, create, expectProblem, type Collection } from './helpers/problems.js';
import { badPaging } from './helpers/list-features.js';

const server = useServer();

const fresh = () => sandboxClient(server.api);
const range = (from: number, to: number) => Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);

describe('the list envelope', () => {
  it.each(COLLECTIONS)('%s: default page 1 of 10, exactly the envelope keys', async (collection) => {
    const answer = await fresh().get(`/${collection}`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(answer.body).sort()).toEqual(['data', 'pagination']);
    const total = BASELINE[collection];
    expect(answer.body.pagination).toEqual({
      page: 1,
      limit: 10,
      total,
      totalPages: Math.ceil(total / 10),
      hasNextPage: true,
      hasPrevPage: false,
      nextCursor: expect.stringMatching(/./),
    });
    expect(answer.body.data.map((r: any) => r.id)).toEqual(range(1, 10));
    // The cursor leads to page 2.
    const next = await fresh().get(`/${collection}?cursor=${encodeURIComponent(answer.body.pagination.nextCursor)}`);
    expect(next.status, next.text).toBe(200);
    expect(next.body.data.map((r: any) => r.id)).toEqual(range(11, 20));
  });

  it('list items are the same records GET /{id} answers', async () => {
    const client = fresh();
    const list = (await client.get('/users?limit=3')).body.data;
    expect(list).toHaveLength(3);
    for (const record of list) expect((await client.get(`/users/${record.id}`)).body).toEqual(record);
  });

  // [collection, query, page, limit]
  const pages: Array<[Collection, string, number, number]> = [
    ['users', 'limit=5', 1, 5],
    ['users', 'limit=5&page=2', 2, 5],
    ['users', 'limit=5&page=5', 5, 5],
    ['users', 'limit=5&page=6', 6, 5],
    ['users', 'limit=7&page=4', 4, 7],
    ['users', 'limit=7&page=5', 5, 7],
    ['users', 'page=3', 3, 10],
    ['users', 'page=100', 100, 10],
    ['users', 'limit=1&page=25', 25, 1],
    ['users', 'limit=1&page=24', 24, 1],
    ['users', 'limit=200', 1, 200],
    ['users', 'limit=25', 1, 25],
    ['users', 'limit=24', 1, 24],
    ['posts', 'limit=33&page=4', 4, 33],
    ['posts', 'limit=100&page=2', 2, 100],
    ['comments', 'limit=200&page=2', 2, 200],
    ['comments', 'limit=200&page=3', 3, 200],
    ['todos', 'limit=200', 1, 200],
    ['todos', 'limit=199&page=2', 2, 199],
    // aliases
    ['users', '_limit=5&_page=2', 2, 5],
    ['users', '_per_page=5&_page=3', 3, 5],
    ['users', '_per_page=6&page=2', 2, 6],
    ['posts', 'limit=20&_page=5', 5, 20],
    ['todos', '_limit=200&_page=2', 2, 200],
  ];

  it.each(pages)('%s?%s', async (collection, query, page, limit) => {
    const total = BASELINE[collection];
    const totalPages = Math.ceil(total / limit);
    const answer = await fresh().get(`/${collection}?${query}`);
    expect(answer.status, answer.text).toBe(200);
    const { pagination, data } = answer.body;
    expect(pagination).toMatchObject({ page, limit, total, totalPages, hasNextPage: page < totalPages, hasPrevPage: page > 1 });
    expect(data.map((r: any) => r.id)).toEqual(range((page - 1) * limit + 1, Math.min(page * limit, total)));
    if (page >= totalPages) expect(pagination.nextCursor).toBeNull();
    else {
      // A string on every page but the last, and it leads to the next page.
      expect(pagination.nextCursor).toEqual(expect.stringMatching(/./));
      const next = await fresh().get(`/${collection}?limit=${limit}&cursor=${encodeURIComponent(pagination.nextCursor)}`);
      expect(next.status, next.text).toBe(200);
      expect(next.body.data.map((r: any) => r.id)).toEqual(range(page * limit + 1, Math.min((page + 1) * limit, total)));
    }
  });
});

describe('bad page and limit values are 400 INVALID_QUERY naming the parameter', () => {

  it.each(badPaging)('users?%s', async (query, names) => {
    const answer = await fresh().get(`/users?${query}`);
    expectProblem(answer, 400, 'INVALID_QUERY');
    expect(answer.body.detail).toMatch(names);
  });

  it.each(COLLECTIONS)('%s?limit=201', async (collection) => {
    expectProblem(await fresh().get(`/${collection}?limit=201`), 400, 'INVALID_QUERY');
  });
});

describe('default order with sandbox changes', () => {
  it('created records come first, newest first; updated keep their place; deleted disappear', async () => {
    const client = fresh();
    const a = await create(client, 'users');
    const b = await create(client, 'users');
    const c = await create(client, 'users');
    expect((await client.get('/users')).body.pagination.total).toBe(BASELINE.users + 3);

    const patched = await client.patch('/users/3', { name: 'Moved Nowhere' });
    expect(patched.status).toBe(200);
    expect((await client.delete('/users/2')).status).toBe(200);

    const first = (await client.get('/users')).body;
    expect(first.pagination).toMatchObject({ total: BASELINE.users + 3 - 1, totalPages: 3, hasNextPage: true });
    expect(first.data.map((r: any) => r.id)).toEqual([c.id, b.id, a.id, 1, 3, 4, 5, 6, 7, 8]);
    expect(first.data[0]).toEqual(c);
    expect(first.data[4]).toEqual(patched.body);
    expect(first.data[4]).toMatchObject({ name: 'Moved Nowhere', _sandbox: 'updated' });

    const last = (await client.get('/users?page=3')).body;
    expect(last.pagination).toMatchObject({ page: 3, hasNextPage: false, hasPrevPage: true, nextCursor: null });
    expect(last.data.map((r: any) => r.id)).toEqual(range(19, 25));

    const all = (await client.get('/users?limit=200')).body.data.map((r: any) => r.id);
    expect(all).toEqual([c.id, b.id, a.id, 1, ...range(3, 25)]);
  });

  it('a created record on a later page boundary shifts the baseline by one', async () => {
    const client = fresh();
    const created = await create(client, 'todos');
    const page = (await client.get('/todos?limit=5&page=2')).body;
    expect(page.pagination.total).toBe(BASELINE.todos + 1);
    expect(page.pagination.totalPages).toBe(Math.ceil((BASELINE.todos + 1) / 5));
    expect(page.data.map((r: any) => r.id)).toEqual(range(5, 9));
    const firstPage = (await client.get('/todos?limit=5')).body.data.map((r: any) => r.id);
    expect(firstPage).toEqual([created.id, 1, 2, 3, 4]);
  });

  it('deleting a baseline record drops total by one and closes the gap', async () => {
    const client = fresh();
    expect((await client.delete('/posts/1')).status).toBe(200);
    expect((await client.delete('/posts/100')).status).toBe(200);
    const page = (await client.get('/posts?limit=49&page=2')).body;
    expect(page.pagination).toMatchObject({ total: 98, totalPages: 2, hasNextPage: false, nextCursor: null });
    expect(page.data.map((r: any) => r.id)).toEqual(range(51, 99));
  });

  it("another sandbox's changes leave this list alone", async () => {
    const other = fresh();
    await create(other, 'comments');
    expect((await other.delete('/comments/1')).status).toBe(200);
    const mine = (await fresh().get('/comments')).body;
    expect(mine.pagination.total).toBe(BASELINE.comments);
    expect(mine.data.map((r: any) => r.id)).toEqual(range(1, 10));
  });
});
