import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { repoRoot, sandboxClient, useServer } from './helpers/server.js';
import { BASELINE, COLLECTIONS, create, expectProblem, LOCAL_ID, listAll, newRecord, request, totals, type Client } from './helpers/problems.js';

const server = useServer();
const fresh = () => sandboxClient(server.api);

const schema = JSON.parse(readFileSync(join(repoRoot, 'schemas/mockapi-export.schema.json'), 'utf8'));
const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
(addFormats as unknown as (ajv: Ajv2020, formats: string[]) => void)(ajv, ['date-time']);
const validateDocument = ajv.compile(schema);

const emptyOverlay = { created: [], updated: [], deleted: [] };
const emptyCollections = Object.fromEntries(COLLECTIONS.map((c) => [c, emptyOverlay]));

async function exportOf(client: Client): Promise<any> {
  const answer = await client.get('/sandbox/export');
  expect(answer.status, answer.text).toBe(200);
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  expect(validateDocument(answer.body), JSON.stringify(validateDocument.errors)).toBe(true);
  return answer.body;
}

/** Everything a client can see: every record of every collection in list order. */
async function everything(client: Client): Promise<Record<string, unknown[]>> {
  const all: Record<string, unknown[]> = {};
  for (const collection of COLLECTIONS) all[collection] = await listAll(client, collection);
  return all;
}

/** The document's overlays without ids and times, for comparing two sandboxes' exports. */
const overlayOf = (document: any) => document.sandboxes.map((s: any) => ({ collections: s.collections, snapshots: s.snapshots }));

/** A document holding one sandbox with these collections (others empty). */
function documentWith(collections: Record<string, unknown>, extra: Record<string, unknown> = {}): any {
  return {
    format: 'mockapi-export',
    version: 1,
    exportedAt: new Date().toISOString(),
    sandboxes: [{ id: 'ignored', createdAt: null, lastActiveAt: null, collections: { ...emptyCollections, ...collections }, ...extra }],
  };
}

const localId = () => `local-${crypto.randomUUID()}`;

/** Creates, changes and deletes in every collection; returns what it created. */
async function dirty(client: Client) {
  const tag = crypto.randomUUID().slice(0, 8);
  const user = await create(client, 'users');
  const post = await create(client, 'posts', { user_id: user.id, title: `zzyzx ${tag}` });
  const second = await create(client, 'posts', { user_id: 2 });
  await create(client, 'comments', { post_id: post.id });
  expect((await client.patch('/users/1', { name: 'Changed Name' })).status).toBe(200);
  expect((await client.delete('/users/3')).status).toBe(200);
  expect((await client.put('/posts/2', { user_id: user.id, title: 'Replaced', body: 'Replaced' })).status).toBe(200);
  expect((await client.delete('/comments/5')).status).toBe(200);
  expect((await client.patch('/todos/4', { completed: true })).status).toBe(200);
  return { user, post, second, tag };
}

describe('GET /sandbox/export', () => {
  it('of a sandbox that never wrote: the document with an empty overlay', async () => {
    const client = fresh();
    const document = await exportOf(client);
    expect(document).toEqual({
      format: 'mockapi-export',
      version: 1,
      exportedAt: expect.any(String),
      sandboxes: [{ id: client.id, createdAt: null, lastActiveAt: null, collections: emptyCollections }],
    });
    expect(Math.abs(Date.parse(document.exportedAt) - Date.now())).toBeLessThan(60_000);
  });

  it("holds the caller's overlay: created newest first, updated by id, deleted ids", async () => {
    const client = fresh();
    const other = fresh();
    await dirty(other);
    const { user, post, second } = await dirty(client);
    const document = await exportOf(client);
    expect(document.sandboxes).toHaveLength(1);
    const [sandbox] = document.sandboxes;
    expect(sandbox.id).toBe(client.id);
    expect(Date.parse(sandbox.createdAt)).toBeLessThanOrEqual(Date.parse(sandbox.lastActiveAt));
    expect(sandbox.snapshots).toBeUndefined();
    const { users, posts, comments, todos } = sandbox.collections;
    expect(users.created).toEqual([user]);
    expect(users.updated).toEqual([(await client.get('/users/1')).body]);
    expect(users.deleted).toEqual([3]);
    // Exactly as the API lists them.
    expect(posts.created).toEqual([second, post]);
    expect(posts.created).toEqual((await client.get('/posts?limit=2')).body.data);
    expect(posts.updated.map((p: any) => p.id)).toEqual([2]);
    expect(comments.created).toHaveLength(1);
    expect(comments.created[0]).toMatchObject({ post_id: post.id, _sandbox: 'created' });
    expect(comments.deleted).toEqual([5]);
    expect(todos).toEqual({ created: [], updated: [(await client.get('/todos/4')).body], deleted: [] });
    // Nothing of the other sandbox, no internals.
    const text = JSON.stringify(document);
    for (const key of ['seq', 'sid', 'cid', 'state']) expect(text).not.toContain(`"${key}"`);
    expect(text).not.toContain(other.id);
  });
});

describe('POST /sandbox/import', () => {
  it('round trip: another sandbox imports the export and then sees and exports exactly the same', async () => {
    const source = fresh();
    const { tag } = await dirty(source);
    const exported = await exportOf(source);

    const target = fresh();
    const own = await create(target, 'todos');
    // Read first, so answers the server may keep for the target must be dropped by the import.
    expect((await everything(target)).todos[0]).toEqual(own);
    const bystander = fresh();
    await dirty(bystander);
    const bystanderBefore = await everything(bystander);

    const answer = await target.post('/sandbox/import', exported);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({
      message: expect.any(String),
      sandbox: target.id,
      imported: { users: 3, posts: 3, comments: 2, todos: 1, snapshots: 0 },
    });

    expect(await everything(target)).toEqual(await everything(source));
    expect(overlayOf(await exportOf(target))).toEqual(overlayOf(exported));
    expect((await exportOf(target)).sandboxes[0].id).toBe(target.id);
    // The target's own records are gone; the source and a bystander are untouched.
    expectProblem(await target.get(`/todos/${own.id}`), 404, 'NOT_FOUND');
    expect(overlayOf(await exportOf(source))).toEqual(overlayOf(exported));
    expect(await everything(bystander)).toEqual(bystanderBefore);
    // The search index follows the imported overlay.
    const found = await target.get(`/posts?q=zzyzx%20${tag}`);
    expect(found.status, found.text).toBe(200);
    expect(found.body.data.map((p: any) => p.title)).toEqual([`zzyzx ${tag}`]);
    // New writes go on after the imported records (newest first).
    const next = await create(target, 'posts');
    expect((await target.get('/posts?limit=1')).body.data).toEqual([next]);
  });

  it('keeps dangling references that deletes left (deletes do not cascade)', async () => {
    const source = fresh();
    const user = await create(source, 'users');
    const post = await create(source, 'posts', { user_id: user.id });
    const todo = await create(source, 'todos', { user_id: 7 });
    expect((await source.delete(`/users/${user.id}`)).status).toBe(200);
    expect((await source.delete('/users/7')).status).toBe(200);
    const exported = await exportOf(source);
    const target = fresh();
    const answer = await target.post('/sandbox/import', exported);
    expect(answer.status, answer.text).toBe(200);
    expect((await target.get(`/posts/${post.id}`)).body).toEqual(post);
    expect((await target.get(`/todos/${todo.id}`)).body).toEqual(todo);
    expect(overlayOf(await exportOf(target))).toEqual(overlayOf(exported));
  });

  it('a document with an empty overlay resets the sandbox', async () => {
    const client = fresh();
    await dirty(client);
    const answer = await client.post('/sandbox/import', documentWith({}));
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.imported).toEqual({ users: 0, posts: 0, comments: 0, todos: 0, snapshots: 0 });
    expect(await totals(client)).toEqual(BASELINE);
    expect(overlayOf(await exportOf(client))).toEqual([{ collections: emptyCollections, snapshots: undefined }]);
  });

  it('accepts a hand-written document: left-out collections, string foreign keys, created records pointing at each other, snapshots', async () => {
    const client = fresh();
    const userId = localId();
    const postId = localId();
    const document = {
      format: 'mockapi-export',
      version: 1,
      exportedAt: '2026-01-01T00:00:00Z',
      sandboxes: [
        {
          id: 'whatever',
          collections: {
            users: { created: [{ id: userId, ...newRecord('users') }] },
            posts: { created: [{ id: postId, ...newRecord('posts', { user_id: userId }) }], updated: [{ id: 9, user_id: '4', title: 'T', body: 'B' }] },
          },
          snapshots: [{ name: 'before.v1_x-2', createdAt: '2026-01-01T00:00:00.000Z', collections: { todos: { deleted: [1, 2] } } }],
        },
      ],
    };
    const answer = await client.post('/sandbox/import', document);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.imported).toEqual({ users: 1, posts: 2, comments: 0, todos: 0, snapshots: 1 });
    expect((await client.get(`/posts/${postId}`)).body).toMatchObject({ user_id: userId, _sandbox: 'created' });
    expect((await client.get('/posts/9')).body).toEqual({ id: 9, user_id: 4, title: 'T', body: 'B', _sandbox: 'updated' });
    const [sandbox] = (await exportOf(client)).sandboxes;
    expect(sandbox.snapshots).toEqual([
      { name: 'before.v1_x-2', createdAt: '2026-01-01T00:00:00.000Z', collections: { ...emptyCollections, todos: { ...emptyOverlay, deleted: [1, 2] } } },
    ]);
    expect(await totals(client)).toEqual({ ...BASELINE, users: BASELINE.users + 1, posts: BASELINE.posts + 1 });
  });

  it('takes a document larger than limits.bodyBytes (1 MiB)', async () => {
    const client = fresh();
    const body = 'x'.repeat(9_000);
    const updated = Array.from({ length: 150 }, (_, i) => ({ id: i + 1, post_id: Math.floor(i / 5) + 1, name: 'n', email: 'e@example.test', body }));
    const document = documentWith({ comments: { created: [], updated, deleted: [] } });
    expect(JSON.stringify(document).length).toBeGreaterThan(1024 * 1024);
    const answer = await client.post('/sandbox/import', document);
    expect(answer.status, answer.text).toBe(200);
    expect((await client.get('/comments/150')).body.body).toBe(body);
  });

  it('refuses a body over 16 MiB with 413, writing nothing', async () => {
    const client = fresh();
    const before = await exportOf(client);
    const answer = await client.post('/sandbox/import', `{"pad": "${'x'.repeat(17 * 1024 * 1024)}"}`);
    expectProblem(answer, 413, 'PAYLOAD_TOO_LARGE');
    expect(overlayOf(await exportOf(client))).toEqual(overlayOf(before));
  });
});

describe('POST /sandbox/import refuses an invalid document and writes nothing', () => {
  const user = () => newRecord('users');
  const cases: Array<{ name: string; document: () => any; paths: string[] }> = [
    {
      name: 'a foreign key naming no record',
      document: () => documentWith({ posts: { created: [{ id: localId(), ...newRecord('posts', { user_id: 99999 }) }] } }),
      paths: ['/sandboxes/0/collections/posts/created/0/user_id'],
    },
    {
      name: 'more created records than the cap',
      document: () => documentWith({ todos: { created: Array.from({ length: 31 }, () => ({ id: localId(), ...newRecord('todos') })) } }),
      paths: ['/sandboxes/0/collections/todos/created'],
    },
    { name: 'another version', document: () => ({ ...documentWith({}), version: 2 }), paths: ['/version'] },
    { name: 'another format', document: () => ({ ...documentWith({}), format: 'json-server' }), paths: ['/format'] },
    { name: 'an unknown collection', document: () => documentWith({ widgets: { created: [] } }), paths: ['/sandboxes/0/collections/widgets'] },
    {
      name: 'two sandboxes',
      document: () => ({ ...documentWith({}), sandboxes: [...documentWith({}).sandboxes, ...documentWith({}).sandboxes] }),
      paths: ['/sandboxes'],
    },
    { name: 'no sandboxes', document: () => ({ ...documentWith({}), sandboxes: [] }), paths: ['/sandboxes'] },
    {
      name: 'a created id that is not local-<uuid v4>',
      document: () => documentWith({ users: { created: [{ id: 'local-1', ...user() }] } }),
      paths: ['/sandboxes/0/collections/users/created/0/id'],
    },
    {
      name: 'the same created id twice',
      document: () => {
        const id = localId();
        return documentWith({ users: { created: [{ id, ...user() }, { id, ...user() }] } });
      },
      paths: ['/sandboxes/0/collections/users/created/1/id'],
    },
    {
      name: 'updated and deleted ids that are not in the baseline',
      document: () => documentWith({ todos: { updated: [{ id: 9999, ...newRecord('todos') }], deleted: [201] } }),
      paths: ['/sandboxes/0/collections/todos/updated/0/id', '/sandboxes/0/collections/todos/deleted/0'],
    },
    {
      name: 'a record both updated and deleted',
      document: () => documentWith({ todos: { updated: [{ id: 3, ...newRecord('todos') }], deleted: [3] } }),
      paths: ['/sandboxes/0/collections/todos/deleted/0'],
    },
    {
      name: 'invalid and unknown fields',
      document: () => documentWith({ users: { created: [{ id: localId(), ...user(), email: 'not-an-address', age: 3 }] } }),
      paths: ['/sandboxes/0/collections/users/created/0/email', '/sandboxes/0/collections/users/created/0/age'],
    },
    {
      name: 'a missing required field',
      document: () => documentWith({ posts: { updated: [{ id: 1, user_id: 1, title: 'no body' }] } }),
      paths: ['/sandboxes/0/collections/posts/updated/0/body'],
    },
    {
      name: 'a username taken in the resulting view (case-insensitive)',
      document: () => documentWith({ users: { created: [{ id: localId(), ...user(), username: 'TAKEN_name' }, { id: localId(), ...user(), username: 'taken_NAME' }] } }),
      paths: ['/sandboxes/0/collections/users/created/1/username'],
    },
    {
      name: 'a wrong _sandbox marker',
      document: () => documentWith({ users: { created: [{ id: localId(), ...user(), _sandbox: 'updated' }] } }),
      paths: ['/sandboxes/0/collections/users/created/0/_sandbox'],
    },
    {
      name: 'an invalid snapshot name',
      document: () => documentWith({}, { snapshots: [{ name: 'no spaces', createdAt: '2026-01-01T00:00:00Z', collections: {} }] }),
      paths: ['/sandboxes/0/snapshots/0/name'],
    },
    {
      name: 'a snapshot named "..", which no URL could address',
      document: () => documentWith({}, { snapshots: [{ name: '..', createdAt: '2026-01-01T00:00:00Z', collections: {} }] }),
      paths: ['/sandboxes/0/snapshots/0/name'],
    },
    {
      name: 'the same snapshot name twice',
      document: () =>
        documentWith({}, { snapshots: ['s', 's'].map((name) => ({ name, createdAt: '2026-01-01T00:00:00Z', collections: {} })) }),
      paths: ['/sandboxes/0/snapshots/1/name'],
    },
    {
      name: 'more snapshots than a sandbox may keep (20)',
      document: () =>
        documentWith({}, { snapshots: Array.from({ length: 21 }, (_, i) => ({ name: `s${i}`, createdAt: '2026-01-01T00:00:00Z', collections: {} })) }),
      paths: ['/sandboxes/0/snapshots'],
    },
    {
      name: 'a snapshot whose records break the rules',
      document: () => documentWith({}, { snapshots: [{ name: 's', createdAt: '2026-01-01T00:00:00Z', collections: { todos: { deleted: [0] } } }] }),
      paths: ['/sandboxes/0/snapshots/0/collections/todos/deleted/0'],
    },
    {
      name: 'a bad date and an unknown key',
      document: () => ({ ...documentWith({}), exportedAt: 'yesterday', extra: true }),
      paths: ['/exportedAt', '/extra'],
    },
  ];

  it.each(cases)('$name', async ({ document, paths }) => {
    const client = fresh();
    const { user: mine } = await dirty(client);
    const before = await exportOf(client);
    const answer = await client.post('/sandbox/import', document());
    expectProblem(answer, 422, 'VALIDATION_FAILED');
    expect(answer.body.errors.map((e: { path: string }) => e.path).sort(), answer.text).toEqual([...paths].sort());
    for (const error of answer.body.errors) expect(error.message.length).toBeGreaterThan(0);
    expect(overlayOf(await exportOf(client))).toEqual(overlayOf(before));
    expect((await client.get(`/users/${mine.id}`)).status).toBe(200);
  });

  it('a username taken by a baseline record, unless that record is deleted or renamed in the document', async () => {
    const client = fresh();
    const bret = (await client.get('/users/1')).body.username as string;
    const clash = { id: localId(), ...newRecord('users'), username: bret.toUpperCase() };
    expectProblem(await client.post('/sandbox/import', documentWith({ users: { created: [clash] } })), 422, 'VALIDATION_FAILED');
    const deleted = await client.post('/sandbox/import', documentWith({ users: { created: [clash], deleted: [1] } }));
    expect(deleted.status, deleted.text).toBe(200);
    const renamed = { id: 1, ...(await fresh().get('/users/1')).body, username: 'renamed_one' };
    const answer = await client.post('/sandbox/import', documentWith({ users: { created: [clash], updated: [renamed] } }));
    expect(answer.status, answer.text).toBe(200);
    expect((await client.get(`/users?username=${bret.toUpperCase()}`)).body.data).toHaveLength(1);
  });

  it('reports at most about ten problems', async () => {
    const client = fresh();
    const created = Array.from({ length: 25 }, () => ({ id: localId(), ...newRecord('posts', { user_id: 99999 }) }));
    const answer = await client.post('/sandbox/import', documentWith({ posts: { created } }));
    expectProblem(answer, 422, 'VALIDATION_FAILED');
    expect(answer.body.errors.length).toBeGreaterThanOrEqual(5);
    expect(answer.body.errors.length).toBeLessThanOrEqual(10);
  });

  it.each([
    ['truncated JSON', '{"format": "mockapi-export", "version": 1, "sandb', 400, 'INVALID_JSON'],
    ['an array', '[]', 400, 'INVALID_BODY'],
    ['an empty body', '', 400, 'INVALID_JSON'],
  ])('%s: %s', async (_name, body, status, code) => {
    const client = fresh();
    await create(client, 'posts');
    const before = await exportOf(client);
    expectProblem(await client.call('POST', '/sandbox/import', body, { 'content-type': 'application/json' }), status, code);
    expect(overlayOf(await exportOf(client))).toEqual(overlayOf(before));
  });

  it('a non-JSON content type: 415', async () => {
    const client = fresh();
    expectProblem(await client.call('POST', '/sandbox/import', 'x', { 'content-type': 'text/plain' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
  });
});

describe('routing', () => {
  it.each([
    ['POST', '/sandbox/export', 'GET'],
    ['DELETE', '/sandbox/export', 'GET'],
    ['GET', '/sandbox/import', 'POST'],
    ['PUT', '/sandbox/import', 'POST'],
  ])('%s %s → 405 with Allow', async (method, path, allowed) => {
    const client = fresh();
    const answer = await request(`${server.api}${path}`, { method, headers: { cookie: `svc_identity=${client.id}` } });
    expectProblem(answer, 405, 'METHOD_NOT_ALLOWED');
    expect(answer.headers.get('allow')).toContain(allowed);
  });

  it('a created id in an export is a local id', async () => {
    const client = fresh();
    await create(client, 'todos');
    expect((await exportOf(client)).sandboxes[0].collections.todos.created[0].id).toMatch(LOCAL_ID);
  });
});
