import { describe, expect, it } from 'vitest';
import { sandboxClient, useServer } from './helpers/server.js';
import { expectProblem } from './helpers/problems.js';

// Filters and sorting (issue 4, first part): generic over every collection's definition.
const server = useServer();
const fresh = () => sandboxClient(server.api);
const ids = (answer: { body: { data: { id: unknown }[] } }) => answer.body.data.map((r) => r.id);

describe('list filters', () => {
  it('filters on equality, type-aware, and ANDs different fields', async () => {
    const client = fresh();
    const answer = await client.get('/todos?completed=true&user_id=1&limit=50');
    expect(answer.status).toBe(200);
    expect(answer.body.data.length).toBeGreaterThan(0);
    for (const todo of answer.body.data) expect(todo).toMatchObject({ completed: true, user_id: 1 });
    const all = await client.get('/todos?user_id=1&limit=50');
    expect(answer.body.pagination.total).toBeLessThan(all.body.pagination.total);
  });

  it('ORs a repeated parameter and treats "7" and 7 alike', async () => {
    const answer = await fresh().get('/posts?id=7&id=9&id=local-00000000-0000-4000-8000-000000000000');
    expect(ids(answer)).toEqual([7, 9]);
  });

  it('compares with _gt _gte _lt _lte _ne and _like', async () => {
    const client = fresh();
    expect(ids(await client.get('/posts?id_gte=98'))).toEqual([98, 99, 100]);
    expect(ids(await client.get('/posts?id_gt=97&id_lt=100'))).toEqual([98, 99]);
    expect(ids(await client.get('/posts?id_lte=2'))).toEqual([1, 2]);
    const notOne = await client.get('/posts?user_id_ne=1&limit=200');
    const one = await client.get('/posts?user_id=1&limit=200');
    expect(one.body.data.length).toBeGreaterThan(0);
    expect(notOne.body.data.length).toBe(100 - one.body.data.length);
    for (const post of notOne.body.data) expect(post.user_id).not.toBe(1);
    const like = await client.get('/posts?title_like=SUNT&limit=50');
    expect(like.body.data.length).toBeGreaterThan(0);
    for (const post of like.body.data) expect(post.title.toLowerCase()).toContain('sunt');
  });

  it('filters on nested fields and sees the sandbox own records only', async () => {
    const mine = fresh();
    const other = fresh();
    const created = await mine.post('/posts', { user_id: 2, title: 'quokka filter', body: 'b' });
    expect(created.status).toBe(200);
    expect(ids(await mine.get('/posts?title_like=quokka'))).toEqual([created.body.id]);
    expect((await other.get('/posts?title_like=quokka')).body.pagination.total).toBe(0);
    await mine.delete('/posts/3');
    expect(ids(await mine.get('/posts?id=3'))).toEqual([]);
    expect(ids(await other.get('/posts?id=3'))).toEqual([3]);
    const city = (await mine.get('/users/1')).body.address.city;
    expect(ids(await mine.get(`/users?address.city=${encodeURIComponent(city)}`))).toContain(1);
  });

  it.each([
    ['/users?nope=1', 'nope'],
    ['/todos?completed=maybe', 'completed'],
    ['/posts?id=abc', 'id'],
    ['/posts?user_id_gt=x', 'user_id_gt'],
    ['/todos?completed_gt=true', 'completed_gt'],
    ['/posts?user_id_like=1', 'user_id_like'],
    ['/users?address.geo.lat_gt=north', 'address.geo.lat_gt'],
    ['/posts?_sort=nope', '_sort'],
    ['/posts?_sort=title&_order=sideways', '_order'],
  ])('%s is 400 INVALID_QUERY naming %s', async (path, parameter) => {
    const answer = await fresh().get(path);
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('INVALID_QUERY');
    expect(answer.body.detail).toContain(`"${parameter}"`);
  });
});

describe('list sorting', () => {
  it('sorts by a field, descending with - or _order, ties by id', async () => {
    const client = fresh();
    const desc = await client.get('/posts?_sort=-created_at&limit=5');
    const dates = desc.body.data.map((p: { created_at: string }) => p.created_at);
    expect(dates).toEqual([...dates].sort().reverse());
    expect(ids(await client.get('/posts?_sort=created_at&_order=desc&limit=5'))).toEqual(ids(desc));
    const byUser = await client.get('/posts?_sort=user_id&limit=200');
    const pairs = byUser.body.data.map((p: { user_id: number; id: number }) => [p.user_id, p.id]);
    expect(pairs).toEqual([...pairs].sort((a, b) => a[0] - b[0] || a[1] - b[1]));
  });

  it('sorts by several keys and by nested text', async () => {
    const answer = await fresh().get('/todos?_sort=completed,-id&limit=200');
    const rows = answer.body.data.map((t: { completed: boolean; id: number }) => [Number(t.completed), t.id]);
    expect(rows).toEqual([...rows].sort((a, b) => a[0] - b[0] || b[1] - a[1]));
    const cities = (await fresh().get('/users?_sort=address.city&limit=25')).body.data.map((u: { address: { city: string } }) => u.address.city);
    expect(cities).toEqual([...cities].sort());
  });
});

describe('query size bounds', () => {
  it('refuses more than 200 filter values in all with a 400 naming the parameter, never a 500', async () => {
    const client = fresh();
    const many = ['id_ne', 'id_gt', 'id_lt', 'id_gte', 'id_lte'].map((name) => Array.from({ length: 50 }, () => `${name}=1`).join('&')).join('&');
    const answer = await client.get(`/posts?${many}`);
    expectProblem(answer, 400, 'INVALID_QUERY');
    expect(answer.body.detail).toMatch(/"id_(gte|lte)" brings the filters past 200 values/);
    expect((await client.get(`/posts?${Array.from({ length: 50 }, (_, i) => `id=${i + 1}`).join('&')}&limit=200`)).body.data).toHaveLength(50);
  });

  it('refuses a page whose row offset would not be an exact integer', async () => {
    const client = fresh();
    expectProblem(await client.get(`/posts?limit=200&page=${Math.floor(Number.MAX_SAFE_INTEGER / 200) + 1}`), 400, 'INVALID_QUERY');
    const last = await client.get(`/posts?limit=200&page=${Math.floor(Number.MAX_SAFE_INTEGER / 200)}`);
    expect(last.status).toBe(200);
    expect(last.body.data).toEqual([]);
  });
});
