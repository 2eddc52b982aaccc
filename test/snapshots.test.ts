import { describe, it, expect } from 'vitest';
import { sandboxClient, useServer } from './helpers/server.js';
import { COLLECTIONS, create, expectProblem, expectValidation, listAll, type Client } from './helpers/problems.js';

const server = useServer();
const fresh = () => sandboxClient(server.api);

/** Everything the sandbox shows of the four collections, in list order. */
async function everything(client: Client) {
  const all: Record<string, unknown[]> = {};
  for (const collection of COLLECTIONS) all[collection] = await listAll(client, collection);
  return all;
}

async function snapshot(client: Client, name: string) {
  const answer = await client.post('/sandbox/snapshots', { name });
  expect(answer.status, answer.text).toBe(200);
  return answer.body;
}

async function restore(client: Client, name: string) {
  const answer = await client.post(`/sandbox/snapshots/${name}/restore`);
  expect(answer.status, answer.text).toBe(200);
  return answer.body;
}

describe('sandbox snapshots', () => {
  it('restore brings back exactly the state taken: created, changed and deleted records, search included', async () => {
    const client = fresh();
    const kept = await create(client, 'posts', { title: 'Zephyrine snapshot keeper' });
    const user = await create(client, 'users');
    await create(client, 'comments', { post_id: kept.id });
    expect((await client.patch('/users/1', { name: 'Changed before' })).status).toBe(200);
    expect((await client.delete('/todos/3')).status).toBe(200);
    expect((await client.put('/posts/4', { user_id: user.id, title: 'Xylophonic replacement', body: 'B' })).status).toBe(200);
    const before = await everything(client);

    const taken = await snapshot(client, 'checkpoint-1');
    expect(taken).toEqual({ name: 'checkpoint-1', createdAt: expect.any(String), records: 6 });
    expect(Date.parse(taken.createdAt)).toBeGreaterThan(Date.now() - 60_000);

    // Change everything after the snapshot.
    const later = await create(client, 'posts', { title: 'Quintessa after snapshot' });
    expect((await client.delete(`/posts/${kept.id}`)).status).toBe(200);
    expect((await client.patch('/users/1', { name: 'Changed after' })).status).toBe(200);
    expect((await client.patch(`/users/${user.id}`, { name: 'Renamed after' })).status).toBe(200);
    expect((await client.delete('/users/2')).status).toBe(200);
    expect((await client.delete('/posts/4')).status).toBe(200);
    expect(await everything(client)).not.toEqual(before);
    expect((await client.get('/posts?q=zephyrine')).body.data).toEqual([]);

    const restored = await restore(client, 'checkpoint-1');
    expect(restored).toEqual({ message: expect.any(String), sandbox: client.id, snapshot: taken });
    expect(await everything(client)).toEqual(before);
    expect((await client.get(`/posts/${kept.id}`)).body).toEqual(kept);
    expectProblem(await client.get(`/posts/${later.id}`), 404, 'NOT_FOUND');
    expectProblem(await client.get('/todos/3'), 404, 'NOT_FOUND');
    expect((await client.get('/users/1')).body.name).toBe('Changed before');
    expect((await client.get('/users/2')).status).toBe(200);

    // The search index follows the restored overlay.
    const found = (await client.get('/posts?q=zephyrine')).body.data;
    expect(found.map((p: { id: string }) => p.id)).toEqual([kept.id]);
    expect((await client.get('/posts?q=quintessa')).body.data).toEqual([]);
    expect((await client.get('/posts?q=xylophonic')).body.data.map((p: { id: number }) => p.id)).toEqual([4]);

    // Records created after a restore still come first, newest first, and the cap counts the restored ones.
    const newest = await create(client, 'posts');
    const first = (await client.get('/posts?limit=2')).body.data.map((p: { id: string }) => p.id);
    expect(first).toEqual([newest.id, kept.id]);
    expect((await client.get('/sandbox')).body.quotas.posts.created).toBe(2);
  });

  it('restoring twice is the same state; a snapshot stays usable after restore', async () => {
    const client = fresh();
    await create(client, 'todos');
    await snapshot(client, 'one');
    const state = await everything(client);
    await restore(client, 'one');
    await create(client, 'todos');
    await restore(client, 'one');
    expect(await everything(client)).toEqual(state);
  });

  it('lists the sandbox snapshots newest first, and GET names one', async () => {
    const client = fresh();
    expect((await client.get('/sandbox/snapshots')).body).toEqual({ data: [] });
    const a = await snapshot(client, 'a');
    await new Promise((done) => setTimeout(done, 5));
    await create(client, 'users');
    const b = await snapshot(client, 'b.2_X-y');
    const list = await client.get('/sandbox/snapshots');
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ data: [b, a] });
    expect(a.records).toBe(0);
    expect(b.records).toBe(1);
    expect((await client.get('/sandbox/snapshots/a')).body).toEqual(a);
    expect((await client.get('/sandbox')).body.snapshots).toBe(2);
  });

  it('an empty sandbox can be snapshotted, and restoring it empties the sandbox', async () => {
    const client = fresh();
    const baseline = await everything(client);
    expect(await snapshot(client, 'empty')).toMatchObject({ name: 'empty', records: 0 });
    await create(client, 'posts');
    expect((await client.delete('/users/5')).status).toBe(200);
    await restore(client, 'empty');
    expect(await everything(client)).toEqual(baseline);
  });

  it('the same name again replaces the snapshot', async () => {
    const client = fresh();
    const first = await create(client, 'posts');
    await snapshot(client, 'same');
    const second = await create(client, 'posts');
    const replaced = await snapshot(client, 'same');
    expect(replaced.records).toBe(2);
    expect((await client.get('/sandbox/snapshots')).body.data).toEqual([replaced]);
    expect((await client.delete(`/posts/${first.id}`)).status).toBe(200);
    expect((await client.delete(`/posts/${second.id}`)).status).toBe(200);
    await restore(client, 'same');
    expect((await client.get(`/posts/${first.id}`)).status).toBe(200);
    expect((await client.get(`/posts/${second.id}`)).status).toBe(200);
  });

  it('delete removes a snapshot; then it is 404 everywhere', async () => {
    const client = fresh();
    await create(client, 'comments');
    await snapshot(client, 'gone');
    await snapshot(client, 'stays');
    const answer = await client.delete('/sandbox/snapshots/gone');
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({ message: expect.any(String), name: 'gone' });
    expect((await client.get('/sandbox/snapshots')).body.data.map((s: { name: string }) => s.name)).toEqual(['stays']);
    expectProblem(await client.delete('/sandbox/snapshots/gone'), 404, 'NOT_FOUND');
    expectProblem(await client.post('/sandbox/snapshots/gone/restore'), 404, 'NOT_FOUND');
    expectProblem(await client.get('/sandbox/snapshots/gone'), 404, 'NOT_FOUND');
  });

  it("another sandbox gets 404 for a sandbox's snapshots and never sees them", async () => {
    const owner = fresh();
    const record = await create(owner, 'posts');
    await snapshot(owner, 'private');
    const other = fresh();
    const otherBefore = await everything(other);
    expect((await other.get('/sandbox/snapshots')).body).toEqual({ data: [] });
    expectProblem(await other.get('/sandbox/snapshots/private'), 404, 'NOT_FOUND');
    expectProblem(await other.post('/sandbox/snapshots/private/restore'), 404, 'NOT_FOUND');
    expectProblem(await other.delete('/sandbox/snapshots/private'), 404, 'NOT_FOUND');
    expect(await everything(other)).toEqual(otherBefore);
    expectProblem(await other.get(`/posts/${record.id}`), 404, 'NOT_FOUND');

    // The other sandbox's own snapshot of the same name is its own.
    await create(other, 'todos');
    await snapshot(other, 'private');
    expect((await owner.get('/sandbox/snapshots/private')).body.records).toBe(1);
    expect((await owner.delete(`/posts/${record.id}`)).status).toBe(200);
    await restore(owner, 'private');
    expect((await owner.get(`/posts/${record.id}`)).status).toBe(200);
    expect((await owner.get('/todos?limit=1')).body.data[0]._sandbox).toBeUndefined();
  });

  it('a reset keeps the snapshots: reset between tests, restore later', async () => {
    const client = fresh();
    const record = await create(client, 'users');
    await snapshot(client, 'keep');
    const reset = await client.post('/sandbox/reset');
    expect(reset.body.purged.users).toBe(1);
    expectProblem(await client.get(`/users/${record.id}`), 404, 'NOT_FOUND');
    expect((await client.get('/sandbox/snapshots')).body.data.map((s: { name: string }) => s.name)).toEqual(['keep']);
    await restore(client, 'keep');
    expect((await client.get(`/users/${record.id}`)).body).toEqual(record);
  });

  it('refuses bad names with 422 at /name, and unknown fields, changing nothing', async () => {
    const client = fresh();
    await create(client, 'todos');
    const cases: unknown[] = ['', '.', '..', 'a b', 'x'.repeat(65), 'é', 'a/b', '../x', 'name?', 123, null, true, ['a'], { n: 1 }];
    for (const name of cases) expectValidation(await client.post('/sandbox/snapshots', { name }), ['/name']);
    expectValidation(await client.post('/sandbox/snapshots', {}), ['/name']);
    expectValidation(await client.post('/sandbox/snapshots', { name: 'ok', label: 'x' }), ['/label']);
    expectValidation(await client.post('/sandbox/snapshots', { name: 'bad name', 'a/b': 1 }), ['/name', '/a~1b']);
    expectProblem(await client.post('/sandbox/snapshots', '{"name":'), 400, 'INVALID_JSON');
    expectProblem(await client.post('/sandbox/snapshots', '["a"]'), 400, 'INVALID_BODY');
    expectProblem(await client.post('/sandbox/snapshots', 'name=a', { 'content-type': 'text/plain' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect((await client.get('/sandbox/snapshots')).body).toEqual({ data: [] });
    // The edges of the allowed set.
    expect((await snapshot(client, 'x'.repeat(64))).records).toBe(1);
    expect((await snapshot(client, '._-Az09')).name).toBe('._-Az09');
  });

  it('a name in the path that cannot be one is simply not found', async () => {
    const client = fresh();
    expectProblem(await client.post('/sandbox/snapshots/%E2%9C%93/restore'), 404, 'NOT_FOUND');
    expectProblem(await client.delete(`/sandbox/snapshots/${'x'.repeat(300)}`), 404, 'NOT_FOUND');
  });

  it('bounds the snapshots of a sandbox (20): one more is 403, replacing one is fine', async () => {
    const client = fresh();
    for (let i = 0; i < 20; i++) await snapshot(client, `s${i}`);
    expectProblem(await client.post('/sandbox/snapshots', { name: 's20' }), 403, 'QUOTA_EXCEEDED');
    expect((await snapshot(client, 's7')).name).toBe('s7');
    expect((await client.delete('/sandbox/snapshots/s0')).status).toBe(200);
    expect((await snapshot(client, 's20')).name).toBe('s20');
    expect((await client.get('/sandbox/snapshots')).body.data).toHaveLength(20);
  });

  it('answers 405 with Allow for other methods', async () => {
    const client = fresh();
    const matrix: [string, string, string][] = [
      ['PUT', '/sandbox/snapshots', 'GET, HEAD, POST'],
      ['DELETE', '/sandbox/snapshots', 'GET, HEAD, POST'],
      ['POST', '/sandbox/snapshots/x', 'GET, HEAD, DELETE'],
      ['GET', '/sandbox/snapshots/x/restore', 'POST'],
      ['DELETE', '/sandbox/snapshots/x/restore', 'POST'],
    ];
    for (const [method, path, allow] of matrix) {
      const answer = await client.call(method, path);
      expectProblem(answer, 405, 'METHOD_NOT_ALLOWED');
      expect(answer.headers.get('allow')).toBe(allow);
    }
  });
});
