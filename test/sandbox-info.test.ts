import { describe, it, expect } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { sandboxClient, useServer } from './helpers/server.js';
import { COLLECTIONS, create, expectProblem, request } from './helpers/problems.js';

// A small activity bound, so the log's bound is cheap to reach.
const configDir = mkdtempSync(join(tmpdir(), 'mockapi-info-'));
writeFileSync(join(configDir, 'mockapi.config.json'), JSON.stringify({ limits: { activity: 5 } }));
const server = useServer({ args: ['--config', join(configDir, 'mockapi.config.json')] });

const fresh = () => sandboxClient(server.api);
const isoNear = (value: string, from: number, to = Date.now()) => {
  expect(value).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  const ms = Date.parse(value);
  expect(ms).toBeGreaterThanOrEqual(from - 5);
  expect(ms).toBeLessThanOrEqual(to + 5);
};
/** The sandbox's row, read from the file as another process would. */
const rowOf = (key: string) => {
  const db = new Database(server.db, { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT sid, created_at, last_active_at FROM sandboxes WHERE key = ?').get(key) as
      | { sid: number; created_at: number; last_active_at: number }
      | undefined;
  } finally {
    db.close();
  }
};

describe('GET /sandbox', () => {
  it('describes a new visitor: no data, zero requests, every quota unused, no row on file', async () => {
    const client = fresh();
    const started = Date.now();
    const answer = await client.get('/sandbox');
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(answer.body).sort()).toEqual(['createdAt', 'id', 'lastActiveAt', 'quotas', 'requests', 'snapshots']);
    expect(answer.body.id).toBe(client.id);
    isoNear(answer.body.createdAt, started);
    isoNear(answer.body.lastActiveAt, started);
    expect(answer.body.requests).toBe(0);
    expect(answer.body.snapshots).toBe(0);
    expect(answer.body.quotas).toEqual({
      ...Object.fromEntries(COLLECTIONS.map((c) => [c, { created: 0, limit: 30 }])),
      bytes: { used: 0, limit: 8 * 1024 * 1024 },
      custom: { collections: { used: 0, limit: 20 }, records: {} },
    });

    // Reading stores nothing, not even the sandbox's row.
    expect((await client.get('/posts?limit=3')).status).toBe(200);
    expect((await client.get('/users/1')).status).toBe(200);
    expect(rowOf(client.id)).toBeUndefined();
    const again = (await client.get('/sandbox')).body;
    expect(again.requests).toBe(3);
    expect(again.createdAt).toBe(answer.body.createdAt);
    expect(Date.parse(again.lastActiveAt)).toBeGreaterThan(Date.parse(answer.body.createdAt));
  });

  it('counts every answered request of the sandbox, errors included', async () => {
    const client = fresh();
    await client.get('/posts');
    await client.get('/posts/999999'); // 404
    await client.post('/posts', { title: 'no user' }); // 422
    await client.get('/no-such-collection'); // 404 before the handler reads the sandbox
    await client.call('PATCH', '/posts'); // 405
    const answer = await client.get('/sandbox');
    expect(answer.body.requests).toBe(5);
    const statuses = (await client.get('/sandbox/activity')).body.data.map((e: { status: number }) => e.status);
    expect(statuses).toEqual([200, 405, 404, 422, 404]);
  });

  it('reports live created records per collection against the cap, and the row times once it writes', async () => {
    const client = fresh();
    const started = Date.now();
    const posts = [await create(client, 'posts'), await create(client, 'posts')];
    await create(client, 'todos');
    expect((await client.patch('/users/2', { name: 'Changed' })).status).toBe(200); // not a created record
    expect((await client.delete(`/posts/${posts[0].id}`)).status).toBe(200);
    const answer = await client.get('/sandbox');
    // The stored JSON is what a GET sends: the overlay holds these three records' texts and the deleted post's nothing.
    const stored = await Promise.all([`/posts/${posts[1].id}`, `/todos`, '/users/2'].map((path) => client.get(path)));
    const todo = stored[1].body.data.find((t: { _sandbox?: string }) => t._sandbox === 'created');
    const todoText = (await client.get(`/todos/${todo.id}`)).text;
    const used = Buffer.byteLength(stored[0].text) + Buffer.byteLength(todoText) + Buffer.byteLength(stored[2].text);
    expect(answer.body.quotas).toEqual({
      users: { created: 0, limit: 30 },
      posts: { created: 1, limit: 30 },
      comments: { created: 0, limit: 30 },
      todos: { created: 1, limit: 30 },
      bytes: { used, limit: 8 * 1024 * 1024 },
      custom: { collections: { used: 0, limit: 20 }, records: {} },
    });
    const row = rowOf(client.id)!;
    expect(row).toBeDefined();
    isoNear(answer.body.createdAt, started);
    expect(Date.parse(answer.body.createdAt)).toBeLessThanOrEqual(row.created_at);
    expect(Date.parse(answer.body.lastActiveAt)).toBeGreaterThanOrEqual(row.last_active_at);

    // Reset purges the records, not the sandbox: it keeps its creation time.
    expect((await client.post('/sandbox/reset')).status).toBe(200);
    const after = (await client.get('/sandbox')).body;
    expect(after.quotas.posts.created).toBe(0);
    expect(after.createdAt).toBe(answer.body.createdAt);
  });

  it('is per sandbox: another one sees none of its counts, records or requests', async () => {
    const a = fresh();
    const b = fresh();
    await create(a, 'users');
    await a.get('/users');
    await a.get('/sandbox');
    const bInfo = (await b.get('/sandbox')).body;
    expect(bInfo.id).toBe(b.id);
    expect(bInfo.requests).toBe(0);
    expect(bInfo.quotas.users.created).toBe(0);
    expect((await b.get('/sandbox/activity')).body).toEqual({ data: [{ method: 'GET', path: '/api/v1/sandbox', status: 200, durationMs: expect.any(Number), at: expect.any(String) }] });
    const aInfo = (await a.get('/sandbox')).body;
    expect(aInfo.requests).toBe(3);
    expect(aInfo.quotas.users.created).toBe(1);
  });

  it('a request without a cookie gets a new sandbox and its description', async () => {
    const answer = await request(`${server.api}/sandbox`);
    expect(answer.status).toBe(200);
    const cookie = answer.headers.get('set-cookie') ?? '';
    const id = /svc_identity=([^;]+)/.exec(cookie)?.[1];
    expect(id).toBeTruthy();
    expect(answer.body.id).toBe(id);
    expect(answer.body.requests).toBe(0);
  });

  it('refuses other methods and a malformed identity', async () => {
    const client = fresh();
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const answer = await client.call(method, '/sandbox');
      expectProblem(answer, 405, 'METHOD_NOT_ALLOWED');
      expect(answer.headers.get('allow')).toBe('GET, HEAD');
    }
    expectProblem(await client.call('POST', '/sandbox/activity'), 405, 'METHOD_NOT_ALLOWED');
    expectProblem(await request(`${server.api}/sandbox`, { headers: { cookie: 'svc_identity=bad id!' } }), 400, 'INVALID_IDENTITY');
    expectProblem(await request(`${server.api}/sandbox/activity`, { headers: { cookie: 'svc_identity=bad id!' } }), 400, 'INVALID_IDENTITY');
  });
});

describe('GET /sandbox/activity', () => {
  it('lists the recent requests newest first, with method, path without query, status, duration and time', async () => {
    const client = fresh();
    const started = Date.now();
    await client.get('/posts?limit=2&_sort=title');
    const created = await create(client, 'todos');
    await client.get(`/todos/${created.id}`);
    const answer = await client.get('/sandbox/activity');
    expect(answer.status, answer.text).toBe(200);
    const data = answer.body.data;
    expect(data.map((e: any) => [e.method, e.path, e.status])).toEqual([
      ['GET', `/api/v1/todos/${created.id}`, 200],
      ['POST', '/api/v1/todos', 200],
      ['GET', '/api/v1/posts', 200],
    ]);
    for (const entry of data) {
      expect(Object.keys(entry).sort()).toEqual(['at', 'durationMs', 'method', 'path', 'status']);
      expect(entry.durationMs).toBeGreaterThanOrEqual(0);
      expect(entry.durationMs).toBeLessThan(10_000);
      isoNear(entry.at, started);
    }
    const times = data.map((e: any) => Date.parse(e.at));
    expect([...times].sort((x, y) => y - x)).toEqual(times);
  });

  it('keeps at most limits.activity entries (5 here), the newest', async () => {
    const client = fresh();
    for (let i = 1; i <= 8; i++) await client.get(`/posts/${i}`);
    const data = (await client.get('/sandbox/activity')).body.data;
    expect(data.map((e: any) => e.path)).toEqual([8, 7, 6, 5, 4].map((i) => `/api/v1/posts/${i}`));
    // The count is not bounded by the log.
    expect((await client.get('/sandbox')).body.requests).toBe(9);
    const next = (await client.get('/sandbox/activity')).body.data;
    expect(next.map((e: any) => e.path)).toEqual(['/api/v1/sandbox', '/api/v1/sandbox/activity', '/api/v1/posts/8', '/api/v1/posts/7', '/api/v1/posts/6']);
  });

  it('records failures with their status, and a long path cut short', async () => {
    const client = fresh();
    await client.post('/posts', '{not json');
    await client.get(`/posts/${'x'.repeat(2000)}`);
    const data = (await client.get('/sandbox/activity')).body.data;
    expect(data[0].status).toBe(404);
    expect(data[0].path.length).toBeLessThanOrEqual(260);
    expect(data[0].path.startsWith('/api/v1/posts/xxx')).toBe(true);
    expect(data[1]).toMatchObject({ method: 'POST', path: '/api/v1/posts', status: 400 });
  });

  it('is empty for a new sandbox, and never shows another sandbox', async () => {
    const a = fresh();
    await a.get('/users/1');
    const b = fresh();
    expect((await b.get('/sandbox/activity')).body).toEqual({ data: [] });
    expect((await a.get('/sandbox/activity')).body.data.map((e: any) => e.path)).toEqual(['/api/v1/users/1']);
  });

  it('does not count requests outside the API', async () => {
    const client = fresh();
    await request(`${server.url}/health`, { headers: { cookie: `svc_identity=${client.id}` } });
    expect((await client.get('/sandbox')).body.requests).toBe(0);
  });
});
