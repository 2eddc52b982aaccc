import { describe, it, expect } from 'vitest';
import { sandboxClient } from './helpers/server.js';
import { configuredServers, readFile } from './helpers/configured.js';
import { expectProblem } from './helpers/problems.js';

/**
 * `limits.sandboxBytes` bounds the UTF-8 bytes of record JSON a sandbox stores, overlay and
 * snapshots together (contract section 12). Each case failed on the build before the bound.
 */

const servers = configuredServers();
const limit = 20_000;
/** A post body of about `kb` KB; é is two bytes in UTF-8, so characters are not bytes. */
const text = (kb: number) => 'é'.repeat(kb * 512);

/** What the file says the sandbox stores, from its rows (a tombstone counts as its id). */
function storedBytes(file: string, key: string): number {
  return readFile(file, (db) => {
    const sum = (table: string) =>
      db
        .prepare(
          `SELECT coalesce(sum(coalesce(length(CAST(doc AS BLOB)), length(CAST(id AS TEXT)))), 0) FROM ${table}
            WHERE sid = (SELECT sid FROM sandboxes WHERE key = ?)`,
        )
        .pluck()
        .get(key) as number;
    return sum('overlay') + sum('snapshot_rows');
  });
}

describe('limits.sandboxBytes', () => {
  it('a write past the bound is 403 naming it and changes nothing; one that does not grow the total passes', async () => {
    const server = await servers.serve({ limits: { sandboxBytes: limit } });
    const client = sandboxClient(server.api);
    for (const id of [1, 2, 3]) expect((await client.patch(`/posts/${id}`, { body: text(5) })).status).toBe(200);
    const used = (await client.get('/sandbox')).body.quotas.bytes;
    expect(used).toEqual({ used: storedBytes(server.db, client.id), limit });
    expect(used.used).toBeGreaterThan(15_000);

    const refused = await client.patch('/posts/4', { body: text(5) });
    expectProblem(refused, 403, 'QUOTA_EXCEEDED');
    expect(refused.body.detail).toContain('limits.sandboxBytes');
    expect((await client.get('/posts/4')).body._sandbox).toBeUndefined();
    expect((await client.get('/sandbox')).body.quotas.bytes.used).toBe(used.used);

    // Shrinking and deleting are always allowed; the freed bytes can be used again.
    expect((await client.patch('/posts/1', { body: 'short' })).status).toBe(200);
    expect((await client.delete('/posts/2')).status).toBe(200);
    expect((await client.patch('/posts/4', { body: text(5) })).status).toBe(200);
    expect((await client.get('/sandbox')).body.quotas.bytes.used).toBe(storedBytes(server.db, client.id));
  });

  it('a snapshot counts its copy; a snapshot or a restore that would pass the bound is 403 and changes nothing', async () => {
    const server = await servers.serve({ limits: { sandboxBytes: limit } });
    const client = sandboxClient(server.api);
    expect((await client.patch('/posts/1', { body: text(9) })).status).toBe(200);
    expect((await client.post('/sandbox/snapshots', { name: 'big' })).status).toBe(200);
    const afterBig = (await client.get('/sandbox')).body.quotas.bytes.used;
    expect(afterBig).toBe(storedBytes(server.db, client.id));
    // A second copy of the same overlay would pass it.
    expectProblem(await client.post('/sandbox/snapshots', { name: 'twice' }), 403, 'QUOTA_EXCEEDED');
    expect((await client.get('/sandbox/snapshots')).body.data.map((s: { name: string }) => s.name)).toEqual(['big']);

    // Reset keeps the snapshot; a smaller overlay and its snapshot fit; restoring "big" over them would not.
    expect((await client.post('/sandbox/reset')).status).toBe(200);
    expect((await client.patch('/posts/2', { body: text(4) })).status).toBe(200);
    expect((await client.post('/sandbox/snapshots', { name: 'small' })).status).toBe(200);
    const before = (await client.get('/sandbox')).body.quotas.bytes.used;
    expectProblem(await client.post('/sandbox/snapshots/big/restore'), 403, 'QUOTA_EXCEEDED');
    expect((await client.get('/posts/2')).body._sandbox).toBe('updated');
    expect((await client.get('/posts/1')).body._sandbox).toBeUndefined();
    expect((await client.get('/sandbox')).body.quotas.bytes.used).toBe(before);

    // Deleting a snapshot frees its bytes: now the restore fits.
    expect((await client.delete('/sandbox/snapshots/small')).status).toBe(200);
    expect((await client.post('/sandbox/snapshots/big/restore')).status).toBe(200);
    expect((await client.get('/posts/1')).body._sandbox).toBe('updated');
    expect((await client.get('/sandbox')).body.quotas.bytes.used).toBe(storedBytes(server.db, client.id));
  });

  it('an import over the bound is 403 and leaves the sandbox as it was', async () => {
    const roomy = await servers.serve({ limits: { sandboxBytes: 0 } });
    const big = sandboxClient(roomy.api);
    for (const id of [1, 2, 3, 4, 5]) expect((await big.patch(`/posts/${id}`, { body: text(5) })).status).toBe(200);
    const document = (await big.get('/sandbox/export')).body;

    const server = await servers.serve({ limits: { sandboxBytes: limit } });
    const client = sandboxClient(server.api);
    expect((await client.patch('/posts/9', { title: 'mine' })).status).toBe(200);
    const refused = await client.post('/sandbox/import', document);
    expectProblem(refused, 403, 'QUOTA_EXCEEDED');
    expect(refused.body.detail).toContain('limits.sandboxBytes');
    expect((await client.get('/posts/9')).body.title).toBe('mine');
    expect((await client.get('/posts/1')).body._sandbox).toBeUndefined();
  });

  it('0 means no bound, and GET /sandbox says so', async () => {
    const server = await servers.serve({ limits: { sandboxBytes: 0 } });
    const client = sandboxClient(server.api);
    for (const id of [1, 2, 3, 4, 5]) expect((await client.patch(`/posts/${id}`, { body: text(5) })).status).toBe(200);
    expect((await client.get('/sandbox')).body.quotas.bytes).toEqual({ used: storedBytes(server.db, client.id), limit: 0 });
  });
});
