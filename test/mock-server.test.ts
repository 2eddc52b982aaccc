import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from './helpers/server.js';
// The built package, as a user imports it.
import { createMockServer, type MockServer } from '../dist/index.js';

const packageEntry = pathToFileURL(join(repoRoot, 'dist/index.js')).href;
const post = (title: string) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ title, body: 'text', user_id: 1 }),
});

describe('createMockServer', () => {
  let server: MockServer;
  beforeAll(async () => {
    server = await createMockServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('answers on a loopback URL with no trailing slash', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);
  });

  it('gives each sandbox handle its own data', async () => {
    const a = server.sandbox();
    const b = server.sandbox();
    expect(a.id).toMatch(/^[A-Za-z0-9_-]{22,}$/);
    expect(a.id).not.toBe(b.id);

    const created = await a.fetch('/posts', post('only in a'));
    expect(created.status).toBe(200);
    const { id } = (await created.json()) as { id: string };

    expect((await a.fetch(`/posts/${id}`)).status).toBe(200);
    expect((await b.fetch(`/posts/${id}`)).status).toBe(404);
    const list = (await (await b.fetch('/posts?q=only%20in%20a')).json()) as { data: unknown[] };
    expect(list.data).toEqual([]);
  });

  it('keeps a chosen id and the caller’s own headers', async () => {
    const sandbox = server.sandbox('my-test-42');
    expect(sandbox.id).toBe('my-test-42');
    const answer = await sandbox.fetch('/sandbox', { headers: { cookie: 'other=1; svc_identity=someone-else', 'x-extra': 'kept' } });
    expect(((await answer.json()) as { id: string }).id).toBe('my-test-42');
  });

  it('exports and resets the sandbox, as parsed JSON', async () => {
    const sandbox = server.sandbox();
    await sandbox.fetch('/posts', post('exported'));
    const document = await sandbox.export();
    expect(document.format).toBe('mockapi-export');
    expect(document.sandboxes).toHaveLength(1);
    expect(document.sandboxes[0].id).toBe(sandbox.id);
    expect(document.sandboxes[0].collections.posts.created).toMatchObject([{ title: 'exported' }]);

    const reset = await sandbox.reset();
    expect(reset).toEqual({
      message: expect.any(String),
      sandbox: sandbox.id,
      purged: { users: 0, posts: 1, comments: 0, todos: 0, custom: 0 },
    });
    expect((await sandbox.export()).sandboxes[0].collections.posts.created).toEqual([]);
  });

  it('refuses a malformed sandbox id and a path outside the API', async () => {
    for (const bad of ['', 'has space', 'a/b', 'x'.repeat(129), 'é']) {
      expect(() => server.sandbox(bad)).toThrow(/sandbox id .* is invalid/);
    }
    await expect(server.sandbox().fetch('posts')).rejects.toThrow(/path under \/api\/v1/);
  });
});

describe('createMockServer options', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mockapi-mock-server-'));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('honours a config object', async () => {
    const server = await createMockServer({ config: { limits: { createdPerCollection: 1 } } });
    try {
      const sandbox = server.sandbox();
      expect((await sandbox.fetch('/posts', post('first'))).status).toBe(200);
      const second = await sandbox.fetch('/posts', post('second'));
      expect(second.status).toBe(403);
      expect(((await second.json()) as { code: string }).code).toBe('QUOTA_EXCEEDED');
    } finally {
      await server.close();
    }
  });

  it('honours a config file path, with its fixtures folder relative to the file, but not its port or db', async () => {
    mkdirFixtures(dir);
    const file = join(dir, 'mockapi.config.mjs');
    writeFileSync(file, `export default { port: 1, db: 'never.db', fixtures: './fixtures', limits: { maxPageSize: 2 } };\n`);
    const server = await createMockServer({ config: file });
    try {
      expect(server.url).not.toMatch(/:1$/);
      const sandbox = server.sandbox();
      const users = (await (await sandbox.fetch('/users')).json()) as { data: Array<{ name: string }> };
      expect(users.data.map((user) => user.name)).toEqual(['Only One']);
      expect((await sandbox.fetch('/posts?limit=3')).status).toBe(400);
    } finally {
      await server.close();
    }
    expect(existsSync(join(dir, 'never.db'))).toBe(false);
  });

  it('uses a db file when given, which outlives the server', async () => {
    const db = join(dir, 'kept.db');
    const first = await createMockServer({ db });
    const id = 'kept-sandbox';
    await first.sandbox(id).fetch('/posts', post('kept'));
    await first.close();
    const second = await createMockServer({ db });
    try {
      const document = await second.sandbox(id).export();
      expect(document.sandboxes[0].collections.posts.created).toMatchObject([{ title: 'kept' }]);
    } finally {
      await second.close();
    }
  });

  it('refuses a fixtures folder that does not exist', async () => {
    await expect(createMockServer({ fixtures: join(dir, 'nowhere') })).rejects.toThrow(/fixtures folder not found: .*nowhere/);
  });

  it('refuses a busy port with a clear error', async () => {
    const server = await createMockServer();
    try {
      const port = Number(new URL(server.url).port);
      await expect(createMockServer({ port })).rejects.toThrow(/already in use/);
    } finally {
      await server.close();
    }
  });

  it('runs several servers side by side, each with its own database', async () => {
    const [a, b] = await Promise.all([createMockServer(), createMockServer()]);
    try {
      expect(a.url).not.toBe(b.url);
      await a.sandbox('same-id').fetch('/posts', post('on a'));
      expect((await b.sandbox('same-id').export()).sandboxes[0].collections.posts.created).toEqual([]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

describe('close()', () => {
  it('releases the port: connections are refused afterwards, and the same port can be bound again', async () => {
    const server = await createMockServer();
    const sandbox = server.sandbox();
    await sandbox.fetch('/posts'); // a keep-alive connection stays open
    const port = Number(new URL(server.url).port);
    await server.close();
    await expect(fetch(`${server.url}/health`)).rejects.toThrow();
    await expect(sandbox.export()).rejects.toThrow();

    // Something else on that port now: a non-2xx answer makes reset() and export() throw with its detail.
    const impostor = createServer((_req, res) => {
      res.writeHead(503, { 'content-type': 'application/problem+json' });
      res.end(JSON.stringify({ title: 'Service Unavailable', status: 503, detail: 'down for maintenance', code: 'MAINTENANCE' }));
    });
    await new Promise<void>((done) => impostor.listen(port, '127.0.0.1', done));
    try {
      await expect(sandbox.reset()).rejects.toThrow('POST /api/v1/sandbox/reset answered 503 MAINTENANCE: down for maintenance');
      await expect(sandbox.export()).rejects.toThrow('GET /api/v1/sandbox/export answered 503 MAINTENANCE: down for maintenance');
    } finally {
      impostor.closeAllConnections();
      await new Promise((done) => impostor.close(done));
    }
  });

  it('lets the process exit by itself', async () => {
    const script = `
      import { createMockServer } from ${JSON.stringify(packageEntry)};
      const server = await createMockServer();
      const sandbox = server.sandbox();
      const created = await sandbox.fetch('/posts', { method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ title: 't', body: 'b', user_id: 1 }) });
      await sandbox.export();
      await server.close();
      console.log('closed ' + created.status);
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    const exit = await new Promise<number | string | null>((done) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        done('still running after 10 s');
      }, 10_000);
      child.once('exit', (code) => {
        clearTimeout(timer);
        done(code);
      });
    });
    expect({ exit, out: out.trim(), err }).toEqual({ exit: 0, out: 'closed 200', err: '' });
  });

  it('prints nothing and adds no signal handlers', async () => {
    const before = { sigint: process.listenerCount('SIGINT'), sigterm: process.listenerCount('SIGTERM') };
    const writes: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string) => (writes.push(String(chunk)), true)) as typeof process.stdout.write;
    try {
      const server = await createMockServer();
      await server.sandbox().fetch('/posts');
      expect({ sigint: process.listenerCount('SIGINT'), sigterm: process.listenerCount('SIGTERM') }).toEqual(before);
      await server.close();
    } finally {
      process.stdout.write = write;
    }
    expect(writes).toEqual([]);
  });
});

/** A fixtures folder holding one user (every other collection empty). */
function mkdirFixtures(dir: string): void {
  const fixtures = join(dir, 'fixtures');
  mkdirSync(fixtures, { recursive: true });
  writeFileSync(join(fixtures, 'users.json'), JSON.stringify([{ id: 1, name: 'Only One', username: 'one', email: 'one@example.com' }]));
}
