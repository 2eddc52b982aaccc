import type { IncomingMessage, ServerResponse } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { loadMockapiConfig, type ResolvedConfig } from '../src/config.js';
import { plainReads } from '../src/http/plain-reads.js';
import { createMetrics } from '../src/metrics/metrics.js';
import { createRuntime, type Runtime } from '../src/runtime.js';
import { sandboxClient, useServer } from './helpers/server.js';

// The plain reads answered ahead of h3 (src/http/plain-reads.ts) must answer exactly what h3's
// route answers: the same status, headers and bytes, for every read they take; and take none
// that h3 would answer otherwise (CORS, a token, the simulator, custom routes, errors, minting).
const dir = mkdtempSync(join(tmpdir(), 'mockapi-plain-reads-'));
let runtime: Runtime;
let app: ReturnType<typeof createApp>;
let plain: ReturnType<typeof plainReads>;
const cookie = 'svc_identity=plain-reader';

beforeAll(async () => {
  runtime = await createRuntime(await loadMockapiConfig({ port: 0, db: join(dir, "db.sqlite") }, dir));
  app = createApp(runtime);
  plain = plainReads(runtime, createMetrics(runtime).recorder);
  // The sandbox holds data of its own: a created post, a changed one, a deleted one.
  const write = (method: string, path: string, body?: object) =>
    app.fetch(new Request(`http://mockapi${path}`, { method, headers: { cookie, 'content-type': 'application/json' }, body: body && JSON.stringify(body) }));
  expect((await write('POST', '/api/v1/posts', { user_id: 2, title: 'Sunt plain', body: 'Read ahead of h3.' })).status).toBe(200);
  expect((await write('PATCH', '/api/v1/posts/2', { title: 'Sunt changed' })).status).toBe(200);
  expect((await write('DELETE', '/api/v1/posts/3')).status).toBe(200);
});
afterAll(() => {
  runtime.close();
  rmSync(dir, { recursive: true, force: true });
});

/** What the plain path does with the request: undefined when it hands it to h3 (having written nothing). */
function viaPlain(method: string, url: string, headers: Record<string, string>) {
  let answer: { status: number; headers: Record<string, string>; body: string } | undefined;
  let headPart: { status: number; headers: Record<string, string> } | undefined;
  const res = {
    writeHead(status: number, pairs: string[]) {
      const named: Record<string, string> = {};
      for (let i = 0; i < pairs.length; i += 2) named[pairs[i]!] = pairs[i + 1]!;
      headPart = { status, headers: named };
      return res;
    },
    end(body: string) {
      answer = { ...headPart!, body };
    },
  };
  const taken = plain({ method, url, headers } as unknown as IncomingMessage, res as unknown as ServerResponse);
  if (!taken) expect(headPart, 'nothing written when handed over').toBeUndefined();
  return taken ? answer : undefined;
}

async function viaH3(url: string, headers: Record<string, string>) {
  const response = await app.fetch(new Request(`http://mockapi${url}`, { headers }));
  const body = await response.text();
  return { status: response.status, headers: { 'content-type': response.headers.get('content-type'), vary: response.headers.get('vary') }, body, cookie: response.headers.get('set-cookie') };
}

describe('plain reads ahead of h3', () => {
  it.each([
    '/api/v1/posts',
    '/api/v1/posts?limit=3',
    '/api/v1/posts?limit=3&_=123',
    '/api/v1/posts?q=sunt',
    '/api/v1/posts?_sort=-title&limit=2',
    '/api/v1/posts?_embed=comments&limit=2',
    '/api/v1/posts?user_id=2&title_like=sunt',
    '/api/v1/todos?page=2&limit=5',
    '/api/v1/posts/1',
    '/api/v1/posts/2',
    '/api/v1/users/3',
    '/api/v1/comments/7',
  ])('answer %s as the route does', async (url) => {
    const ways: Record<string, string>[] = [{ cookie }, { 'x-sandbox': 'plain-reader' }, { cookie: `theme=dark; ${cookie}; other=1` }];
    for (const headers of ways) {
      const ahead = viaPlain('GET', url, headers);
      const route = await viaH3(url, headers);
      expect(route.status).toBe(200);
      expect(ahead, url).toBeDefined();
      expect(ahead!.status).toBe(200);
      expect(ahead!.body).toBe(route.body);
      expect(ahead!.headers).toEqual({ ...route.headers, 'content-length': String(Buffer.byteLength(route.body)) });
      expect(route.cookie).toBeNull();
    }
  });

  it.each([
    ['a browser cross-origin call', 'GET', '/api/v1/posts', { cookie, origin: 'http://localhost:3000' }],
    ['a token', 'GET', '/api/v1/posts', { cookie, authorization: 'Bearer abc' }],
    ['the simulator (header)', 'GET', '/api/v1/posts', { cookie, 'x-simulate-latency': '10' }],
    ['the simulator (query)', 'GET', '/api/v1/posts?_delay=5', { cookie }],
    ['no sandbox named (a cookie to mint)', 'GET', '/api/v1/posts', {}],
    ['a malformed cookie', 'GET', '/api/v1/posts', { cookie: 'svc_identity=bad%20id' }],
    ['a malformed X-Sandbox', 'GET', '/api/v1/posts', { 'x-sandbox': 'no spaces' }],
    ['HEAD', 'HEAD', '/api/v1/posts', { cookie }],
    ['a write', 'POST', '/api/v1/posts', { cookie }],
    ['an unknown collection', 'GET', '/api/v1/nothing', { cookie }],
    ['a bad query', 'GET', '/api/v1/posts?limit=abc', { cookie }],
    ['a missing record', 'GET', '/api/v1/posts/3', { cookie }],
    ['a record with a query', 'GET', '/api/v1/posts/1?_embed=comments', { cookie }],
    ['a trailing slash', 'GET', '/api/v1/posts/', { cookie }],
    ['an escaped path', 'GET', '/api/v1/posts/%31', { cookie }],
    ['a query URL parsing rewrites', 'GET', '/api/v1/posts?q=a%20b"c', { cookie }],
    ['a bare question mark', 'GET', '/api/v1/posts?', { cookie }],
    ['a custom collection', 'GET', '/api/v1/custom/invoices', { cookie }],
    ['another route', 'GET', '/api/v1/sandbox', { cookie }],
  ] as const)('hand %s to h3', (_what, method, url, headers) => {
    expect(viaPlain(method, url, headers)).toBeUndefined();
  });

  it('hand everything to h3 when the config has custom routes, requires tokens or simulates by default', async () => {
    const swap = async (change: Partial<ResolvedConfig>) => {
      const before = runtime.config;
      await runtime.reconfigure({ ...before, ...change } as ResolvedConfig);
      try {
        return viaPlain('GET', '/api/v1/posts', { cookie });
      } finally {
        await runtime.reconfigure(before);
      }
    };
    expect(viaPlain('GET', '/api/v1/posts', { cookie })).toBeDefined();
    expect(await swap({ routes: { 'GET /hello': () => ({ hi: true }) } as unknown as ResolvedConfig['routes'] })).toBeUndefined();
    expect(await swap({ auth: { ...runtime.config.auth, required: true } })).toBeUndefined();
    expect(await swap({ simulate: { ...runtime.config.simulate, latency: 5 } })).toBeUndefined();
  });

  it('are counted in the metrics and the sandbox activity log as the route counts them (over HTTP)', async () => {
    const client = sandboxClient(server.api, 'plain-counted');
    for (const path of ['/posts?limit=2', '/posts?limit=2', '/posts/1', '/posts/1', '/posts/999999']) await client.get(path);
    const activity = (await client.get('/sandbox/activity')).body.data.map((e: { method: string; path: string; status: number }) => `${e.method} ${e.path} ${e.status}`);
    expect(activity).toEqual(['GET /api/v1/posts/999999 404', 'GET /api/v1/posts/1 200', 'GET /api/v1/posts/1 200', 'GET /api/v1/posts 200', 'GET /api/v1/posts 200']);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toContain('mockapi_http_requests_total{method="GET",route="/api/v1/posts",status="200"} 2');
    expect(metrics).toContain('mockapi_http_requests_total{method="GET",route="/api/v1/posts/:id",status="200"} 2');
    // The histogram counts every status (the 404 was h3's).
    expect(metrics).toContain('mockapi_http_request_duration_seconds_count{method="GET",route="/api/v1/posts/:id"} 3');
  });
});

const server = useServer();
