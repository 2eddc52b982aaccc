import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { sandboxClient, useServer } from './helpers/server.js';
import { create, expectProblem, type Client } from './helpers/problems.js';
import { runInProcess } from './helpers/cli-in-process.js';

const server = useServer();
const fresh = () => sandboxClient(server.api);
const names = async (client: Client, query = '') => {
  const answer = await client.get(`/events${query}`);
  expect(answer.status, answer.text).toBe(200);
  return (answer.body.data as { event: string }[]).map((e) => e.event);
};

describe('the change log: GET /events', () => {
  it('logs create, update and delete with the record after the change (as it was, for a delete), newest first', async () => {
    const client = fresh();
    const post = await create(client, 'posts', { user_id: 1 });
    const patched = (await client.patch(`/posts/${post.id}`, { title: 'Changed' })).body;
    const replaced = (await client.put('/users/2', { name: 'N', username: 'replaced-user', email: 'r@example.com' })).body;
    const before = (await client.get('/comments/3')).body;
    expect((await client.delete('/comments/3')).status).toBe(200);

    const answer = await client.get('/events');
    expect(answer.headers.get('content-type')).toMatch(/application\/json/);
    const events = answer.body.data as { id: string; event: string; timestamp: string; data: any }[];
    expect(events.map((e) => e.event)).toEqual(['comment.deleted', 'user.updated', 'post.updated', 'post.created']);
    expect(events[3].data).toEqual(post);
    expect(events[2].data).toEqual(patched);
    expect(events[1].data).toEqual(replaced);
    expect(events[0].data).toEqual(before);
    for (const event of events) {
      expect(Object.keys(event)).toEqual(['id', 'event', 'timestamp', 'data']);
      expect(event.id).toMatch(/^evt_[0-9a-z]+$/);
      expect(event.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
    // ids sort in log order
    const ids = events.map((e) => e.id);
    expect([...ids].sort().reverse()).toEqual(ids);
    expect(answer.body.pagination).toEqual({ page: 1, limit: 10, total: 4, totalPages: 1, hasNextPage: false, hasPrevPage: false, nextCursor: null });
  });

  it('filters by patterns and since, pages by page and cursor, and refuses bad parameters', async () => {
    const client = fresh();
    const post = await create(client, 'posts', { user_id: 1 });
    await create(client, 'users');
    await client.patch(`/posts/${post.id}`, { title: 'x' });
    await client.delete('/todos/1');
    expect(await names(client, '?events=posts.*')).toEqual(['post.updated', 'post.created']);
    expect(await names(client, '?event=user.created,todo.*')).toEqual(['todo.deleted', 'user.created']);
    expect(await names(client, '?events=*')).toHaveLength(4);
    const all = (await client.get('/events')).body.data as { id: string }[];
    expect(await names(client, `?since=${all[2].id}`)).toEqual(['todo.deleted', 'post.updated']);

    const first = (await client.get('/events?limit=3')).body;
    expect(first.data).toHaveLength(3);
    expect(first.pagination).toMatchObject({ total: 4, totalPages: 2, hasNextPage: true });
    await create(client, 'todos', { user_id: 1 }); // logged during the walk: never shifts it
    const second = (await client.get(`/events?limit=3&cursor=${first.pagination.nextCursor}`)).body;
    expect(second.data.map((e: { id: string }) => e.id)).toEqual([all[3].id]);
    expect(second.pagination.nextCursor).toBeNull();
    expect((await client.get('/events?limit=2&page=3')).body.data.map((e: { id: string }) => e.id)).toEqual([all[3].id]);

    expectProblem(await client.get('/events?limit=0'), 400, 'INVALID_QUERY');
    expectProblem(await client.get('/events?page=x'), 400, 'INVALID_QUERY');
    expectProblem(await client.get('/events?events=Bad!'), 400, 'INVALID_QUERY');
    expectProblem(await client.get('/events?since=nope'), 400, 'INVALID_QUERY');
    expectProblem(await client.get('/events?cursor=zzz'), 400, 'INVALID_CURSOR');
    expectProblem(await client.post('/events', {}), 405, 'METHOD_NOT_ALLOWED');
  });

  it('logs reset (after purging the log), restore and import; a reset of a sandbox that holds nothing logs nothing', async () => {
    const client = fresh();
    await create(client, 'posts', { user_id: 1 });
    const reset = await client.post('/sandbox/reset');
    const events = (await client.get('/events')).body.data;
    expect(events).toEqual([{ id: expect.any(String), event: 'sandbox.reset', timestamp: expect.any(String), data: { sandbox: client.id, purged: reset.body.purged } }]);
    expect((await client.post('/sandbox/reset')).status).toBe(200);
    expect(await names(client)).toEqual([]);

    await client.delete('/users/1');
    expect((await client.post('/sandbox/snapshots', { name: 's1' })).status).toBe(200);
    expect((await client.post('/sandbox/snapshots/s1/restore')).status).toBe(200);
    const restored = (await client.get('/events?events=sandboxes.*')).body.data;
    expect(restored.map((e: any) => [e.event, e.data])).toEqual([['sandbox.restored', { sandbox: client.id, snapshot: 's1' }]]);

    const document = (await client.get('/sandbox/export')).body;
    expect((await client.post('/sandbox/import', document)).status).toBe(200);
    expect((await client.get('/events?events=sandbox.imported')).body.data[0].data).toEqual({ sandbox: client.id });
    expect(await names(client)).toEqual(['sandbox.imported', 'sandbox.restored', 'user.deleted']);
  });

  it('a failed write logs nothing; reads log nothing; another sandbox sees none of it', async () => {
    const a = fresh();
    const b = fresh();
    await create(a, 'posts', { user_id: 1 });
    expect((await a.post('/posts', { title: 'no body' })).status).toBe(422);
    expect((await a.patch('/posts/99999', { title: 'x' })).status).toBe(404);
    await a.get('/posts');
    expect(await names(a)).toEqual(['post.created']);
    expect(await names(b)).toEqual([]);
    expect((await b.get('/events')).body.pagination.total).toBe(0);
  });

  it('logs a reset made by the CLI on the same file', async () => {
    const client = fresh();
    await create(client, 'users');
    const run = await runInProcess(['reset', '--sandbox', client.id, '--db', server.db], tmpdir());
    expect(run.code, run.stderr).toBe(0);
    const events = (await client.get('/events')).body.data;
    expect(events.map((e: any) => e.event)).toEqual(['sandbox.reset']);
    expect(events[0].data.purged.users).toBe(1);
  });
});
