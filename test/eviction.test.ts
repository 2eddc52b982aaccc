import { describe, it, expect } from 'vitest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sandboxClient, type RunningServer } from './helpers/server.js';
import { configuredServers, keysHoldingData } from './helpers/configured.js';
import { runInProcess } from './helpers/cli-in-process.js';
import { create, expectProblem, newRecord } from './helpers/problems.js';

/**
 * `limits.maxSandboxes` bounds the sandboxes that HOLD DATA (overlay rows or snapshots), and only
 * those are eviction candidates (contract section 12). Each case failed on the build before the fix.
 */

const servers = configuredServers();
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
const client = (server: RunningServer, id: string) => sandboxClient(server.api, id);
/** `mockapi export` and `import` in this worker: these tests are about the bound, ops-cli.test.ts runs the real binary. */
const runCli = (args: string[]) => runInProcess(args, tmpdir());

describe('limits.maxSandboxes counts the sandboxes that hold data', () => {
  it('a reset sandbox holds nothing: it is neither counted nor evicted in place of one that holds data', async () => {
    const server = await servers.serve({ limits: { maxSandboxes: 2 } });
    const [a, b, c] = ['ev-a', 'ev-b', 'ev-c'].map((id) => client(server, id));
    const aPost = await create(a, 'posts');
    await create(b, 'posts');
    await sleep(15);
    expect((await a.get(`/posts/${aPost.id}`)).status).toBe(200);
    await sleep(15);
    expect((await b.post('/sandbox/reset')).status).toBe(200);
    await sleep(15);
    const cPost = await create(c, 'posts');

    // Two hold data (a and c): nobody had to go.
    expect((await a.get(`/posts/${aPost.id}`)).status).toBe(200);
    expect((await c.get(`/posts/${cPost.id}`)).status).toBe(200);
    expect(keysHoldingData(server.db)).toEqual(['ev-a', 'ev-c']);

    // b writes again: it counts again, and the least recently active of the others (a) goes.
    await sleep(15);
    const bPost = await create(b, 'posts');
    expect(keysHoldingData(server.db)).toEqual(['ev-b', 'ev-c']);
    expectProblem(await a.get(`/posts/${aPost.id}`), 404, 'NOT_FOUND');
    expect((await b.get(`/posts/${bPost.id}`)).status).toBe(200);
    expect((await c.get(`/posts/${cPost.id}`)).status).toBe(200);
  });

  it('a snapshot alone holds data; a sandbox whose only created record was deleted holds none', async () => {
    const server = await servers.serve({ limits: { maxSandboxes: 2 } });
    const [a, b, c] = ['snap-a', 'gone-b', 'new-c'].map((id) => client(server, id));
    expect((await a.post('/sandbox/snapshots', { name: 'empty' })).status).toBe(200);
    await sleep(15);
    const bPost = await create(b, 'posts');
    expect((await b.delete(`/posts/${bPost.id}`)).status).toBe(200);
    await sleep(15);
    await create(c, 'todos');

    expect(keysHoldingData(server.db)).toEqual(['new-c', 'snap-a']);
    expect((await a.get('/sandbox/snapshots/empty')).status).toBe(200);
    expect((await a.get('/sandbox')).body.snapshots).toBe(1);
  });
});

describe('an eviction whose write fails has no effect at all', () => {
  it.each([
    ['422, an invalid record', (c: ReturnType<typeof sandboxClient>) => c.post('/posts', { title: 1 }), 422],
    [
      '409, a taken username',
      async (c: ReturnType<typeof sandboxClient>) => c.patch('/users/2', { username: (await c.get('/users/1')).body.username }),
      409,
    ],
    ['403, over the created-records cap', (c: ReturnType<typeof sandboxClient>) => c.post('/posts', newRecord('posts')), 403],
  ])('%s: the other sandbox keeps its data, request count and activity', async (_name, write, status) => {
    // No sandbox may create records here (cap 0): the holder holds a changed copy.
    const server = await servers.serve({ limits: { maxSandboxes: 1, createdPerCollection: 0 } });
    const a = client(server, 'holder');
    const b = client(server, 'newcomer');
    expect((await a.patch('/posts/1', { title: 'kept' })).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await a.get('/posts?limit=1')).status).toBe(200);
    // The answer counts the requests before this one.
    const before = (await a.get('/sandbox')).body;
    expect(before.requests).toBe(4);

    expect((await write(b)).status).toBe(status);

    const after = (await a.get('/sandbox')).body;
    expect(after.requests).toBe(5);
    expect(after.createdAt).toBe(before.createdAt);
    expect((await a.get('/sandbox/activity')).body.data).toHaveLength(6);
    expect((await a.get('/posts/1')).body.title).toBe('kept');
    expect(keysHoldingData(server.db)).toEqual(['holder']);
  });
});

describe('mockapi import and limits.maxSandboxes', () => {
  /** A file where each named sandbox created one post (written by a server, then stopped). */
  async function fileWith(keys: string[], limits: Record<string, unknown> = {}) {
    const server = await servers.serve({ limits });
    for (const key of keys) {
      await create(client(server, key), 'posts', { title: `post of ${key}` });
      await sleep(15);
    }
    await server.stop();
    return server;
  }

  it('a document holding more sandboxes with data than the bound is refused, and nothing is written', async () => {
    const source = await fileWith(['doc-1', 'doc-2', 'doc-3']);
    const document = join(source.dir, 'three.json');
    expect((await runCli(['export', '--all', '--db', source.db, '-o', document])).code).toBe(0);

    const target = await fileWith(['resident'], { maxSandboxes: 2 });
    const result = await runCli(['import', document, '--db', target.db, '--config', target.configFile]);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/3 sandboxes with data.*maxSandboxes \(2\)/);
    expect(keysHoldingData(target.db)).toEqual(['resident']);
  });

  it('an import evicts the least recently active others, never its own; the next first write evicts one', async () => {
    const source = await fileWith(['imp-1', 'imp-2']);
    const document = join(source.dir, 'two.json');
    expect((await runCli(['export', '--all', '--db', source.db, '-o', document])).code).toBe(0);

    const target = await fileWith(['old-1', 'old-2'], { maxSandboxes: 2 });
    const result = await runCli(['import', document, '--db', target.db, '--config', target.configFile]);
    expect(result.code, result.stderr).toBe(0);
    expect(keysHoldingData(target.db)).toEqual(['imp-1', 'imp-2']);

    // Serving the file: one more sandbox writes, and exactly one (imp-1, the least recently active) goes.
    const server = await servers.serve({ limits: { maxSandboxes: 2 } }, target.db);
    await create(client(server, 'late'), 'posts');
    expect(keysHoldingData(server.db)).toEqual(['imp-2', 'late']);
    const titles = (await client(server, 'imp-2').get('/posts?title=post of imp-2')).body.data;
    expect(titles).toHaveLength(1);
  });

  it('the HTTP import of a sandbox that held nothing makes it count, evicting the least recently active other', async () => {
    const server = await servers.serve({ limits: { maxSandboxes: 1 } });
    const a = client(server, 'http-a');
    const b = client(server, 'http-b');
    const post = await create(a, 'posts');
    const exported = (await a.get('/sandbox/export')).body;
    await sleep(15);
    expect((await b.post('/sandbox/import', exported)).status).toBe(200);
    expect(keysHoldingData(server.db)).toEqual(['http-b']);
    expect((await b.get(`/posts/${post.id}`)).status).toBe(200);
    expectProblem(await a.get(`/posts/${post.id}`), 404, 'NOT_FOUND');
  });
});
