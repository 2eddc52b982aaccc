import { describe, expect, it } from 'vitest';
import { configuredServers } from './helpers/configured.js';
import { sandboxClient, useServer } from './helpers/server.js';
import { expectProblem, request } from './helpers/problems.js';

/** CORS for pages on a dev server (contract section 11), on the real server. */
const server = useServer();
const page = 'http://localhost:3000';

const exposed = ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after', 'x-service-delivery', 'location'];

function expectCors(headers: Headers, origin = page): void {
  expect(headers.get('access-control-allow-origin')).toBe(origin);
  expect(headers.get('access-control-allow-credentials')).toBe('true');
  expect(headers.get('vary') ?? '').toMatch(/\bOrigin\b/);
}

function expectNoCors(headers: Headers): void {
  for (const name of ['access-control-allow-origin', 'access-control-allow-credentials', 'access-control-allow-methods', 'access-control-allow-headers']) {
    expect(headers.get(name), name).toBeNull();
  }
}

const preflight = (url: string, origin: string | null, method = 'PATCH', asked?: string) =>
  request(url, {
    method: 'OPTIONS',
    headers: { ...(origin ? { origin } : {}), 'access-control-request-method': method, ...(asked ? { 'access-control-request-headers': asked } : {}) },
  });

describe('CORS, every origin allowed (the default)', () => {
  it.each([
    ['GET', '/health', 200],
    ['GET', '/api/v1/posts?limit=1', 200],
    ['GET', '/api/v1/posts/1', 200],
    ['GET', '/api/v1/posts/999999', 404],
    ['GET', '/api/v1/no-such-collection', 404],
    ['GET', '/no/such/path', 404],
    ['DELETE', '/health', 405],
    ['GET', '/api/v1/posts?limit=0', 400],
    ['POST', '/api/v1/posts', 415],
  ])('%s %s (%i) echoes the origin with credentials, exposes the headers, and varies on Origin', async (method, path, status) => {
    const answer = await request(`${server.url}${path}`, { method, headers: { origin: page, cookie: 'svc_identity=cors-box' } });
    expect(answer.status, answer.text).toBe(status);
    expectCors(answer.headers);
    const exposedHeaders = (answer.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(/\s*,\s*/);
    expect(exposedHeaders).toEqual(expect.arrayContaining(exposed));
    if (status >= 400) expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('API answers carry Vary: Origin even without an Origin, and then no CORS headers', async () => {
    const answer = await request(`${server.api}/posts?limit=1`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('vary')).toBe('Origin');
    expectNoCors(answer.headers);
  });

  it('a preflight on any path is 204 with the methods, the asked headers by name and Max-Age 600', async () => {
    for (const path of ['/api/v1/posts/1', '/api/v1/posts', '/health', '/api/v1/auth/login', '/api/v1/nowhere']) {
      const answer = await preflight(`${server.url}${path}`, page, 'PATCH', 'Authorization, Content-Type, X-Sandbox, X-Simulate-Latency, X-Simulate-Status');
      expect(answer.status, path).toBe(204);
      expect(answer.text).toBe('');
      expectCors(answer.headers);
      const methods = answer.headers.get('access-control-allow-methods')!.split(/\s*,\s*/);
      expect(methods).toEqual(expect.arrayContaining(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']));
      const allowed = answer.headers.get('access-control-allow-headers')!.split(/\s*,\s*/);
      expect(allowed).toEqual(expect.arrayContaining(['authorization', 'content-type', 'x-sandbox', 'x-simulate-latency', 'x-simulate-status']));
      expect(allowed).not.toContain('*');
      expect(answer.headers.get('access-control-max-age')).toBe('600');
    }
  });

  it('a preflight that asks for no header still allows content-type, authorization and x-sandbox; `*` is never echoed', async () => {
    const plain = await preflight(`${server.api}/posts`, page, 'POST');
    expect(plain.headers.get('access-control-allow-headers')!.split(/\s*,\s*/).sort()).toEqual(['authorization', 'content-type', 'x-sandbox']);
    const star = await preflight(`${server.api}/posts`, page, 'POST', '*, x-simulate-flaky, bad header');
    const allowed = star.headers.get('access-control-allow-headers')!.split(/\s*,\s*/);
    expect(allowed).toContain('x-simulate-flaky');
    expect(allowed).not.toContain('*');
    expect(allowed).not.toContain('bad header');
  });

  it('a preflight touches no sandbox: no cookie minted, nothing in the activity log', async () => {
    const answer = await preflight(`${server.api}/posts`, page);
    expect(answer.headers.get('set-cookie')).toBeNull();
    const box = sandboxClient(server.api, 'cors-quiet-box');
    const withCookie = await request(`${server.api}/posts`, {
      method: 'OPTIONS',
      headers: { origin: page, 'access-control-request-method': 'POST', cookie: `svc_identity=${box.id}` },
    });
    expect(withCookie.status).toBe(204);
    const activity = await box.get('/sandbox/activity');
    expect(activity.status).toBe(200);
    expect(activity.body.data.filter((entry: { method: string }) => entry.method === 'OPTIONS')).toEqual([]);
  });

  it('a preflight asking for the private network (a public page calling a local mockapi) is allowed it', async () => {
    const answer = await request(`${server.api}/posts`, {
      method: 'OPTIONS',
      headers: { origin: 'https://preview.example.test', 'access-control-request-method': 'GET', 'access-control-request-private-network': 'true' },
    });
    expect(answer.status).toBe(204);
    expect(answer.headers.get('access-control-allow-private-network')).toBe('true');
    expect((await preflight(`${server.api}/posts`, page)).headers.get('access-control-allow-private-network')).toBeNull();
  });

  it('a plain OPTIONS, without Access-Control-Request-Method, stays 405 (with CORS headers)', async () => {
    const answer = await request(`${server.api}/posts`, { method: 'OPTIONS', headers: { origin: page } });
    expectProblem(answer, 405, 'METHOD_NOT_ALLOWED');
    expectCors(answer.headers);
  });

  it('a preflight without Origin is still 204 but allows no origin', async () => {
    const answer = await preflight(`${server.api}/posts`, null);
    expect(answer.status).toBe(204);
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('simulated errors and rate-limit answers carry the CORS headers too', async () => {
    const forced = await request(`${server.api}/posts?_status=500`, { headers: { origin: page } });
    expectProblem(forced, 500, 'SIMULATED_STATUS');
    expectCors(forced.headers);
    const invalid = await request(`${server.api}/posts`, { headers: { origin: page, 'x-simulate-latency': 'soon' } });
    expectProblem(invalid, 400, 'INVALID_SIMULATION');
    expectCors(invalid.headers);
    const box = sandboxClient(server.api, 'cors-limited-box');
    await box.get('/posts?limit=1', { origin: page, 'x-simulate-rate-limit': '1/1h' });
    const limited = await box.get('/posts?limit=1', { origin: page, 'x-simulate-rate-limit': '1/1h' });
    expectProblem(limited, 429, 'RATE_LIMITED');
    expectCors(limited.headers);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});

describe('CORS restricted by cors.origins', () => {
  const servers = configuredServers();

  it('allows the listed origins, compared as scheme://host[:port] (host case-insensitive, no trailing slash)', async () => {
    const restricted = await servers.serve({ cors: { origins: ['http://LOCALHOST:3000/', 'https://app.example.test:8443'] } });
    for (const origin of ['http://localhost:3000', 'http://LocalHost:3000', 'https://app.example.test:8443']) {
      const answer = await request(`${restricted.api}/posts?limit=1`, { headers: { origin } });
      expect(answer.status).toBe(200);
      expectCors(answer.headers, origin);
      expect((await preflight(`${restricted.api}/posts/1`, origin)).status).toBe(204);
    }
    for (const origin of ['http://localhost:3001', 'https://localhost:3000', 'http://evil.test', 'https://app.example.test', 'null']) {
      const answer = await request(`${restricted.api}/posts?limit=1`, { headers: { origin } });
      expect(answer.status, origin).toBe(200);
      expectNoCors(answer.headers);
      expect(answer.headers.get('vary')).toMatch(/\bOrigin\b/);
      const refused = await preflight(`${restricted.api}/posts/1`, origin);
      expectProblem(refused, 403, 'CORS_ORIGIN_NOT_ALLOWED');
      expectNoCors(refused.headers);
      expect(refused.headers.get('set-cookie')).toBeNull();
    }
  });

  it('one origin as a string works the same', async () => {
    const restricted = await servers.serve({ cors: { origins: 'http://localhost:5173' } });
    expectCors((await request(`${restricted.url}/health`, { headers: { origin: 'http://localhost:5173' } })).headers, 'http://localhost:5173');
    expectNoCors((await request(`${restricted.url}/health`, { headers: { origin: 'http://localhost:3000' } })).headers);
    expectProblem(await preflight(`${restricted.url}/health`, 'http://localhost:3000', 'GET'), 403, 'CORS_ORIGIN_NOT_ALLOWED');
  });
});
