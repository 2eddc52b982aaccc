import createClient from 'openapi-fetch';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from './helpers/server.js';

// The fast half of openapi-client.slow.test.ts (which compiles a typed client with tsc): the
// document generates types, and openapi-fetch calls the routes those types name.

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.cleanup();
});

describe('a client generated from the document', () => {
  it('openapi-typescript generates the paths, and an openapi-fetch client calls three routes', async () => {
    const document = await (await fetch(`${server.api}/openapi.json`)).json();
    const types = astToString(await openapiTS(document));
    for (const path of ['"/api/v1/posts"', '"/api/v1/posts/{id}"']) expect(types).toContain(path);

    const client = createClient<any>({ baseUrl: server.url, headers: { 'x-sandbox': 'untyped-client' } });
    const list = await client.GET('/api/v1/posts', { params: { query: { limit: 2, _sort: '-id' } } });
    const created = await client.POST('/api/v1/posts', { body: { user_id: 1, title: 'typed', body: 'from openapi-fetch' } });
    const fetched = await client.GET('/api/v1/posts/{id}', { params: { path: { id: created.data.id } } });
    const missing = await client.GET('/api/v1/posts/{id}', { params: { path: { id: 999999 } } });
    expect([list.response.status, created.response.status, fetched.response.status, missing.response.status]).toEqual([200, 200, 200, 404]);
    expect(list.data.data).toHaveLength(2);
    expect(created.data).toMatchObject({ title: 'typed', _sandbox: 'created' });
    expect(fetched.data).toEqual(created.data);
    expect(missing.error.code).toBe('NOT_FOUND');
  });
});
