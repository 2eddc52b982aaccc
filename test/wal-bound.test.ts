import { describe, it, expect } from 'vitest';
import { statSync } from 'node:fs';
import { sandboxClient } from './helpers/server.js';
import { fakeClock } from './helpers/clock.js';
import { configuredServers } from './helpers/configured.js';
import { newRecord } from './helpers/problems.js';

/**
 * The WAL stays bounded (contract section 12): after a burst of writes, once 5 s pass without
 * one, the server checkpoints and truncates it to under 1 MiB. Failed on the build before.
 * The checkpoint timer runs on the test's clock (helpers/clock.ts): the 5 s pass without a wait.
 */

const clock = fakeClock();
const servers = configuredServers();
const walSize = (db: string) => {
  try {
    return statSync(`${db}-wal`).size;
  } catch {
    return 0;
  }
};

describe('the WAL after a burst', () => {
  it('grows with a large write, then goes back under 1 MiB once writes stop', async () => {
    const server = await servers.serve({});
    const client = sandboxClient(server.api);
    // One transaction of about 2.3 MB: an import of 30 created and 100 changed posts of 18 KB each.
    const long = (i: number) => `${i} ${'é'.repeat(9_000)}`;
    const created = Array.from({ length: 30 }, (_, i) => ({
      id: `local-00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      ...newRecord('posts', { body: long(i) }),
      _sandbox: 'created',
    }));
    const baseline = (await client.get('/posts?limit=100')).body.data as Record<string, unknown>[];
    const updated = baseline.map((post, i) => ({ ...post, body: long(i), _sandbox: 'updated' }));
    const document = {
      format: 'mockapi-export',
      version: 1,
      exportedAt: new Date().toISOString(),
      sandboxes: [{ id: client.id, collections: { posts: { created, updated } } }],
    };
    const imported = await client.post('/sandbox/import', document);
    expect(imported.status, imported.text).toBe(200);
    expect(walSize(server.db)).toBeGreaterThan(2 * 1024 * 1024);

    // Passive checkpoints while the quiet time runs leave the file as large; then one truncates it.
    clock.advance(4_000);
    expect(walSize(server.db)).toBeGreaterThan(2 * 1024 * 1024);
    clock.advance(3_000);
    expect(walSize(server.db)).toBeLessThan(1024 * 1024);
    // Nothing was lost on the way.
    expect((await client.get('/posts?limit=1')).body.pagination.total).toBe(130);
  }, 30_000);
});
