import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../src/config.js';
import { createRuntime, type Runtime } from '../src/runtime.js';

// The engine bound to a sandbox (engine.forSandbox): the surface GraphQL resolvers and custom
// routes call. Its list takes the REST parameters as an object and must answer as REST does.
let runtime: Runtime;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mockapi-surface-'));
  runtime = await createRuntime(resolveConfig({}, { db: join(dir, 'test.db') }));
});
afterAll(() => {
  runtime.close();
  rmSync(dir, { recursive: true, force: true });
});

const restList = async (sandbox: string, path: string) => {
  const { createApp } = await import('../src/app.js');
  const answer = await createApp(runtime).fetch(new Request(`http://x/api/v1${path}`, { headers: { 'x-sandbox': sandbox } }));
  return answer.json();
};

describe('engine.forSandbox', () => {
  it('lists with REST parameters given as an object, as REST lists them', async () => {
    const posts = runtime.engine.forSandbox('s1').collection('posts');
    const page = await posts.list({ user_id: [1, 2], _sort: '-id', limit: 5, page: 2 });
    expect(page).toEqual(await restList('s1', '/posts?user_id=1&user_id=2&_sort=-id&limit=5&page=2'));
    const searched = await posts.list({ q: 'qui', _sort: 'title' });
    expect(searched).toEqual(await restList('s1', '/posts?q=qui&_sort=title'));
  });

  it('gives the REST parser errors for bad parameters', async () => {
    const posts = runtime.engine.forSandbox('s1').collection('posts');
    await expect(posts.list({ nope: 1 })).rejects.toMatchObject({ code: 'INVALID_QUERY', message: expect.stringContaining('"nope"') });
    await expect(posts.list({ limit: 500 })).rejects.toMatchObject({ code: 'INVALID_QUERY' });
    await expect(runtime.engine.forSandbox('s1', { maxPageSize: 100 }).collection('posts').list({ limit: 101 })).rejects.toMatchObject({ code: 'INVALID_QUERY' });
    await expect(posts.list({ completed: { x: 1 } as never })).rejects.toMatchObject({ code: 'INVALID_QUERY' });
    expect(() => runtime.engine.forSandbox('s1').collection('nope')).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
  });

  it('writes only its own sandbox, with the store rules', async () => {
    const mine = runtime.engine.forSandbox('writer').collection('posts');
    const created = await mine.create({ user_id: 1, title: 'mine', body: 'text' });
    expect(created).toMatchObject({ _sandbox: 'created', title: 'mine' });
    expect(await mine.get(created.id)).toEqual(created);
    expect(await runtime.engine.forSandbox('other').collection('posts').get(created.id)).toBeUndefined();
    expect(await mine.patch(created.id, { title: 'patched' })).toMatchObject({ title: 'patched', body: 'text' });
    await expect(mine.create({ title: 'x' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(await mine.remove(created.id)).toMatchObject({ title: 'patched' });
    await expect(mine.remove(created.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(mine.patch(created.id, {})).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('reads relations one record at a time and in batches, as the sub-resources do', async () => {
    const view = runtime.engine.forSandbox('s2');
    const users = view.collection('users');
    const user = (await users.get(3))!;
    expect(await users.related(user, 'posts', { limit: 3 })).toEqual(await restList('s2', '/users/3/posts?limit=3'));
    expect(await users.related(user, 'comments')).toEqual(await restList('s2', '/users/3/comments'));
    const some = (await users.list({ limit: 4 })).data;
    const batched = (await users.relatedMany(some, 'todos', { sort: '-id', limit: 2, page: 2 })) as unknown[][];
    for (const [i, u] of some.entries()) expect(batched[i]).toEqual((await restList('s2', `/users/${u.id}/todos?_sort=-id&limit=2&page=2`)).data);
    const all = (await users.relatedMany(some, 'posts')) as unknown[][];
    for (const [i, u] of some.entries()) expect(all[i]).toEqual((await restList('s2', `/posts?user_id=${u.id}&limit=200`)).data);
    const posts = (await view.collection('posts').list({ limit: 3 })).data;
    expect(await view.collection('posts').relatedMany(posts, 'user')).toEqual(await users.getMany(posts.map((p) => p.user_id)));
    expect(await users.getMany(['1', 2, 'nope'])).toMatchObject([{ id: 1 }, { id: 2 }, undefined]);
  });
});
