import { describe, it, expect } from 'vitest';
import { sandboxClient, useServer } from './helpers/server.js';
import { BASELINE, COLLECTIONS, create, expectProblem, newRecord, request, totals, type Client } from './helpers/problems.js';

const server = useServer();

const fresh = () => sandboxClient(server.api);
const zeros = { users: 0, posts: 0, comments: 0, todos: 0, custom: 0 };

/** The first page of every collection, as JSON, for exact before/after comparison. */
async function firstPages(client: Client) {
  const pages: Record<string, unknown> = {};
  for (const collection of COLLECTIONS) {
    for (const query of ['', '?limit=200']) {
      const answer = await client.get(`/${collection}${query}`);
      expect(answer.status).toBe(200);
      pages[`${collection}${query}`] = answer.body;
    }
  }
  return pages;
}

/** Writes 2 + 1 + 1 user rows, 1 + 1 post rows, 1 comment row and 1 todo row into the overlay. */
async function dirty(client: Client) {
  const users = [await create(client, 'users'), await create(client, 'users')];
  const post = await create(client, 'posts', { user_id: users[0].id });
  expect((await client.patch('/users/1', { name: 'Changed' })).status).toBe(200);
  expect((await client.delete('/users/3')).status).toBe(200);
  expect((await client.put('/posts/2', { user_id: 1, title: 'Replaced', body: 'Replaced' })).status).toBe(200);
  expect((await client.delete('/comments/5')).status).toBe(200);
  expect((await client.patch('/todos/4', { completed: true, title: 'Changed' })).status).toBe(200);
  return { users, post, purged: { users: 4, posts: 2, comments: 1, todos: 1, custom: 0 } };
}

describe('POST /sandbox/reset', () => {
  it('purges created, updated and deleted records, counts them, and restores the exact baseline', async () => {
    const client = fresh();
    const before = await firstPages(client);
    const { users, post, purged } = await dirty(client);
    expect(await firstPages(client)).not.toEqual(before);

    const answer = await client.post('/sandbox/reset');
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({ message: expect.any(String), sandbox: client.id, purged });

    expect(await firstPages(client)).toEqual(before);
    for (const record of [...users, post]) {
      const collection = record.username ? 'users' : 'posts';
      expectProblem(await client.get(`/${collection}/${record.id}`), 404, 'NOT_FOUND');
    }
    for (const path of ['/users/1', '/users/3', '/posts/2', '/comments/5', '/todos/4']) {
      const answer = await client.get(path);
      expect(answer.status).toBe(200);
      expect(answer.body).not.toHaveProperty('_sandbox');
      expect(answer.body).toEqual((await fresh().get(path)).body);
    }
  });

  it('of an empty sandbox, and a second reset, purge nothing', async () => {
    const client = fresh();
    const first = await client.post('/sandbox/reset');
    expect(first.status, first.text).toBe(200);
    expect(first.body).toEqual({ message: expect.any(String), sandbox: client.id, purged: zeros });

    await dirty(client);
    expect((await client.post('/sandbox/reset')).body.purged).not.toEqual(zeros);
    expect((await client.post('/sandbox/reset')).body.purged).toEqual(zeros);
  });

  it('leaves other sandboxes untouched', async () => {
    const mine = fresh();
    const theirs = fresh();
    await dirty(mine);
    const { users } = await dirty(theirs);
    const theirPages = await firstPages(theirs);

    expect((await mine.post('/sandbox/reset')).status).toBe(200);
    expect(await firstPages(theirs)).toEqual(theirPages);
    expect((await theirs.get(`/users/${users[0].id}`)).body).toEqual(users[0]);
    expect(await totals(theirs)).toEqual({ users: BASELINE.users + 2 - 1, posts: BASELINE.posts + 1, comments: BASELINE.comments - 1, todos: BASELINE.todos });
  });

  it('frees the cap', async () => {
    const client = fresh();
    for (let batch = 0; batch < 3; batch++) await Promise.all(Array.from({ length: 10 }, () => create(client, 'todos')));
    expectProblem(await client.post('/todos', newRecord('todos')), 403, 'QUOTA_EXCEEDED');
    const answer = await client.post('/sandbox/reset');
    expect(answer.body.purged).toEqual({ ...zeros, todos: 30 });
    await create(client, 'todos');
    expect(await totals(client)).toEqual({ ...BASELINE, todos: BASELINE.todos + 1 });
  });

  it('ignores a body', async () => {
    const client = fresh();
    await create(client, 'posts');
    const answer = await client.post('/sandbox/reset', { sandbox: 'someone-else' });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.sandbox).toBe(client.id);
    expect(answer.body.purged.posts).toBe(1);
  });
});

describe('GET /health', () => {
  it('answers {status: "ok", version, uptime}', async () => {
    const first = await request(`${server.url}/health`);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toMatch(/^application\/json/);
    expect(first.body).toEqual({ status: 'ok', version: expect.any(String), uptime: expect.any(Number) });
    expect(first.body.version.length).toBeGreaterThan(0);
    expect(first.body.uptime).toBeGreaterThanOrEqual(0);
    expect(first.body.uptime).toBeLessThan(3600);
    await new Promise((done) => setTimeout(done, 1100));
    const second = await request(`${server.url}/health`);
    expect(second.body.uptime).toBeGreaterThan(first.body.uptime);
  });
});

describe('routing: unknown routes 404, wrong methods 405 with Allow', () => {
  const v1 = '/api/v1';
  const matrix: Array<{ method: string; path: string; status: number; allow?: string[] }> = [
    { method: 'GET', path: `${v1}/nope`, status: 404 },
    { method: 'POST', path: `${v1}/nope`, status: 404 },
    { method: 'GET', path: `${v1}/nope/1`, status: 404 },
    { method: 'GET', path: `${v1}/users/1/nope`, status: 404 },
    { method: 'GET', path: `${v1}/users/1/nope/2`, status: 404 },
    { method: 'DELETE', path: `${v1}/users/1/nope/2`, status: 404 },
    { method: 'GET', path: '/nope', status: 404 },
    { method: 'GET', path: '/api/v2/users', status: 404 },
    { method: 'GET', path: '/users', status: 404 },
    { method: 'GET', path: `${v1}/Users`, status: 404 },
    { method: 'GET', path: `${v1}/sandbox/nope`, status: 404 },
    { method: 'DELETE', path: `${v1}/users`, status: 405, allow: ['GET', 'POST'] },
    { method: 'PUT', path: `${v1}/posts`, status: 405, allow: ['GET', 'POST'] },
    { method: 'PATCH', path: `${v1}/comments`, status: 405, allow: ['GET', 'POST'] },
    { method: 'DELETE', path: `${v1}/todos`, status: 405, allow: ['GET', 'POST'] },
    { method: 'POST', path: `${v1}/users/1`, status: 405, allow: ['GET', 'PUT', 'PATCH', 'DELETE'] },
    { method: 'POST', path: `${v1}/todos/999999`, status: 405, allow: ['GET', 'PUT', 'PATCH', 'DELETE'] },
    { method: 'PUT', path: `${v1}/sandbox/reset`, status: 405, allow: ['POST'] },
    { method: 'GET', path: `${v1}/sandbox/reset`, status: 405, allow: ['POST'] },
    { method: 'DELETE', path: `${v1}/sandbox/reset`, status: 405, allow: ['POST'] },
    { method: 'POST', path: '/health', status: 405, allow: ['GET'] },
    { method: 'DELETE', path: '/health', status: 405, allow: ['GET'] },
  ];

  it.each(matrix)('$method $path → $status', async ({ method, path, status, allow }) => {
    const client = fresh();
    const answer = await request(`${server.url}${path}`, { method, headers: { cookie: `svc_identity=${client.id}` } });
    expectProblem(answer, status, status === 404 ? 'NOT_FOUND' : 'METHOD_NOT_ALLOWED');
    if (allow) {
      const listed = (answer.headers.get('allow') ?? '').split(',').map((m) => m.trim().toUpperCase()).filter(Boolean);
      expect(listed).toEqual(expect.arrayContaining(allow));
      expect(listed.filter((m) => !allow.includes(m) && m !== 'HEAD')).toEqual([]);
    }
    // Nothing was written by a refused request.
    expect(await totals(client)).toEqual(BASELINE);
  });
});
