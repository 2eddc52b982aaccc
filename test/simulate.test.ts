import { describe, expect, it } from 'vitest';
import { request as httpRequest } from 'node:http';
import { sandboxClient, useServer } from './helpers/server.js';
import { expectProblem, request, totalOf } from './helpers/problems.js';

/** Network simulation per request (contract section 11), black-box on the real server. */
const server = useServer();

/** Milliseconds a request took, for "was it delayed at all" checks with generous margins (never an upper bound). */
async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; result: T }> {
  const started = performance.now();
  const result = await work();
  return { ms: performance.now() - started, result };
}

describe('latency', () => {
  it.each([
    ['header 300', { 'x-simulate-latency': '300' }, ''],
    ['header 300ms', { 'x-simulate-latency': '300ms' }, ''],
    ['header 0.3s', { 'x-simulate-latency': '0.3s' }, ''],
    ['header range 300-400', { 'x-simulate-latency': '300-400' }, ''],
    ['query _delay=300', {}, '&_delay=300'],
    ['query _delay=300ms', {}, '&_delay=300ms'],
  ])('%s delays the answer, which is otherwise the same', async (_name, headers, query) => {
    const box = sandboxClient(server.api);
    const plain = await box.get('/posts?limit=2');
    const { ms, result } = await timed(() => box.get(`/posts?limit=2${query}`, headers));
    expect(result.status, result.text).toBe(200);
    expect(result.body).toEqual(plain.body);
    expect(ms).toBeGreaterThanOrEqual(280);
  });

  it('_delay and _status never reach the list parser (no INVALID_QUERY), on lists and records', async () => {
    const box = sandboxClient(server.api);
    expect((await box.get('/posts?_delay=0&limit=1')).status).toBe(200);
    expect((await box.get('/posts/1?_delay=0')).status).toBe(200);
    expect((await box.get('/users/1/posts?_delay=0')).status).toBe(200);
  });

  it('a delayed request does not hold up others', async () => {
    const box = sandboxClient(server.api);
    const slow = box.get('/posts?limit=1', { 'x-simulate-latency': '1500ms' });
    let slowDone = false;
    void slow.then(() => (slowDone = true));
    const fast = await box.get('/posts?limit=1');
    expect(fast.status).toBe(200);
    expect(slowDone).toBe(false);
    expect((await slow).status).toBe(200);
  });

  it('a client that disconnects during a delay ends its request at once (the activity log shows 499)', async () => {
    const box = sandboxClient(server.api, `gone-${crypto.randomUUID()}`);
    await box.get('/posts?limit=1');
    const abort = new AbortController();
    const gone = fetch(`${server.api}/posts?limit=1`, { headers: { cookie: `svc_identity=${box.id}`, 'x-simulate-latency': '20s' }, signal: abort.signal });
    await new Promise((wait) => setTimeout(wait, 200));
    abort.abort();
    await expect(gone).rejects.toThrow();
    // Well before the 20 s delay would end, the server has let the request go.
    const until = Date.now() + 5_000;
    let statuses: number[] = [];
    while (Date.now() < until) {
      statuses = (await box.get('/sandbox/activity')).body.data.map((entry: { status: number }) => entry.status);
      if (statuses.includes(499)) break;
      await new Promise((wait) => setTimeout(wait, 100));
    }
    expect(statuses).toContain(499);
  });

  it.each(['soon', '-5', '31s', '30001', '400-100', '1m', '250 ms', '1e3', '', '100-', '-100'])(
    'X-Simulate-Latency %j is 400 INVALID_SIMULATION at once',
    async (value) => {
      const answer = await request(`${server.api}/posts`, { headers: { 'x-simulate-latency': value } });
      expectProblem(answer, 400, 'INVALID_SIMULATION');
      expect(answer.body.detail).toContain('X-Simulate-Latency');
    },
  );

  it.each(['soon', '31s', '1-99999'])('_delay=%s is 400 INVALID_SIMULATION naming the parameter', async (value) => {
    const answer = await request(`${server.api}/posts?_delay=${encodeURIComponent(value)}`);
    expectProblem(answer, 400, 'INVALID_SIMULATION');
    expect(answer.body.detail).toContain('_delay');
  });

  it('30s is the most accepted (checked without waiting: the request is aborted)', async () => {
    const abort = new AbortController();
    const answer = fetch(`${server.api}/posts`, { headers: { 'x-simulate-latency': '30s' }, signal: abort.signal });
    const raced = await Promise.race([answer.then((r) => r.status), new Promise((done) => setTimeout(() => done('waiting'), 500))]);
    abort.abort();
    await answer.catch(() => undefined);
    expect(raced).toBe('waiting');
  });
});

describe('status override', () => {
  it.each([
    ['X-Simulate-Status', 503],
    ['_status', 404],
    ['X-Simulate-Status', 500],
    ['_status', 422],
    ['X-Simulate-Status', 401],
  ])('%s %i answers that status with a problem body and changes nothing', async (form, status) => {
    const box = sandboxClient(server.api);
    const before = await totalOf(box, 'posts');
    const body = { user_id: 1, title: 'never stored', body: 'b' };
    const answer =
      form === '_status'
        ? await box.post(`/posts?_status=${status}`, body)
        : await box.post('/posts', body, { 'x-simulate-status': String(status) });
    expectProblem(answer, status, 'SIMULATED_STATUS');
    expect(await totalOf(box, 'posts')).toBe(before);
    if (status === 401) expect(answer.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('applies to reads as well, and on unknown paths', async () => {
    expectProblem(await request(`${server.api}/posts/1`, { headers: { 'x-simulate-status': '500' } }), 500, 'SIMULATED_STATUS');
    expectProblem(await request(`${server.api}/nothing-here?_status=502`), 502, 'SIMULATED_STATUS');
  });

  it.each(['200', '302', '600', '99', 'abc', '', '4040', '404.0'])('status %j is 400 INVALID_SIMULATION', async (value) => {
    expectProblem(await request(`${server.api}/posts`, { headers: { 'x-simulate-status': value } }), 400, 'INVALID_SIMULATION');
    expectProblem(await request(`${server.api}/posts?_status=${encodeURIComponent(value)}`), 400, 'INVALID_SIMULATION');
  });

  it('an invalid simulation value changes nothing either', async () => {
    const box = sandboxClient(server.api);
    const before = await totalOf(box, 'posts');
    expectProblem(await box.post('/posts', { user_id: 1, title: 't', body: 'b' }, { 'x-simulate-latency': 'never' }), 400, 'INVALID_SIMULATION');
    expect(await totalOf(box, 'posts')).toBe(before);
  });
});

describe('flaky', () => {
  it('X-Simulate-Flaky: 0.3 fails about 30 % of 200 requests with 503 SIMULATED_FAILURE', async () => {
    const box = sandboxClient(server.api);
    const statuses: number[] = [];
    for (let batch = 0; batch < 10; batch++) {
      const answers = await Promise.all(Array.from({ length: 20 }, () => box.get('/posts?limit=1', { 'x-simulate-flaky': '0.3' })));
      for (const answer of answers) {
        statuses.push(answer.status);
        if (answer.status === 503) expect(answer.body.code).toBe('SIMULATED_FAILURE');
      }
    }
    expect(new Set(statuses)).toEqual(new Set([200, 503]));
    const failures = statuses.filter((s) => s === 503).length;
    // Binomial(200, 0.3): mean 60, sd 6.5; 30..90 is about ±4.6 sd (a false alarm less than once in 100,000 runs).
    expect(failures).toBeGreaterThanOrEqual(30);
    expect(failures).toBeLessThanOrEqual(90);
  });

  it('0 never fails and 1 always fails', async () => {
    for (let i = 0; i < 20; i++) {
      expect((await request(`${server.api}/posts?limit=1`, { headers: { 'x-simulate-flaky': '0' } })).status).toBe(200);
      expectProblem(await request(`${server.api}/posts?limit=1`, { headers: { 'x-simulate-flaky': '1' } }), 503, 'SIMULATED_FAILURE');
    }
  });

  it('a failed write changes nothing', async () => {
    const box = sandboxClient(server.api);
    const before = await totalOf(box, 'posts');
    expectProblem(await box.post('/posts', { user_id: 1, title: 't', body: 'b' }, { 'x-simulate-flaky': '1.0' }), 503, 'SIMULATED_FAILURE');
    expect(await totalOf(box, 'posts')).toBe(before);
  });

  it.each(['1.5', '-0.1', '30%', 'half', '', '0.3.1'])('X-Simulate-Flaky %j is 400 INVALID_SIMULATION', async (value) => {
    expectProblem(await request(`${server.api}/posts`, { headers: { 'x-simulate-flaky': value } }), 400, 'INVALID_SIMULATION');
  });
});

describe('network reset', () => {
  /** One raw HTTP request: resolves with the status, or with the socket error when no answer came. */
  const raw = (headers: Record<string, string>) =>
    new Promise<{ status?: number; error?: string }>((done) => {
      const url = new URL(`${server.api}/posts?limit=1`);
      const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname + url.search, headers, agent: false }, (res) => {
        res.resume();
        res.on('end', () => done({ status: res.statusCode }));
      });
      req.on('error', (error: NodeJS.ErrnoException) => done({ error: error.code ?? error.message }));
      req.end();
    });

  it('X-Simulate-Network: reset closes the socket with no answer', async () => {
    const answer = await raw({ 'x-simulate-network': 'reset' });
    expect(answer.status).toBeUndefined();
    expect(answer.error).toMatch(/ECONNRESET|socket hang up/);
    // fetch sees a network error, as a browser would.
    await expect(fetch(`${server.api}/posts`, { headers: { 'x-simulate-network': 'reset' } })).rejects.toThrow();
    // The server is fine afterwards.
    expect((await raw({})).status).toBe(200);
    expect(server.stderr()).toBe('');
  });

  it('after a delay, the reset still comes with no answer', async () => {
    const answer = await raw({ 'x-simulate-network': 'reset', 'x-simulate-latency': '100' });
    expect(answer.status).toBeUndefined();
  });

  it.each(['close', 'timeout', ''])('X-Simulate-Network %j is 400 INVALID_SIMULATION', async (value) => {
    expectProblem(await request(`${server.api}/posts`, { headers: { 'x-simulate-network': value } }), 400, 'INVALID_SIMULATION');
  });
});

describe('scope', () => {
  it('/health is not simulated (a health check stays true)', async () => {
    const answer = await request(`${server.url}/health`, { headers: { 'x-simulate-status': '500', 'x-simulate-network': 'reset' } });
    expect(answer.status).toBe(200);
  });
});
