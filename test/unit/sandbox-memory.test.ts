import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { coreCollections } from '../../src/collections/registry.js';
import { packageFixtures } from '../../src/config.js';
import { openDatabase } from '../../src/db/open.js';
import { loadBaseline } from '../../src/engine/baseline.js';
import { createEngine } from '../../src/engine/engine.js';

// The sandbox store remembers what reads and writes need on every request (a key's row, how many
// sandboxes hold data) instead of asking the file each time. Two connections on one file play
// this server and another process (`mockapi import/reset`, a second server).
const dir = mkdtempSync(join(tmpdir(), 'mockapi-memory-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

function twoConnections(limits: Record<string, number> = {}) {
  const file = join(dir, `${++files}.db`);
  const open = (own: Record<string, number>) => {
    const db = openDatabase(file);
    const engine = createEngine({ db, collections: coreCollections, limits: { createdPerCollection: 30, ...own } });
    return { db, engine };
  };
  const server = open(limits);
  loadBaseline(server.db, packageFixtures, coreCollections, server.engine);
  // The other one bounds nothing: only the server's count decides evictions.
  return { server, other: open({}) };
}
/** A later turn of the event loop, where the server looks at the file's data version again. */
const nextTurn = () => new Promise((done) => setImmediate(done));
const post = { user_id: 1, title: 'kept', body: 'in memory' };

describe('what the sandbox store remembers between requests', () => {
  it('a sandbox another connection created is seen on the next turn, and one it dropped is gone', async () => {
    const { server, other } = twoConnections();
    expect(server.engine.sandboxes.sidOf('elsewhere')).toBe(0);
    other.engine.collection('posts')!.create('elsewhere', post);
    await nextTurn();
    const sid = server.engine.sandboxes.sidOf('elsewhere');
    expect(sid).toBeGreaterThan(0);
    other.engine.sandboxes.write(() => other.engine.sandboxes.drop(sid));
    await nextTurn();
    expect(server.engine.sandboxes.sidOf('elsewhere')).toBe(0);
  });

  it('limits.maxSandboxes counts the sandboxes another connection filled, and a write that rolled back counts nothing', async () => {
    const { server, other } = twoConnections({ maxSandboxes: 3 });
    const posts = server.engine.collection('posts')!;
    const holding = () => server.db.sqlite.prepare('SELECT key FROM sandboxes WHERE holds = 1 ORDER BY key').pluck().all();
    posts.create('mem-a', post);
    posts.create('mem-b', post);
    // Refused (a user that does not exist) after the sandbox row was made: rolled back, not counted.
    expect(() => posts.create('mem-c', { ...post, user_id: 999 })).toThrow();
    posts.create('mem-d', post);
    expect(holding()).toEqual(['mem-a', 'mem-b', 'mem-d']);

    other.engine.collection('posts')!.create('mem-e', post);
    await nextTurn();
    // Five would hold data: the two least recently active make room.
    posts.create('mem-f', post);
    expect(holding()).toEqual(['mem-d', 'mem-e', 'mem-f']);
  });
});
