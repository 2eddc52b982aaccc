import { describe, it, expect } from 'vitest';
import { sandboxClient, useServer } from './helpers/server.js';
import { BASELINE, expectProblem, newRecord, request, totalOf } from './helpers/problems.js';

const server = useServer();

/** Parses `svc_identity=<id>; Path=/; HttpOnly; SameSite=Lax` into the id and its attributes. */
function identityCookie(headers: Headers): { id: string; attributes: string[] } | undefined {
  const cookies = headers.getSetCookie().filter((c) => c.startsWith('svc_identity='));
  expect(cookies.length).toBeLessThanOrEqual(1);
  if (cookies.length === 0) return undefined;
  const [pair, ...attributes] = cookies[0].split(';').map((part) => part.trim());
  return { id: pair.slice('svc_identity='.length), attributes: attributes.map((a) => a.toLowerCase()) };
}

describe('a request without a cookie', () => {
  it('gets a minted, URL-safe id of at least 128 bits with the contract attributes', async () => {
    const answer = await request(`${server.api}/users`);
    expect(answer.status).toBe(200);
    const cookie = identityCookie(answer.headers);
    expect(cookie).toBeDefined();
    expect(cookie!.id).toMatch(/^[A-Za-z0-9_-]{22,128}$/);
    expect(cookie!.attributes).toEqual(expect.arrayContaining(['path=/', 'httponly', 'samesite=lax']));
  });

  it('gets a different id each time', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const answer = await request(`${server.api}/todos/1`);
      expect(answer.status).toBe(200);
      ids.add(identityCookie(answer.headers)!.id);
    }
    expect(ids.size).toBe(5);
  });

  it('writes into the minted sandbox, which the cookie reaches again', async () => {
    const answer = await request(`${server.api}/users`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(newRecord('users')),
    });
    expect(answer.status, answer.text).toBe(200);
    const id = identityCookie(answer.headers)!.id;
    const created = answer.body.id;

    const same = sandboxClient(server.api, id);
    const again = await same.get(`/users/${created}`);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(answer.body);
    expect(identityCookie(again.headers)).toBeUndefined();
    expect(await totalOf(same, 'users')).toBe(BASELINE.users + 1);

    const other = sandboxClient(server.api);
    expect((await other.get(`/users/${created}`)).status).toBe(404);
  });

  it('is told its minted id by reset', async () => {
    const answer = await request(`${server.api}/sandbox/reset`, { method: 'POST' });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.sandbox).toBe(identityCookie(answer.headers)!.id);
  });

  it('to /health sets no cookie', async () => {
    const answer = await request(`${server.url}/health`);
    expect(answer.status).toBe(200);
    expect(identityCookie(answer.headers)).toBeUndefined();
  });
});

describe('a request with a valid cookie', () => {
  it.each([
    ['one character', 'q'],
    ['128 characters', 'A'.repeat(64) + '_'.repeat(32) + '-'.repeat(16) + '9'.repeat(16)],
    ['every allowed kind', 'aZ09_-'],
  ])('(%s) gets no Set-Cookie and keeps its sandbox', async (_label, id) => {
    expect(id.length).toBeLessThanOrEqual(128);
    const client = sandboxClient(server.api, id);
    const created = await client.post('/todos', newRecord('todos'));
    expect(created.status, created.text).toBe(200);
    expect(identityCookie(created.headers)).toBeUndefined();
    const read = await client.get(`/todos/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(identityCookie(read.headers)).toBeUndefined();
    const reset = await client.post('/sandbox/reset');
    expect(reset.status).toBe(200);
    expect(reset.body.sandbox).toBe(id);
  });

  it('is case-sensitive: ids differing in case are different sandboxes', async () => {
    const base = `Case${crypto.randomUUID().slice(0, 8)}`;
    const upper = sandboxClient(server.api, base.toUpperCase());
    const lower = sandboxClient(server.api, base.toLowerCase());
    const created = await upper.post('/todos', newRecord('todos'));
    expect(created.status).toBe(200);
    expect((await lower.get(`/todos/${created.body.id}`)).status).toBe(404);
  });
});

describe('an invalid cookie value', () => {
  const long = 'b'.repeat(129);
  // Raw cookie header values after `svc_identity=`.
  const invalid: Array<[string, string]> = [
    ['129 characters', long],
    ['a space', 'a b'],
    ['an encoded space', 'a%20b'],
    ['a non-ASCII letter (UTF-8, percent-encoded)', '%C3%A9'],
    ['a semicolon (percent-encoded)', 'a%3Bb'],
    ['a quoted value with a semicolon', '"a;b"'],
    ['a dot', 'a.b'],
    ['a slash', 'a/b'],
    ['empty', ''],
  ];

  it.each(invalid)('(%s) is 400 INVALID_IDENTITY on a read', async (_label, value) => {
    const answer = await request(`${server.api}/users/1`, { headers: { cookie: `svc_identity=${value}` } });
    expectProblem(answer, 400, 'INVALID_IDENTITY');
    expect(identityCookie(answer.headers)).toBeUndefined();
  });

  it.each(invalid)('(%s) is 400 INVALID_IDENTITY on writes and writes nothing', async (_label, value) => {
    const headers = { cookie: `svc_identity=${value}`, 'content-type': 'application/json' };
    const post = await request(`${server.api}/users`, { method: 'POST', headers, body: JSON.stringify(newRecord('users')) });
    expectProblem(post, 400, 'INVALID_IDENTITY');
    const patch = await request(`${server.api}/users/2`, { method: 'PATCH', headers, body: JSON.stringify({ name: 'Hijacked' }) });
    expectProblem(patch, 400, 'INVALID_IDENTITY');
    const del = await request(`${server.api}/users/3`, { method: 'DELETE', headers: { cookie: headers.cookie } });
    expectProblem(del, 400, 'INVALID_IDENTITY');
    const reset = await request(`${server.api}/sandbox/reset`, { method: 'POST', headers: { cookie: headers.cookie } });
    expectProblem(reset, 400, 'INVALID_IDENTITY');

    // Nothing landed in a sandbox the value might have been cut, decoded or sanitised to.
    const fresh = sandboxClient(server.api);
    const baseline = (await fresh.get('/users/2')).body;
    const candidates = new Set([value.slice(0, 128), 'a', 'b', 'ab', 'a_b', 'a-b', 'a%20b', 'aSb']);
    for (const id of candidates) {
      if (!/^[A-Za-z0-9_-]{1,128}$/.test(id)) continue;
      const client = sandboxClient(server.api, id);
      expect(await totalOf(client, 'users'), id).toBe(BASELINE.users);
      expect((await client.get('/users/2')).body, id).toEqual(baseline);
      expect((await client.get('/users/3')).status, id).toBe(200);
    }
  });

  it('is not replaced by a freshly minted id (the client asked for a specific sandbox)', async () => {
    const answer = await request(`${server.api}/users`, { headers: { cookie: 'svc_identity=bad value!' } });
    expectProblem(answer, 400, 'INVALID_IDENTITY');
    expect(answer.headers.getSetCookie()).toEqual([]);
  });
});
