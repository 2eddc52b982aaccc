import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, startServer, type RunningServer } from './helpers/server.js';

// Slow: tsc compiles the generated types and a client on them (openapi-client.test.ts is the fast half).

let server: RunningServer;
let dir: string;

beforeAll(async () => {
  server = await startServer();
  // Inside the repository, so the compiled client finds openapi-fetch in its node_modules.
  const cache = join(repoRoot, 'node_modules/.cache');
  mkdirSync(cache, { recursive: true });
  dir = mkdtempSync(join(cache, 'openapi-client-'));
});
afterAll(async () => {
  await server?.cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A client typed by the generated `paths`: three calls, and two that must not compile. */
const client = `import createClient from 'openapi-fetch';
import type { paths } from './api.js';

export async function run(baseUrl: string) {
  const client = createClient<paths>({ baseUrl, headers: { 'x-sandbox': 'typed-client' } });
  const list = await client.GET('/api/v1/posts', { params: { query: { limit: 2, _sort: '-id' } } });
  const titles: string[] = (list.data?.data ?? []).map((post) => post.title);
  const created = await client.POST('/api/v1/posts', { body: { user_id: 1, title: 'typed', body: 'from openapi-fetch' } });
  const id: string | number = created.data!.id;
  const fetched = await client.GET('/api/v1/posts/{id}', { params: { path: { id } } });
  const missing = await client.GET('/api/v1/posts/{id}', { params: { path: { id: 999999 } } });
  const code: string | undefined = missing.error?.code;
  return { titles, created: created.data, fetched: fetched.data, code, statuses: [list.response.status, created.response.status, fetched.response.status, missing.response.status] };
}

export function neverCalled(baseUrl: string) {
  const client = createClient<paths>({ baseUrl });
  // @ts-expect-error: the document has no such path
  void client.GET('/api/v1/nothing-here');
  // @ts-expect-error: a post's title is a string
  void client.POST('/api/v1/posts', { body: { user_id: 1, title: 5, body: 'x' } });
}
`;

describe('a typed client generated from the document', () => {
  it('openapi-typescript types compile, and an openapi-fetch client on them calls three routes', { timeout: 120_000 }, async () => {
    const document = await (await fetch(`${server.api}/openapi.json`)).json();
    writeFileSync(join(dir, 'api.ts'), astToString(await openapiTS(document)));
    writeFileSync(join(dir, 'client.ts'), client);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', outDir: 'out', skipLibCheck: true, types: [] },
        include: ['api.ts', 'client.ts'],
      }),
    );
    const tsc = spawnSync(process.execPath, [join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', dir], { encoding: 'utf8' });
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);

    const { run } = (await import(pathToFileURL(join(dir, 'out/client.js')).href)) as { run: (url: string) => Promise<any> };
    const result = await run(server.url);
    expect(result.statuses).toEqual([200, 200, 200, 404]);
    expect(result.titles).toHaveLength(2);
    expect(result.created).toMatchObject({ title: 'typed', _sandbox: 'created' });
    expect(result.fetched).toEqual(result.created);
    expect(result.code).toBe('NOT_FOUND');
  });
});
