import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { resolveConfig } from '../src/config.js';
import { createRuntime, type Runtime } from '../src/runtime.js';

// Relations are batched per request (issue 22): the nested query runs a constant number of SQL
// statements whatever the page size. Mutations fire the engine's change events as REST writes do.
// Counted on the app in this worker, over a runtime of its own: better-sqlite3's statement
// execution is wrapped on the prototype every prepared statement shares, for the test's duration.
const dir = mkdtempSync(join(tmpdir(), 'mockapi-batching-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Counted {
  runtime: Runtime;
  /** A request to the app in sandbox `sandbox`; its JSON answer. */
  call: (sandbox: string, method: string, path: string, body?: unknown) => Promise<any>;
  /** Statements executed since the start or the last `restart()`. */
  executed: () => number;
  restart: () => void;
}

/** A fresh runtime and app on a file of their own, with every statement execution counted. */
async function countedApp<T>(use: (app: Counted) => Promise<T>): Promise<T> {
  const runtime = await createRuntime(resolveConfig({}, { db: join(dir, `${crypto.randomUUID()}.db`) }));
  const app = createApp(runtime);
  let executed = 0;
  const proto = Object.getPrototypeOf(runtime.db.sqlite.prepare('SELECT 1'));
  const originals = Object.fromEntries(['get', 'all', 'run', 'iterate'].map((name) => [name, proto[name]]));
  for (const [name, original] of Object.entries(originals)) {
    proto[name] = function (this: unknown, ...args: unknown[]) {
      executed++;
      return original.apply(this, args);
    };
  }
  try {
    // A write, so the sandbox exists and its overlay takes part in every statement.
    await runtime.engine.forSandbox('batch').collection('posts').create({ user_id: 1, title: 't', body: 'b' });
    const call = async (sandbox: string, method: string, path: string, body?: unknown) =>
      (
        await app.fetch(
          new Request(`http://x/api/v1${path}`, { method, headers: { 'content-type': 'application/json', 'x-sandbox': sandbox }, body: body === undefined ? undefined : JSON.stringify(body) }),
        )
      ).json();
    return await use({ runtime, call, executed: () => executed, restart: () => (executed = 0) });
  } finally {
    Object.assign(proto, originals);
    runtime.close();
  }
}

type Result = { statements: number; body: { data?: { posts: { data: { user: { todos: unknown[] }; comments: unknown[] }[] } }; errors?: unknown } };
const runQueries = (queries: string[]): Promise<Result[]> =>
  countedApp(async ({ call, executed, restart }) => {
    // GraphQL loads on its first request (graphql/endpoint.ts): load it before counting.
    await call('batch', 'POST', '/graphql', { query: '{ __typename }' });
    const out: Result[] = [];
    for (const query of queries) {
      restart();
      const body = await call('batch', 'POST', '/graphql', { query });
      out.push({ statements: executed(), body });
    }
    return out;
  });

/** The change events a REST write and the same GraphQL write fire (webhooks and live events consume them). */
const writeEvents = () =>
  countedApp(async ({ call, runtime }) => {
    const rest = await call('events', 'POST', '/posts', { user_id: 1, title: 'rest', body: 'b' });
    await call('events', 'PATCH', `/posts/${rest.id}`, { title: 'rest 2' });
    await call('events', 'DELETE', `/posts/${rest.id}`);
    const made = await call('events', 'POST', '/graphql', { query: 'mutation { createPost(input: { user_id: 1, title: "gql", body: "b" }) { id } }' });
    const id = made.data.createPost.id;
    await call('events', 'POST', '/graphql', { query: 'mutation($id: ID!) { updatePost(id: $id, input: { title: "gql 2" }) { id } deletePost(id: $id) { id } }', variables: { id } });
    // Read from the change log, where every write appends its event in its own transaction.
    return runtime.engine.changes
      .after(0)
      .filter((e) => e.sandbox === 'events')
      .map((e) => ({ event: e.event, title: JSON.parse(e.data).title as string }));
  });
const nested = (limit: number, args = '') => `{ posts(limit: ${limit}) { data { id user { id todos${args} { id } } comments${args} { id } } } }`;

describe('batched relations', () => {
  it.each([
    ['', 'every related record'],
    ['(limit: 3, sort: "-id")', 'list arguments on the relations'],
  ])('run the same few statements for 10 posts and for 100 (%s: %s)', async (args) => {
    // The first query also fills the in-memory sandbox lookup (engine/sandbox-store.ts): count warm.
    // It asks for 11 posts: the same document again would be answered from the answer cache.
    const [, small, large] = await runQueries([nested(11, args), nested(10, args), nested(100, args)]);
    expect(small!.body.errors).toBeUndefined();
    expect(large!.body.errors).toBeUndefined();
    expect(large!.body.data!.posts.data).toHaveLength(100);
    const todos = large!.body.data!.posts.data.reduce((n, post) => n + post.user.todos.length, 0);
    expect(todos).toBeGreaterThan(100);
    // The posts page, users by id, todos by user, comments by post; each read also looks up the sandbox's number.
    expect(large!.statements).toBe(small!.statements);
    expect(large!.statements).toBeLessThanOrEqual(8);
  });
});

describe('GraphQL mutations', () => {
  it('fire the same change events as the REST writes', async () => {
    const events = await writeEvents();
    expect(events).toEqual([
      { event: 'post.created', title: 'rest' },
      { event: 'post.updated', title: 'rest 2' },
      { event: 'post.deleted', title: 'rest 2' },
      { event: 'post.created', title: 'gql' },
      { event: 'post.updated', title: 'gql 2' },
      { event: 'post.deleted', title: 'gql 2' },
    ]);
  });
});
