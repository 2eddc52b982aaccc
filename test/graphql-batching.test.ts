import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from './helpers/server.js';

// Relations are batched per request (issue 22): the nested query runs a constant number of SQL
// statements whatever the page size. Mutations fire the engine's change events as REST writes do. Counted in a separate plain Node process running the built
// app in-process (vitest would load graphql twice, as ESM and CJS): better-sqlite3's statement
// execution is wrapped on the prototype every prepared statement shares.
const dir = mkdtempSync(join(tmpdir(), 'mockapi-batching-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const script = `
const [{ createApp }, { resolveConfig }, { createRuntime }] = await Promise.all(
  ['app.js', 'config.js', 'runtime.js'].map((file) => import(${JSON.stringify(join(repoRoot, 'dist'))} + '/' + file)));
const runtime = await createRuntime(resolveConfig({}, { db: process.env.DB }));
const app = createApp(runtime);
let executed = 0;
const proto = Object.getPrototypeOf(runtime.db.sqlite.prepare('SELECT 1'));
for (const name of ['get', 'all', 'run', 'iterate']) {
  const original = proto[name];
  proto[name] = function (...args) { executed++; return original.apply(this, args); };
}
// A write, so the sandbox exists and its overlay takes part in every statement.
await runtime.engine.forSandbox('batch').collection('posts').create({ user_id: 1, title: 't', body: 'b' });
const out = [];
if (process.env.EVENTS) {
  // The change events a REST write and the same GraphQL write fire (webhooks and live events consume them).
  const events = [];
  const call = (method, path, body) => app.fetch(new Request('http://x/api/v1' + path, { method,
    headers: { 'content-type': 'application/json', 'x-sandbox': 'events' }, body: body && JSON.stringify(body) })).then((r) => r.json());
  const rest = await call('POST', '/posts', { user_id: 1, title: 'rest', body: 'b' });
  await call('PATCH', '/posts/' + rest.id, { title: 'rest 2' });
  await call('DELETE', '/posts/' + rest.id);
  const made = await call('POST', '/graphql', { query: 'mutation { createPost(input: { user_id: 1, title: "gql", body: "b" }) { id } }' });
  const id = made.data.createPost.id;
  await call('POST', '/graphql', { query: 'mutation($id: ID!) { updatePost(id: $id, input: { title: "gql 2" }) { id } deletePost(id: $id) { id } }', variables: { id } });
  // Read from the change log, where every write appends its event in its own transaction.
  for (const e of runtime.engine.changes.after(0)) if (e.sandbox === 'events') events.push({ event: e.event, title: JSON.parse(e.data).title });
  console.log(JSON.stringify(events));
  process.exit(0);
}
// GraphQL loads on its first request (graphql/endpoint.ts): load it before counting.
await app.fetch(new Request('http://x/api/v1/graphql', { method: 'POST',
  headers: { 'content-type': 'application/json', 'x-sandbox': 'batch' }, body: JSON.stringify({ query: '{ __typename }' }) }));
for (const query of JSON.parse(process.env.QUERIES)) {
  executed = 0;
  const answer = await app.fetch(new Request('http://x/api/v1/graphql', { method: 'POST',
    headers: { 'content-type': 'application/json', 'x-sandbox': 'batch' }, body: JSON.stringify({ query }) }));
  out.push({ statements: executed, body: await answer.json() });
}
runtime.close();
console.log(JSON.stringify(out));
`;

type Result = { statements: number; body: { data?: { posts: { data: { user: { todos: unknown[] }; comments: unknown[] }[] } }; errors?: unknown } };
const runScript = (env: Record<string, string>) =>
  JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, DB: join(dir, `${Math.random()}.db`), ...env },
      encoding: 'utf8',
    }),
  );
const runQueries = (queries: string[]): Result[] => runScript({ QUERIES: JSON.stringify(queries) });
const nested = (limit: number, args = '') => `{ posts(limit: ${limit}) { data { id user { id todos${args} { id } } comments${args} { id } } } }`;

describe('batched relations', () => {
  it.each([
    ['', 'every related record'],
    ['(limit: 3, sort: "-id")', 'list arguments on the relations'],
  ])('run the same few statements for 10 posts and for 100 (%s: %s)', (args) => {
    // The first query also fills the in-memory sandbox lookup (engine/sandbox-store.ts): count warm.
    // It asks for 11 posts: the same document again would be answered from the answer cache.
    const [, small, large] = runQueries([nested(11, args), nested(10, args), nested(100, args)]);
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
  it('fire the same change events as the REST writes', () => {
    const events = runScript({ EVENTS: '1' }) as { event: string; title: string }[];
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
