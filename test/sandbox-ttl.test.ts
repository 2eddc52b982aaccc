import { describe, it, expect, afterEach } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { sandboxClient, startServer, type RunningServer } from './helpers/server.js';
import { fakeClock } from './helpers/clock.js';
import { create, expectProblem } from './helpers/problems.js';

// Time moves only when a test moves it: the sweep runs exactly when the clock passes its ticks.
const clock = fakeClock();
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** Starts a server with these limits in a config file (on `db` when given, for restarts). */
async function serveWith(limits: Record<string, unknown>, db?: string): Promise<RunningServer> {
  const dir = mkdtempSync(join(tmpdir(), 'mockapi-ttl-'));
  writeFileSync(join(dir, 'mockapi.config.json'), JSON.stringify({ limits }));
  const server = await startServer({ args: ['--config', join(dir, 'mockapi.config.json')], db });
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }), () => server.cleanup());
  return server;
}

/** What the file holds of a sandbox id, read as another process would (read-only). */
function rowsOf(file: string, sid: number) {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const count = (sql: string, ...args: number[]) => db.prepare(sql).pluck().get(...args) as number;
    return {
      overlay: count('SELECT count(*) FROM overlay WHERE sid = ?', sid),
      snapshots: count('SELECT count(*) FROM snapshots WHERE sid = ?', sid),
      snapshotRows: count('SELECT count(*) FROM snapshot_rows WHERE sid = ?', sid),
      // indexed own records (at least 1 while any of their terms is left)
      search: count("SELECT max((SELECT count(*) FROM search_terms WHERE sid = ? AND term = ''), min((SELECT count(*) FROM search_terms WHERE sid = ?), 1))", sid, sid),
    };
  } finally {
    db.close();
  }
}

/** The sid of a sandbox's row, or undefined; and every key on file. */
function sandboxRows(file: string, key: string) {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return {
      sid: db.prepare('SELECT sid FROM sandboxes WHERE key = ?').pluck().get(key) as number | undefined,
      keys: db.prepare('SELECT key FROM sandboxes ORDER BY key').pluck().all() as string[],
    };
  } finally {
    db.close();
  }
}

function lastActiveOnFile(file: string, key: string): number | undefined {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT last_active_at FROM sandboxes WHERE key = ?').pluck().get(key) as number | undefined;
  } finally {
    db.close();
  }
}

const nothing = { overlay: 0, snapshots: 0, snapshotRows: 0, search: 0 };

/** A sandbox with a created post (searchable), a changed user, a deleted todo and a snapshot. */
async function fill(client: ReturnType<typeof sandboxClient>) {
  const post = await create(client, 'posts', { title: 'Ephemeral wombat' });
  expect((await client.patch('/users/1', { name: 'Changed' })).status).toBe(200);
  expect((await client.delete('/todos/2')).status).toBe(200);
  expect((await client.post('/sandbox/snapshots', { name: 'snap' })).status).toBe(200);
  return post;
}

async function expectFresh(client: ReturnType<typeof sandboxClient>, post: { id: string }) {
  expectProblem(await client.get(`/posts/${post.id}`), 404, 'NOT_FOUND');
  expect((await client.get('/users/1')).body._sandbox).toBeUndefined();
  expect((await client.get('/todos/2')).status).toBe(200);
  expect((await client.get('/posts?q=wombat')).body.data).toEqual([]);
  expect((await client.get('/sandbox/snapshots')).body).toEqual({ data: [] });
}

describe('limits.sandboxTtl', () => {
  it('lazily: the next request of an expired sandbox finds a fresh one', async () => {
    // Written under the default TTL (7 days), then served again with a 2 s TTL after 2.5 s idle. The
    // first sweep of the new server waits a full period (2 s) and no time passes: the first request meets it.
    const first = await serveWith({});
    const client = sandboxClient(first.api);
    const post = await fill(client);
    expect((await client.get(`/posts/${post.id}`)).status).toBe(200);
    const writer = sandboxClient(first.api);
    const writerPost = await fill(writer);
    await first.stop();
    const writerSid = sandboxRows(first.db, writer.id).sid!;
    const { sid } = sandboxRows(first.db, client.id);
    expect(sid).toBeGreaterThan(0);
    expect(rowsOf(first.db, sid!).overlay).toBe(3);
    clock.advance(2_500);

    const second = await serveWith({ sandboxTtl: 2 }, first.db);
    const again = sandboxClient(second.api, client.id);
    const started = Date.now();
    expectProblem(await again.get(`/posts/${post.id}`), 404, 'NOT_FOUND');
    // A write as the first request: the expired sandbox goes, the write lands in a fresh one.
    const writerAgain = sandboxClient(second.api, writer.id);
    const fresh = await create(writerAgain, 'todos');
    expect(sandboxRows(second.db, client.id).sid).toBeUndefined();
    expect(rowsOf(second.db, sid!)).toEqual(nothing);
    await expectFresh(again, post);
    const info = (await again.get('/sandbox')).body;
    expect(info.snapshots).toBe(0);
    // Made after the restart, not 2.5 s before it (the clock stands still: the time of first sight
    // subtracts the real time the request took, well under a second).
    expect(Date.parse(info.createdAt)).toBeGreaterThan(started - 1_000);

    expect(rowsOf(second.db, writerSid)).toEqual(nothing);
    const newSid = sandboxRows(second.db, writer.id).sid!;
    expect(newSid).toBeGreaterThan(writerSid);
    expect(rowsOf(second.db, newSid).overlay).toBe(1);
    expect((await writerAgain.get(`/todos/${fresh.id}`)).status).toBe(200);
    await expectFresh(writerAgain, writerPost);
  });

  it('by the sweep: an idle sandbox is purged from the file without any request; reads keep one alive', async () => {
    const server = await serveWith({ sandboxTtl: '2s' });
    const idle = sandboxClient(server.api);
    const busy = sandboxClient(server.api);
    const idlePost = await fill(idle);
    const busyPost = await fill(busy);
    const idleSid = sandboxRows(server.db, idle.id).sid!;
    const busyWroteAt = lastActiveOnFile(server.db, busy.id)!;
    expect(rowsOf(server.db, idleSid)).toEqual({ overlay: 3, snapshots: 1, snapshotRows: 3, search: 2 });

    // `busy` only reads from now on, every 400 ms; `idle` sends nothing.
    const deadline = Date.now() + 8_000;
    let purged = false;
    while (Date.now() < deadline) {
      expect((await busy.get(`/posts/${busyPost.id}`)).status).toBe(200);
      if (sandboxRows(server.db, idle.id).sid === undefined) {
        purged = true;
        break;
      }
      clock.advance(400);
    }
    expect(purged, 'the sweep should have purged the idle sandbox within 8 s').toBe(true);
    expect(rowsOf(server.db, idleSid)).toEqual(nothing);

    // Reads kept `busy` alive past several TTLs, on file too.
    clock.advance(1_000);
    expect((await busy.get(`/posts/${busyPost.id}`)).status).toBe(200);
    const busySid = sandboxRows(server.db, busy.id).sid!;
    // Its reads reached the file in batches: last activity on file moved on from its last write.
    expect(lastActiveOnFile(server.db, busy.id)!).toBeGreaterThan(busyWroteAt + 1_000);
    expect(rowsOf(server.db, busySid).overlay).toBe(3);
    expect((await busy.get('/sandbox/snapshots')).body.data).toHaveLength(1);

    await expectFresh(idle, idlePost);
    expect((await idle.get('/sandbox')).body.requests).toBe(5);
  });

  it('a visitor who only read starts over after the TTL too', async () => {
    const server = await serveWith({ sandboxTtl: 1 });
    const reader = sandboxClient(server.api);
    await reader.get('/posts');
    await reader.get('/posts/1');
    expect((await reader.get('/sandbox')).body.requests).toBe(2);
    clock.advance(1_300);
    expect((await reader.get('/sandbox')).body.requests).toBe(0);
    expect((await reader.get('/sandbox/activity')).body.data.map((e: { path: string }) => e.path)).toEqual(['/api/v1/sandbox']);
  });

  it('an answer cached before the sandbox expired is not served after it, on the same server', async () => {
    // The clock jumps past the TTL without running the sweep: only the lazy expiry of the next
    // request can purge the sandbox, so the answer cache, which answers before any sandbox
    // lookup, must not answer for an expired sandbox.
    const server = await serveWith({ sandboxTtl: 1 });

    const client = sandboxClient(server.api);
    const post = await create(client, 'posts', { title: 'Cached wombat' });
    const list = () => client.get('/posts?limit=200');
    const before = (await list()).body;
    expect(before.pagination.total).toBe(101);
    expect(before.data.map((p: { id: unknown }) => p.id)).toContain(post.id);
    // Asked again while fresh: the same answer (from the cache).
    expect((await list()).body).toEqual(before);

    clock.jump(1_300);
    const after = (await list()).body;
    expect(after.pagination.total).toBe(100);
    expect(after.data.map((p: { id: unknown }) => p.id)).not.toContain(post.id);
    expectProblem(await client.get(`/posts/${post.id}`), 404, 'NOT_FOUND');
  });

  it('0 never expires', async () => {
    const server = await serveWith({ sandboxTtl: 0 });
    const client = sandboxClient(server.api);
    const post = await create(client, 'posts');
    clock.advance(1_500);
    expect((await client.get(`/posts/${post.id}`)).status).toBe(200);
  });
});

describe('limits.maxSandboxes', () => {
  it('a new sandbox beyond the bound evicts the least recently active one (reads count as activity)', async () => {
    const server = await serveWith({ maxSandboxes: 2 });
    const a = sandboxClient(server.api, 'sandbox-a');
    const b = sandboxClient(server.api, 'sandbox-b');
    const c = sandboxClient(server.api, 'sandbox-c');
    const d = sandboxClient(server.api, 'sandbox-d');
    const aPost = await create(a, 'posts');
    clock.advance(20);
    const bPost = await fill(b);
    const bSid = sandboxRows(server.db, b.id).sid!;
    clock.advance(20);
    // `a` reads after `b` wrote: `b` is now the least recently active. Its read is also cached.
    expect((await a.get(`/posts/${aPost.id}`)).status).toBe(200);
    expect((await b.get(`/posts/${bPost.id}`)).status).toBe(200);
    clock.advance(20);
    expect((await a.get('/posts?limit=1')).body.data[0].id).toBe(aPost.id);
    // A visitor who only reads holds no data and evicts nobody.
    expect((await c.get('/posts')).status).toBe(200);
    expect(sandboxRows(server.db, a.id).keys).toEqual(['sandbox-a', 'sandbox-b']);

    const cPost = await create(c, 'posts');
    expect(sandboxRows(server.db, c.id).keys).toEqual(['sandbox-a', 'sandbox-c']);
    expect(rowsOf(server.db, bSid)).toEqual(nothing);
    await expectFresh(b, bPost);
    expect((await a.get(`/posts/${aPost.id}`)).status).toBe(200);
    expect((await c.get(`/posts/${cPost.id}`)).status).toBe(200);

    // `b` read again above but holds no data; `a` (read last) stays, `c` wrote before that: `c` goes.
    clock.advance(20);
    expect((await a.get('/posts/1')).status).toBe(200);
    await create(d, 'todos');
    expect(sandboxRows(server.db, d.id).keys).toEqual(['sandbox-a', 'sandbox-d']);
    expectProblem(await c.get(`/posts/${cPost.id}`), 404, 'NOT_FOUND');
    expect((await a.get(`/posts/${aPost.id}`)).status).toBe(200);
  });
});
