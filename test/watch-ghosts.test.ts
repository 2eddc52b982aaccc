import { afterEach, describe, expect, it } from 'vitest';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, sandboxClient, startServer } from './helpers/server.js';
import { COLLECTIONS, expectProblem } from './helpers/problems.js';

/**
 * A `--watch` reload that removes baseline records takes the sandboxes' changed copies and
 * tombstones of them along, in overlays and snapshots alike, so every view agrees the records are
 * gone. Before, the list said `total: 97` and returned 98 rows, `GET /posts/99` was 200 while
 * filters missed it, and the sandbox's own export no longer imported.
 */

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((wait) => setTimeout(wait, 50));
  }
}

describe('serve --watch: baseline records removed from the fixtures', () => {
  it('take their changed copies and tombstones along, in every view, export and snapshot', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mockapi-ghosts-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const fixtures = join(dir, 'fixtures');
    for (const name of COLLECTIONS) cpSync(join(repoRoot, 'fixtures', `${name}.json`), join(fixtures, `${name}.json`));
    writeFileSync(join(dir, 'mockapi.config.json'), JSON.stringify({ fixtures: 'fixtures' }));
    const server = await startServer({ cli: true, args: ['--watch', '--config', join(dir, 'mockapi.config.json')], cwd: dir, db: join(dir, 'test.db') });
    cleanups.push(() => server.cleanup());

    const visitor = sandboxClient(server.api);
    expect((await visitor.delete('/posts/100')).status).toBe(200);
    expect((await visitor.patch('/posts/99', { title: 'qqghostqq title' })).status).toBe(200);
    expect((await visitor.patch('/posts/1', { title: 'kept change' })).status).toBe(200);
    expect((await visitor.post('/sandbox/snapshots', { name: 'before' })).status).toBe(200);
    expect((await visitor.get('/posts?limit=200')).body.pagination.total).toBe(99);

    // Posts 99 and 100 leave the fixtures, with the comments on them (their foreign keys would break).
    const read = (name: string) => JSON.parse(readFileSync(join(fixtures, `${name}.json`), 'utf8')) as Record<string, unknown>[];
    const comments = read('comments').filter((c) => c.post_id !== 99 && c.post_id !== 100);
    writeFileSync(join(fixtures, 'comments.json'), JSON.stringify(comments));
    writeFileSync(join(fixtures, 'posts.json'), JSON.stringify(read('posts').filter((p) => p.id !== 99 && p.id !== 100)));
    const fresh = sandboxClient(server.api);
    await eventually('the reload', async () => (await fresh.get('/posts/99')).status === 404);

    expectProblem(await visitor.get('/posts/99'), 404, 'NOT_FOUND');
    const list = (await visitor.get('/posts?limit=200')).body;
    expect(list.pagination.total).toBe(98);
    expect(list.data).toHaveLength(98);
    expect(list.data.map((p: { id: number }) => p.id)).not.toContain(99);
    expect((await visitor.get('/posts?id=99&id=100')).body.data).toEqual([]);
    expect((await visitor.get('/posts?q=qqghostqq')).body.pagination.total).toBe(0);
    expect((await visitor.get('/posts/1')).body.title).toBe('kept change');

    // The sandbox's own export names only records that exist, so it imports again.
    const exported = (await visitor.get('/sandbox/export')).body;
    const { posts } = exported.sandboxes[0].collections;
    expect(posts.updated.map((p: { id: number }) => p.id)).toEqual([1]);
    expect(posts.deleted).toEqual([]);
    const reimported = await visitor.post('/sandbox/import', exported);
    expect(reimported.status, reimported.text).toBe(200);

    // The snapshot lost them too: restoring it brings no ghost back.
    expect((await visitor.post('/sandbox/snapshots/before/restore')).status).toBe(200);
    expectProblem(await visitor.get('/posts/99'), 404, 'NOT_FOUND');
    const restored = (await visitor.get('/posts?limit=200')).body;
    expect(restored.pagination.total).toBe(98);
    expect(restored.data).toHaveLength(98);
    expect((await visitor.get('/posts/1')).body.title).toBe('kept change');
  });
});
