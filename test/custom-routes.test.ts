import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { login, withToken } from './helpers/auth.js';
import { COLLECTIONS, expectNoStack, expectProblem, newRecord } from './helpers/problems.js';
import { eventually, repoRoot, sandboxClient, startServer, type RunningServer } from './helpers/server.js';

/**
 * Custom routes (contract section 19, issue 24), end to end: a real config file, `.ts` and `.mjs`,
 * with handlers that use every part of `ctx`, served by the real CLI.
 */

/** The routes of the config, as source text: valid TypeScript (typed through defineConfig) and JavaScript alike. */
const routes = `{
  'GET /echo/:a/:b': (request, ctx) => ({ params: ctx.params, q: ctx.query.getAll('q'), method: request.method, url: new URL(request.url).pathname }),
  'GET /users/featured': async (request, ctx) => ({ featured: (await ctx.collection('users').list({ _sort: '-id', limit: 2 })).data.map((u) => u.id) }),
  'GET /posts-titled': async (request, ctx) => {
    const page = await ctx.collection('posts').list({ title: ctx.query.get('title') ?? '' });
    return { total: page.pagination.total, ids: page.data.map((p) => p.id) };
  },
  'GET /peek/posts/:id': async (request, ctx) => ({ found: (await ctx.collection('posts').get(ctx.params.id)) !== undefined }),
  'POST /posts/:id/like': async (request, ctx) => {
    const post = await ctx.collection('posts').get(ctx.params.id);
    if (!post) throw ctx.problem(404, 'NOT_FOUND', 'no such post here');
    const given = await request.json();
    const comment = await ctx.collection('comments').create({ post_id: post.id, name: 'Like', email: given.email ?? 'fan@example.com', body: '+1' });
    return { liked: post.id, comment };
  },
  'POST /comments/raw': async (request, ctx) => ctx.collection('comments').create(await request.json()),
  'PATCH /posts/:id/retitle': async (request, ctx) => ctx.collection('posts').patch(ctx.params.id, { title: ctx.query.get('title') ?? 'x' }),
  'DELETE /posts/:id/quietly': async (request, ctx) => {
    await ctx.collection('posts').remove(ctx.params.id);
  },
  'POST /posts/:id/claim': (request, ctx) => {
    throw ctx.problem(409, 'ALREADY_CLAIMED', 'post ' + ctx.params.id + ' is claimed already');
  },
  'GET /broken': () => {
    throw new Error('secret internals of the handler');
  },
  'GET /teapot': () => new Response('short and stout', { status: 418, headers: { 'x-teapot': 'yes', vary: 'Accept' } }),
  'GET /found': () => new Response(JSON.stringify({ ok: true }), { headers: { 'content-type': 'application/json' } }),
  'DELETE /forget': () => undefined,
  'GET /whoami': (request, ctx) => ({ role: ctx.role ?? null, username: ctx.user?.username ?? null, sandbox: ctx.sandbox }),
  'GET /todos/:id': (request, ctx) => ({ custom: true, id: ctx.params.id }),
}`;

const configs = {
  ts: `import { defineConfig } from 'mockapi-sandbox';\nexport default defineConfig({ limits: { createdPerCollection: 2, bodyBytes: 512 }, routes: ${routes} });\n`,
  mjs: `export default { limits: { createdPerCollection: 2, bodyBytes: 512 }, routes: ${routes} };\n`,
};

describe.each(['ts', 'mjs'] as const)('custom routes from a mockapi.config.%s', (ext) => {
  let server: RunningServer;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mockapi-routes-'));
    writeFileSync(join(dir, `mockapi.config.${ext}`), configs[ext]);
    server = await startServer({ cwd: dir });
  });
  afterAll(async () => {
    await server?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });
  const client = () => sandboxClient(server.api);

  it('gets its params and query, and the standard Request', async () => {
    const answer = await client().get('/echo/one/t%C3%BCr?q=1&q=2');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(answer.body).toEqual({ params: { a: 'one', b: 'tür' }, q: ['1', '2'], method: 'GET', url: '/api/v1/echo/one/t%C3%BCr' });
    // HEAD is answered by GET, without a body.
    const head = await fetch(`${server.api}/echo/a/b`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('is matched before the generated routes: GET /users/featured is not user "featured"', async () => {
    const me = client();
    expect((await me.get('/users/featured')).body).toEqual({ featured: [25, 24] });
    expect((await me.get('/users/3')).body.id).toBe(3);
    // A custom GET /todos/:id shadows the generated GET; the generated PATCH and DELETE still answer.
    expect((await me.get('/todos/5')).body).toEqual({ custom: true, id: '5' });
    expect((await me.patch('/todos/5', { completed: true })).status).toBe(200);
  });

  it('reads only the caller sandbox', async () => {
    const [a, b] = [client(), client()];
    const title = `only in a ${crypto.randomUUID()}`;
    const created = await a.post('/posts', newRecord('posts', { title }));
    expect(created.status).toBe(200);
    expect((await a.get(`/posts-titled?title=${encodeURIComponent(title)}`)).body).toEqual({ total: 1, ids: [created.body.id] });
    expect((await b.get(`/posts-titled?title=${encodeURIComponent(title)}`)).body).toEqual({ total: 0, ids: [] });
    expect((await a.get(`/peek/posts/${created.body.id}`)).body).toEqual({ found: true });
    expect((await b.get(`/peek/posts/${created.body.id}`)).body).toEqual({ found: false });
  });

  it('writes land in the caller sandbox with the REST marker, under its cap', async () => {
    const [a, b] = [client(), client()];
    const liked = await a.post('/posts/1/like', {});
    expect(liked.status).toBe(200);
    const id = liked.body.comment.id;
    expect(liked.body.comment).toMatchObject({ post_id: 1, body: '+1', _sandbox: 'created' });
    expect((await a.get(`/comments/${id}`)).body).toMatchObject({ id, _sandbox: 'created' });
    expect((await b.get(`/comments/${id}`)).status).toBe(404);
    // createdPerCollection is 2 in this config: the third is refused as REST would refuse it.
    expect((await a.post('/posts/2/like', {})).status).toBe(200);
    expectProblem(await a.post('/posts/3/like', {}), 403, 'QUOTA_EXCEEDED');
    expect((await b.post('/posts/3/like', {})).status).toBe(200);
  });

  it('answers an engine error as REST would: 422, 404, 400', async () => {
    const me = client();
    const invalid = await me.post('/comments/raw', { post_id: 1, name: 'x', email: 'not an address' });
    expectProblem(invalid, 422, 'VALIDATION_FAILED');
    expect(invalid.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['/body', '/email']);
    expectProblem(await me.patch('/posts/999999/retitle?title=t'), 404, 'NOT_FOUND');
    expectProblem(await me.delete('/posts/999999/quietly'), 404, 'NOT_FOUND');
    expectProblem(await me.post('/posts/999999/like', {}), 404, 'NOT_FOUND');
  });

  it('reads the body under the rules of every route: INVALID_JSON and 413', async () => {
    const me = client();
    expectProblem(await me.post('/comments/raw', '{"post_id": 1,'), 400, 'INVALID_JSON');
    expectProblem(await me.post('/comments/raw', { body: 'x'.repeat(600) }), 413, 'PAYLOAD_TOO_LARGE');
    // A body the handler never reads is drained: the answer still arrives.
    expect((await me.call('DELETE', '/forget', { big: 'x'.repeat(5000) })).status).toBe(204);
  });

  it('throws ctx.problem as problem+json', async () => {
    const answer = await client().post('/posts/7/claim');
    expectProblem(answer, 409, 'ALREADY_CLAIMED');
    expect(answer.body).toMatchObject({ title: 'Conflict', detail: 'post 7 is claimed already' });
  });

  it('answers a thrown error with a 500 naming the route, logs it once, and keeps serving', async () => {
    const answer = await client().get('/broken');
    expectProblem(answer, 500, 'INTERNAL_ERROR');
    expect(answer.body.detail).toContain('GET /broken');
    expect(answer.text).not.toContain('secret internals');
    expectNoStack(answer.text);
    // The log line reaches the pipe after the answer may have.
    await eventually('the logged error', () => server.stderr().includes('GET /api/v1/broken failed'));
    expect(server.stderr()).toContain('secret internals of the handler');
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    expect((await client().get('/echo/x/y')).status).toBe(200);
    expect(server.stderr().split('GET /api/v1/broken failed').length - 1).toBe(1);
  });

  it('sends a returned Response as it is, with the CORS headers and a minted cookie', async () => {
    const answer = await fetch(`${server.api}/teapot`, { headers: { origin: 'http://localhost:3000' } });
    expect(answer.status).toBe(418);
    expect(await answer.text()).toBe('short and stout');
    expect(answer.headers.get('x-teapot')).toBe('yes');
    expect(answer.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    expect(answer.headers.get('vary')).toBe('Accept, Origin');
    // A visitor without a cookie whose route reads its sandbox gets one, once.
    const fresh = await fetch(`${server.api}/whoami`);
    const cookies = fresh.headers.getSetCookie();
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toBe(`svc_identity=${(await fresh.json()).sandbox}; Path=/; HttpOnly; SameSite=Lax`);
    const found = await fetch(`${server.api}/found`, { headers: { origin: 'http://localhost:3000', cookie: 'svc_identity=known' } });
    expect(found.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    expect(found.headers.getSetCookie()).toEqual([]);
    expect(await found.json()).toEqual({ ok: true });
  });

  it('answers undefined with 204 and no body', async () => {
    const answer = await client().delete('/forget');
    expect(answer.status).toBe(204);
    expect(answer.text).toBe('');
    expect(answer.headers.get('content-length')).toBeNull();
  });

  it('answers a method the path does not define with 405 and Allow, unless a generated route answers it', async () => {
    const me = client();
    const put = await me.put('/forget', {});
    expectProblem(put, 405, 'METHOD_NOT_ALLOWED');
    expect(put.headers.get('allow')).toBe('DELETE');
    const get = await me.get('/posts/1/like');
    expectProblem(get, 405, 'METHOD_NOT_ALLOWED');
    expect(get.headers.get('allow')).toBe('POST');
    expect((await me.delete('/users/featured')).headers.get('allow')).toBe('GET, HEAD');
    // DELETE /todos/:id is generated: it answers beside the custom GET.
    expect((await me.delete('/todos/6')).status).toBe(200);
  });

  it('obeys the caller role: a viewer reads through a route but may not write', async () => {
    const viewer = await login(server.api, 'viewer');
    const who = await withToken(server.api, 'GET', '/whoami', viewer.access_token);
    expect(who.body).toMatchObject({ role: 'viewer', username: 'viewer' });
    expect((await withToken(server.api, 'GET', '/users/featured', viewer.access_token)).status).toBe(200);
    expectProblem(await withToken(server.api, 'POST', '/posts/1/like', viewer.access_token, {}), 403, 'FORBIDDEN');
    const editor = await login(server.api, 'editor');
    expect((await withToken(server.api, 'POST', '/posts/1/like', editor.access_token, {})).status).toBe(200);
    expectProblem(await withToken(server.api, 'DELETE', '/posts/1/quietly', editor.access_token), 403, 'FORBIDDEN');
    expect((await client().get('/whoami')).body).toMatchObject({ role: null, username: null });
  });

  it('follows the simulation headers and appears in the sandbox activity', async () => {
    const me = client();
    const simulated = await me.post('/posts/1/like', {}, { 'x-simulate-status': '503' });
    expectProblem(simulated, 503, 'SIMULATED_STATUS');
    // The handler did not run: nothing was written.
    expect((await me.get('/comments?post_id=1&body=%2B1')).body.pagination.total).toBe(0);
    await me.get('/echo/a/b');
    const activity = await me.get('/sandbox/activity');
    const seen = activity.body.data.map((entry: { method: string; path: string; status: number }) => `${entry.method} ${entry.path} ${entry.status}`);
    expect(seen).toContain('GET /api/v1/echo/a/b 200');
    expect(seen).toContain('POST /api/v1/posts/1/like 503');
  });
});

describe('the example config and the init template', () => {
  it.each(['mockapi.config.example.ts', 'templates/mockapi.config.ts'])('%s: likes a post and counts the sandbox', async (file) => {
    // The template names ./fixtures beside it, as `mockapi init` writes them.
    const dir = mkdtempSync(join(tmpdir(), 'mockapi-routes-'));
    for (const name of COLLECTIONS) cpSync(join(repoRoot, 'fixtures', `${name}.json`), join(dir, 'fixtures', `${name}.json`));
    cpSync(join(repoRoot, file), join(dir, 'mockapi.config.ts'));
    const server = await startServer({ cwd: dir });
    try {
      const me = sandboxClient(server.api);
      expect((await me.post('/posts/4/like')).body).toEqual({ post_id: 4, likes: 1 });
      expect((await me.post('/posts/4/like')).body).toEqual({ post_id: 4, likes: 2 });
      expectProblem(await me.post('/posts/999/like'), 404, 'NOT_FOUND');
      const stats = await me.get('/stats');
      expect(stats.body).toMatchObject({ users: 25, posts: 100, comments: 502, todos: { total: 200 } });
      expect(stats.body.todos.completed).toBeGreaterThan(0);
      expect((await sandboxClient(server.api).get('/stats')).body.comments).toBe(500);
    } finally {
      await server.cleanup();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
