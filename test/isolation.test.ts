import { describe, it, expect, beforeAll } from 'vitest';
import { sandboxClient, useServer } from './helpers/server.js';
import { BASELINE, COLLECTIONS, LOCAL_ID, create, expectProblem, listAll, newRecord, totalOf, type Client } from './helpers/problems.js';

const server = useServer();

const fresh = () => sandboxClient(server.api);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const ok = async <T extends { status: number; text: string }>(pending: Promise<T>): Promise<T> => {
  const answer = await pending;
  expect(answer.status, answer.text).toBe(200);
  return answer;
};

interface Visitor {
  index: number;
  client: Client;
  users: any[];
  post: any;
  comment: any;
  todo: any;
  /** Baseline ids this sandbox updated or deleted. */
  renamedUser: number;
  deletedPost: number;
  deletedTodo: number;
  deletedComment: number;
}

/** One sandbox's workload: creates in every collection, one update and three deletes, as parallel as dependencies allow. */
async function visit(index: number): Promise<Visitor> {
  const client = fresh();
  const renamedUser = (index % 25) + 1;
  const [users, , , , , todo] = await Promise.all([
    // The same username and email in every sandbox: uniqueness is per sandbox.
    Promise.all([
      create(client, 'users', { username: 'shared_a', email: 'shared.a@example.test' }),
      create(client, 'users', { username: 'shared_b', email: 'shared.b@example.test' }),
    ]),
    ok(client.patch(`/users/${renamedUser}`, { name: `Sandbox ${index}` })),
    ok(client.delete(`/posts/${index + 1}`)),
    ok(client.delete(`/todos/${index + 1}`)),
    ok(client.delete(`/comments/${index + 1}`)),
    create(client, 'todos', { user_id: renamedUser }),
  ]);
  const post = await create(client, 'posts', { user_id: users[0].id });
  const comment = await create(client, 'comments', { post_id: post.id });
  return { index, client, users, post, comment, todo, renamedUser, deletedPost: index + 1, deletedTodo: index + 1, deletedComment: index + 1 };
}

describe('40 sandboxes working at the same time', () => {
  const SANDBOXES = 40;
  let visitors: Visitor[];
  let baselineUsers: any[];

  beforeAll(async () => {
    visitors = await Promise.all(range(0, SANDBOXES - 1).map(visit));
    baselineUsers = await listAll(fresh(), 'users');
  }, 60_000);

  const createdIds = (v: Visitor) => [...v.users.map((u) => u.id), v.post.id, v.comment.id, v.todo.id];

  it('every created id is a distinct local id', () => {
    const ids = visitors.flatMap(createdIds);
    for (const id of ids) expect(id).toMatch(LOCAL_ID);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('each sandbox counts exactly its own changes', async () => {
    await Promise.all(
      visitors.map(async (v) => {
        expect(await totalOf(v.client, 'users')).toBe(BASELINE.users + 2);
        expect(await totalOf(v.client, 'posts')).toBe(BASELINE.posts + 1 - 1);
        expect(await totalOf(v.client, 'comments')).toBe(BASELINE.comments + 1 - 1);
        expect(await totalOf(v.client, 'todos')).toBe(BASELINE.todos + 1 - 1);
      }),
    );
  });

  it('each sandbox lists exactly its own created records, updates and deletes', async () => {
    await Promise.all(
      visitors.map(async (v) => {
        const users = await listAll(v.client, 'users');
        // The two users were created concurrently, so only their set is fixed, not their order.
        const ids = users.map((u) => u.id);
        expect(new Set(ids.slice(0, 2))).toEqual(new Set(v.users.map((u) => u.id)));
        expect(ids.slice(2)).toEqual(range(1, BASELINE.users));
        expect(new Set(users.filter((u) => u._sandbox === 'created').map((u) => u.id))).toEqual(new Set(v.users.map((u) => u.id)));
        for (const user of users.filter((u) => typeof u.id === 'number')) {
          if (user.id === v.renamedUser) expect(user).toEqual({ ...baselineUsers[user.id - 1], name: `Sandbox ${v.index}`, _sandbox: 'updated' });
          else expect(user).toEqual(baselineUsers[user.id - 1]);
        }

        const posts = await listAll(v.client, 'posts');
        expect(posts.map((p) => p.id)).toEqual([v.post.id, ...range(1, BASELINE.posts).filter((id) => id !== v.deletedPost)]);
        const todos = await listAll(v.client, 'todos');
        expect(todos.map((t) => t.id)).toEqual([v.todo.id, ...range(1, BASELINE.todos).filter((id) => id !== v.deletedTodo)]);
        const comments = await listAll(v.client, 'comments');
        expect(comments.map((c) => c.id)).toEqual([v.comment.id, ...range(1, BASELINE.comments).filter((id) => id !== v.deletedComment)]);
      }),
    );
  }, 60_000);

  it('each sandbox reads its own records by id and gets 404 for its neighbours’', async () => {
    await Promise.all(
      visitors.map(async (v) => {
        for (const [collection, record] of [
          ['users', v.users[0]],
          ['users', v.users[1]],
          ['posts', v.post],
          ['comments', v.comment],
          ['todos', v.todo],
        ] as const) {
          expect((await v.client.get(`/${collection}/${record.id}`)).body).toEqual(record);
        }
        // Each sandbox's records are probed by two others: one made in the same burst beside it, one far off.
        for (const step of [1, 20]) {
          const other = visitors[(v.index + step) % visitors.length];
          for (const [collection, record] of [
            ['users', other.users[0]],
            ['posts', other.post],
            ['comments', other.comment],
            ['todos', other.todo],
          ] as const) {
            expectProblem(await v.client.get(`/${collection}/${record.id}`), 404, 'NOT_FOUND');
            expectProblem(await v.client.delete(`/${collection}/${record.id}`), 404, 'NOT_FOUND');
          }
          // The neighbour's deleted baseline records are still here.
          expect((await v.client.get(`/posts/${other.deletedPost}`)).status).toBe(200);
          expect((await v.client.get(`/todos/${other.deletedTodo}`)).status).toBe(200);
        }
      }),
    );
  }, 60_000);

  it('a sandbox that never wrote sees the exact baseline', async () => {
    const client = fresh();
    for (const collection of COLLECTIONS) expect(await totalOf(client, collection)).toBe(BASELINE[collection]);
    expect(await listAll(client, 'users')).toEqual(baselineUsers);
    for (const user of baselineUsers) expect(user).not.toHaveProperty('_sandbox');
  });
});

describe('the cap of 30 live created records per sandbox per collection', () => {
  it.each(COLLECTIONS)('%s: the 31st POST is 403 QUOTA_EXCEEDED and writes nothing', async (collection) => {
    const client = fresh();
    for (let batch = 0; batch < 3; batch++) await Promise.all(range(1, 10).map(() => create(client, collection)));
    expectProblem(await client.post(`/${collection}`, newRecord(collection)), 403, 'QUOTA_EXCEEDED');
    expect(await totalOf(client, collection)).toBe(BASELINE[collection] + 30);
  });

  it('holds under concurrency: of 36 simultaneous POSTs exactly 30 succeed', async () => {
    const client = fresh();
    const answers = await Promise.all(range(1, 36).map(() => client.post('/todos', newRecord('todos'))));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(30);
    for (const answer of answers.filter((a) => a.status !== 200)) expectProblem(answer, 403, 'QUOTA_EXCEEDED');
    expect(await totalOf(client, 'todos')).toBe(BASELINE.todos + 30);
  });

  it('is per collection and per sandbox; deleting a created record frees a slot, baseline changes do not count', async () => {
    const client = fresh();
    const todos = [];
    for (let batch = 0; batch < 3; batch++) todos.push(...(await Promise.all(range(1, 10).map(() => create(client, 'todos')))));
    expectProblem(await client.post('/todos', newRecord('todos')), 403, 'QUOTA_EXCEEDED');

    // Other collections and other sandboxes are unaffected.
    await create(client, 'posts');
    await create(fresh(), 'todos');

    // Updating and deleting baseline records is not creating.
    expect((await client.patch('/todos/1', { completed: true })).status).toBe(200);
    expect((await client.delete('/todos/2')).status).toBe(200);
    expectProblem(await client.post('/todos', newRecord('todos')), 403, 'QUOTA_EXCEEDED');

    // Updating a created record does not use a slot either; deleting one frees one.
    expect((await client.patch(`/todos/${todos[0].id}`, { title: 'still one' })).status).toBe(200);
    expect((await client.delete(`/todos/${todos[1].id}`)).status).toBe(200);
    await create(client, 'todos');
    expectProblem(await client.post('/todos', newRecord('todos')), 403, 'QUOTA_EXCEEDED');
    expect(await totalOf(client, 'todos')).toBe(BASELINE.todos + 30 - 1);
  });
});
