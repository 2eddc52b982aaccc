import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expectProblem } from './helpers/problems.js';
import { sandboxClient, startServer, type RunningServer } from './helpers/server.js';

// Contract section 2: the limits come from the config, not only from the defaults.
describe('limits from the config file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mockapi-limits-'));
  let server: RunningServer | undefined;
  afterAll(async () => {
    await server?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('moves the created-records cap, the body size bound and the page size bound', async () => {
    writeFileSync(join(dir, 'mockapi.config.json'), JSON.stringify({ limits: { createdPerCollection: 2, bodyBytes: 1000, maxPageSize: 5 } }));
    server = await startServer({ cwd: dir });
    const client = sandboxClient(server.api);
    const todo = { user_id: 1, title: 'capped', completed: false };
    expect((await client.post('/todos', todo)).status).toBe(200);
    expect((await client.post('/todos', todo)).status).toBe(200);
    expectProblem(await client.post('/todos', todo), 403, 'QUOTA_EXCEEDED');
    expect((await client.post('/posts', { user_id: 1, title: 't', body: 'x'.repeat(900) })).status).toBe(200);
    expectProblem(await client.post('/posts', { user_id: 1, title: 't', body: 'x'.repeat(1000) }), 413, 'PAYLOAD_TOO_LARGE');
    expect((await client.get('/posts?limit=5')).status).toBe(200);
    expectProblem(await client.get('/posts?limit=6'), 400, 'INVALID_QUERY');
  });
});
