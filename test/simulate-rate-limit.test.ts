import { describe, expect, it } from 'vitest';
import { fakeClock } from './helpers/clock.js';
import { configuredServers } from './helpers/configured.js';
import { sandboxClient, useServer } from './helpers/server.js';
import { expectProblem, request } from './helpers/problems.js';

/** The simulated rate limit per sandbox (contract section 11) and the server-wide defaults. */
const server = useServer();
const servers = configuredServers();

function expectLimitHeaders(headers: Headers, limit: number, remaining: number): void {
  expect(headers.get('ratelimit-limit')).toBe(String(limit));
  expect(headers.get('ratelimit-remaining')).toBe(String(remaining));
  expect(Number(headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(1);
}

describe('X-Simulate-Rate-Limit', () => {
  // Windows pass when the test moves the clock, not by sleeping.
  const clock = fakeClock();

  it('counts down on every answer, then 429 RATE_LIMITED with Retry-After, then recovers after the window', async () => {
    const box = sandboxClient(server.api);
    const limit = { 'x-simulate-rate-limit': '3/1s' };
    for (let used = 1; used <= 3; used++) {
      const answer = await box.get('/posts?limit=1', limit);
      expect(answer.status).toBe(200);
      expectLimitHeaders(answer.headers, 3, 3 - used);
    }
    const refused = await box.get('/posts?limit=1', limit);
    expectProblem(refused, 429, 'RATE_LIMITED');
    expectLimitHeaders(refused.headers, 3, 0);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Errors for other reasons carry the headers too while the limit applies.
    clock.advance(1_100);
    const notFound = await box.get('/posts/999999', limit);
    expectProblem(notFound, 404, 'NOT_FOUND');
    expectLimitHeaders(notFound.headers, 3, 2);
    expect((await box.get('/posts?limit=1', limit)).status).toBe(200);
  });

  it('two sandboxes never share a budget', async () => {
    const a = sandboxClient(server.api);
    const b = sandboxClient(server.api);
    const limit = { 'x-simulate-rate-limit': '2/1h' };
    expect((await a.get('/posts?limit=1', limit)).status).toBe(200);
    expect((await a.get('/posts?limit=1', limit)).status).toBe(200);
    expectProblem(await a.get('/posts?limit=1', limit), 429, 'RATE_LIMITED');
    const first = await b.get('/posts?limit=1', limit);
    expect(first.status).toBe(200);
    expectLimitHeaders(first.headers, 2, 1);
    // X-Sandbox and tokens name the sandbox the budget belongs to.
    const viaHeader = await request(`${server.api}/posts?limit=1`, { headers: { ...limit, 'x-sandbox': b.id } });
    expectLimitHeaders(viaHeader.headers, 2, 0);
    expectProblem(await request(`${server.api}/posts?limit=1`, { headers: { ...limit, 'x-sandbox': b.id } }), 429, 'RATE_LIMITED');
  });

  it('a refused write changes nothing; a request without the header is not limited', async () => {
    const box = sandboxClient(server.api);
    const limit = { 'x-simulate-rate-limit': '1/1h' };
    expect((await box.get('/posts?limit=1', limit)).status).toBe(200);
    expectProblem(await box.post('/posts', { user_id: 1, title: 't', body: 'b' }, limit), 429, 'RATE_LIMITED');
    const free = await box.get('/posts?limit=1');
    expect(free.status).toBe(200);
    expect(free.headers.get('ratelimit-limit')).toBeNull();
    expect(free.body.pagination.total).toBe(100);
  });

  it.each(['5', '0/10s', '5/0s', 'five/10s', '5/10d', '5/2d', '-1/10s', '5/100000h', ''])('%j is 400 INVALID_SIMULATION', async (value) => {
    expectProblem(await request(`${server.api}/posts`, { headers: { 'x-simulate-rate-limit': value } }), 400, 'INVALID_SIMULATION');
  });
});

describe('server-wide defaults', () => {
  it('simulate.rateLimit limits every sandbox on its own; /health is not limited', async () => {
    const limited = await servers.serve({ simulate: { rateLimit: '2/1h' } });
    const a = sandboxClient(limited.api);
    const b = sandboxClient(limited.api);
    expectLimitHeaders((await a.get('/posts?limit=1')).headers, 2, 1);
    expectLimitHeaders((await a.get('/posts?limit=1')).headers, 2, 0);
    expectProblem(await a.get('/posts?limit=1'), 429, 'RATE_LIMITED');
    expectLimitHeaders((await b.get('/posts?limit=1')).headers, 2, 1);
    for (let i = 0; i < 4; i++) expect((await request(`${limited.url}/health`)).status).toBe(200);
  });

  it('simulate.latency delays API answers; a request may ask for 0; /health is not delayed', async () => {
    const slow = await servers.serve({ simulate: { latency: '400-500' } });
    const time = async (url: string, headers: Record<string, string> = {}) => {
      const started = performance.now();
      const answer = await request(url, { headers });
      expect(answer.status).toBe(200);
      return performance.now() - started;
    };
    expect(await time(`${slow.api}/posts?limit=1`)).toBeGreaterThanOrEqual(380);
    // No upper-bound timing: a request that asks for 0 is simply answered before a 20 s one would be.
    const zero = request(`${slow.api}/posts?limit=1`, { headers: { 'x-simulate-latency': '0' } }).then(() => 'zero');
    const abort = new AbortController();
    const long = fetch(`${slow.api}/posts?limit=1`, { headers: { 'x-simulate-latency': '20s' }, signal: abort.signal }).then(
      () => 'long',
      () => 'aborted',
    );
    expect(await Promise.race([zero, long])).toBe('zero');
    const health = request(`${slow.url}/health`).then(() => 'health');
    expect(await Promise.race([health, long])).toBe('health');
    abort.abort();
  });

  it('a simulate.latency past 30 s stops the server at start, naming the key', async () => {
    await expect(servers.serve({ simulate: { latency: '31s' } })).rejects.toThrow(/simulate\.latency/);
  });
});
