import { describe, expect, it } from 'vitest';
import { sandboxClient, useServer } from './helpers/server.js';
import { configuredServers } from './helpers/configured.js';
import { expectProblem, request } from './helpers/problems.js';
import { bearer, decode, expect401, login, post, unique, withToken, type TokenPair } from './helpers/auth.js';

const server = useServer();
const refresh = (token: string, headers: Record<string, string> = {}, body: Record<string, unknown> = {}) =>
  post(server.api, '/auth/refresh', { refresh_token: token, ...body }, headers);

/** Refreshes and returns the new pair; fails the test unless 200. */
async function next(token: string): Promise<TokenPair> {
  const answer = await refresh(token);
  expect(answer.status, answer.text).toBe(200);
  return answer.body;
}

describe('refresh', () => {
  it('gives a new pair in the same family, for the same user and sandbox', async () => {
    const sandbox = `ref-${unique()}`;
    const first = await login(server.api, 'editor', { sandbox });
    const second = await next(first.refresh_token);
    expect(second).toMatchObject({ token_type: 'Bearer', expires_in: 900, refresh_expires_in: 604_800, role: 'editor', scopes: ['*:read', '*:write'] });
    expect(second.user).toMatchObject({ id: 'persona:editor' });
    const [a, b] = [decode(first.refresh_token), decode(second.refresh_token)];
    expect(b.header).toEqual({ alg: 'HS256', typ: 'rt+jwt' });
    expect(decode(second.access_token).header).toEqual({ alg: 'HS256', typ: 'at+jwt' });
    expect(b.claims).toMatchObject({ iss: 'mockapi', sub: 'persona:editor', sid: sandbox, role: 'editor', fam: a.claims.fam });
    expect(b.claims.jti).not.toBe(a.claims.jti);
    expect(decode(second.access_token).claims.fam).toBe(a.claims.fam);
    expect((await withToken(server.api, 'GET', '/auth/me', second.access_token)).body.user.id).toBe('persona:editor');
  });

  it('takes token_ttl and X-Simulate-JWT-Expiry like login', async () => {
    const first = await login(server.api, 'viewer');
    const short = (await refresh(first.refresh_token, {}, { token_ttl: 30 })).body;
    expect(short.expires_in).toBe(30);
    const zero = (await refresh(short.refresh_token, { 'x-simulate-jwt-expiry': '0' })).body;
    expect(zero.expires_in).toBe(0);
    expect401(await withToken(server.api, 'GET', '/posts/1', zero.access_token), 'TOKEN_EXPIRED', true);
  });

  it('refuses a missing, garbage, access or expired token', async () => {
    expectProblem(await post(server.api, '/auth/refresh', {}), 422, 'VALIDATION_FAILED');
    expectProblem(await post(server.api, '/auth/refresh', { refresh_token: 12 }), 422, 'VALIDATION_FAILED');
    expect401(await refresh('garbage'), 'INVALID_TOKEN', true);
    const pair = await login(server.api, 'viewer');
    expect401(await refresh(pair.access_token), 'INVALID_TOKEN', true);
    expect401(await refresh(pair.refresh_token, { 'x-simulate-clock-skew': '-5m' }), 'TOKEN_NOT_YET_VALID', true);
  });
});

describe('reuse detection', () => {
  it('a consumed refresh token presented again is 401 REFRESH_TOKEN_REUSED and revokes the family: its newest token fails too', async () => {
    const first = await login(server.api, 'admin');
    const second = await next(first.refresh_token);
    const third = await next(second.refresh_token);

    const reused = await refresh(second.refresh_token);
    expect401(reused, 'REFRESH_TOKEN_REUSED', true);
    expect401(await refresh(third.refresh_token), 'INVALID_TOKEN', true);
    // The revoked family stays revoked: its first token is refused too.
    expect((await refresh(first.refresh_token)).status).toBe(401);
  });

  it('an expired access token sent along (as client interceptors do) does not stop a refresh', async () => {
    const pair = await login(server.api, 'editor', { headers: { 'x-simulate-jwt-expiry': '0' } });
    expect401(await withToken(server.api, 'GET', '/posts/1', pair.access_token), 'TOKEN_EXPIRED', true);
    const renewed = await post(server.api, '/auth/refresh', { refresh_token: pair.refresh_token }, bearer(pair.access_token));
    expect(renewed.status, renewed.text).toBe(200);
    expect(decode(renewed.body.access_token).claims.sid).toBe(decode(pair.access_token).claims.sid);
  });

  it('revokes only that family: another login of the same user goes on', async () => {
    const sandbox = `fam-${unique()}`;
    const a = await login(server.api, 'admin', { sandbox });
    const b = await login(server.api, 'admin', { sandbox });
    expect(decode(a.refresh_token).claims.fam).not.toBe(decode(b.refresh_token).claims.fam);
    const a2 = await next(a.refresh_token);
    expect401(await refresh(a.refresh_token), 'REFRESH_TOKEN_REUSED', true);
    expect401(await refresh(a2.refresh_token), 'INVALID_TOKEN', true);
    await next(b.refresh_token);
  });

  it('two refreshes racing with one token: one wins, the other is reuse, and the family is revoked', async () => {
    const pair = await login(server.api, 'viewer');
    const answers = await Promise.all([refresh(pair.refresh_token), refresh(pair.refresh_token), refresh(pair.refresh_token)]);
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses, answers.map((a) => a.text).join('\n')).toEqual([200, 401, 401]);
    // Every loser presented a consumed token: reuse, even once the family is revoked.
    const codes = answers.filter((a) => a.status === 401).map((a) => a.body.code);
    expect(codes).toEqual(['REFRESH_TOKEN_REUSED', 'REFRESH_TOKEN_REUSED']);
    const winner = answers.find((a) => a.status === 200)!.body as TokenPair;
    expect401(await refresh(winner.refresh_token), 'INVALID_TOKEN', true);
  });
});

describe('configured lifetimes', () => {
  const servers = configuredServers();

  it('auth.accessTtl and auth.refreshTtl set expires_in and refresh_expires_in; an expired refresh token is 401 TOKEN_EXPIRED', async () => {
    const short = await servers.serve({ auth: { accessTtl: '2m', refreshTtl: '4m' } });
    const pair = await login(short.api, 'viewer');
    expect(pair).toMatchObject({ expires_in: 120, refresh_expires_in: 240 });
    const at = (skew: string) => post(short.api, '/auth/refresh', { refresh_token: pair.refresh_token }, { 'x-simulate-clock-skew': skew });
    expect401(await withToken(short.api, 'GET', '/posts/1', pair.access_token, undefined, { 'x-simulate-clock-skew': '+3m' }), 'TOKEN_EXPIRED', true);
    expect401(await at('+5m'), 'TOKEN_EXPIRED', true);
    // Refused as expired, it was not consumed: in time, it still works.
    expect((await at('+3m')).status).toBe(200);
  });
});

describe('logout', () => {
  it('with the refresh token in the body revokes its family', async () => {
    const pair = await login(server.api, 'editor');
    const second = await next(pair.refresh_token);
    const out = await post(server.api, '/auth/logout', { refresh_token: second.refresh_token });
    expect(out.status, out.text).toBe(200);
    expect(out.body.revokedFamilies).toBe(1);
    expect401(await refresh(second.refresh_token), 'INVALID_TOKEN', true);
  });

  it('with only a Bearer access token revokes its family too', async () => {
    const pair = await login(server.api, 'editor');
    const out = await withToken(server.api, 'POST', '/auth/logout', pair.access_token);
    expect(out.status, out.text).toBe(200);
    expect(out.body.revokedFamilies).toBe(1);
    expect401(await refresh(pair.refresh_token), 'INVALID_TOKEN', true);
  });

  it('with Content-Type: application/json and no body (as many HTTP clients send it) is a logout, not 400', async () => {
    const client = sandboxClient(server.api, `out-${unique()}`);
    const pair = await login(server.api, 'viewer', { sandbox: client.id });
    const out = await request(`${server.api}/auth/logout`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${pair.access_token}` } });
    expect(out.status, out.text).toBe(200);
    expect(out.body.revokedFamilies).toBe(1);
    expect401(await refresh(pair.refresh_token), 'INVALID_TOKEN', true);
    expect401(await client.get('/auth/me'), 'UNAUTHORIZED', false);
    // A body that is there must still be JSON.
    expectProblem(await request(`${server.api}/auth/logout`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' }), 400, 'INVALID_JSON');
  });

  it('without any token answers 200 and revokes nothing; a bad refresh token in the body is 401', async () => {
    const out = await request(`${server.api}/auth/logout`, { method: 'POST', headers: { cookie: `svc_identity=out-${unique()}` } });
    expect(out.status, out.text).toBe(200);
    expect(out.body.revokedFamilies).toBe(0);
    expect401(await post(server.api, '/auth/logout', { refresh_token: 'garbage' }), 'INVALID_TOKEN', true);
  });
});

describe('the cookie session', () => {
  it('GET /auth/me answers with only the cookie after login, and 401 after logout', async () => {
    const client = sandboxClient(server.api, `sess-${unique()}`);
    expect401(await client.get('/auth/me'), 'UNAUTHORIZED', false);
    const pair = await login(server.api, 'viewer', { sandbox: client.id });
    const me = await client.get('/auth/me');
    expect(me.status, me.text).toBe(200);
    expect(me.body).toEqual({ user: pair.user, role: 'viewer', scopes: ['*:read'] });

    const out = await client.post('/auth/logout');
    expect(out.status, out.text).toBe(200);
    expect401(await client.get('/auth/me'), 'UNAUTHORIZED', false);
  });

  it('a login without a cookie mints one, and that cookie is the session', async () => {
    const answer = await post(server.api, '/auth/login', { username: 'admin', password: 'password' });
    expect(answer.status).toBe(200);
    const cookie = answer.headers.getSetCookie().find((c) => c.startsWith('svc_identity='));
    expect(cookie).toBeDefined();
    const id = cookie!.split(';')[0].slice('svc_identity='.length);
    expect(decode(answer.body.access_token).claims.sid).toBe(id);
    expect((await sandboxClient(server.api, id).get('/auth/me')).body.user.id).toBe('persona:admin');
  });

  it('the session belongs to its sandbox: another cookie is not logged in', async () => {
    const sandbox = `sess-${unique()}`;
    await login(server.api, 'admin', { sandbox });
    expect401(await sandboxClient(server.api, `${sandbox}-other`).get('/auth/me'), 'UNAUTHORIZED', false);
  });

  it('a sandbox reset keeps the refresh families and the cookie session', async () => {
    const client = sandboxClient(server.api, `keep-${unique()}`);
    const pair = await login(server.api, 'editor', { sandbox: client.id });
    expect((await client.post('/sandbox/reset')).status).toBe(200);
    expect((await client.get('/auth/me')).status).toBe(200);
    await next(pair.refresh_token);
  });
});
