import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { base64url, generateKeyPair, jwtVerify, SignJWT } from 'jose';
import { sandboxClient } from './helpers/server.js';
import { configuredServers } from './helpers/configured.js';
import { expectProblem, newRecord, request } from './helpers/problems.js';
import { bearer, decode, expect401, login, post, unique, useConfiguredServer, withToken } from './helpers/auth.js';

// A known secret, so the tests can sign tokens that differ from a real one in one way only.
const secret = 'auth-tokens-test-secret-0123456789abcdef';
const key = new TextEncoder().encode(secret);
const server = useConfiguredServer({ auth: { secret } });

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Claims as the server would put them in a viewer's access token of `sid`. */
const viewerClaims = (sid: string): Record<string, unknown> => ({
  iss: 'mockapi',
  sub: 'persona:viewer',
  sid,
  role: 'viewer',
  scope: '*:read',
  jti: crypto.randomUUID(),
  fam: `fam_${crypto.randomUUID()}`,
  iat: nowSeconds(),
  exp: nowSeconds() + 600,
});

const sign = (claims: Record<string, unknown>, header: Record<string, unknown> = { alg: 'HS256', typ: 'at+jwt' }, with_ = key) =>
  new SignJWT(claims).setProtectedHeader(header as { alg: string }).sign(with_);

const encodePart = (value: unknown) => base64url.encode(JSON.stringify(value));
/** A JWS built by hand: any header, an HMAC-SHA256 signature over it (or none). */
function handMade(header: Record<string, unknown>, claims: Record<string, unknown>, signature: 'hmac' | 'none' = 'hmac'): string {
  const input = `${encodePart(header)}.${encodePart(claims)}`;
  return `${input}.${signature === 'none' ? '' : createHmac('sha256', secret).update(input).digest('base64url')}`;
}

describe('login answers and token contents', () => {
  it('answers a token pair whose header and claims are the contract ones', async () => {
    const sandbox = `tok-${unique()}`;
    const before = nowSeconds();
    const answer = await login(server.api, 'admin', { sandbox });
    expect(answer).toMatchObject({ token_type: 'Bearer', expires_in: 900, refresh_expires_in: 604_800, role: 'admin', scopes: ['*'] });
    expect(answer.user).toEqual({ id: 'persona:admin', username: 'admin', name: 'Admin', email: 'admin@mockapi.local' });

    const access = decode(answer.access_token);
    const refresh = decode(answer.refresh_token);
    expect(access.header).toEqual({ alg: 'HS256', typ: 'at+jwt' });
    expect(refresh.header).toEqual({ alg: 'HS256', typ: 'rt+jwt' });
    for (const { claims } of [access, refresh]) {
      expect(claims).toMatchObject({ iss: 'mockapi', sub: 'persona:admin', sid: sandbox, role: 'admin', scope: '*' });
      expect(claims.jti).toMatch(/^\S{16,}$/);
      expect(Number.isInteger(claims.iat) && Number.isInteger(claims.exp)).toBe(true);
      expect(claims.iat).toBeGreaterThanOrEqual(before);
      expect(claims.iat).toBeLessThanOrEqual(nowSeconds());
      expect(claims.fam).toMatch(/\S/);
    }
    expect(access.claims.exp - access.claims.iat).toBe(answer.expires_in);
    expect(refresh.claims.exp - refresh.claims.iat).toBe(answer.refresh_expires_in);
    expect(refresh.claims.fam).toBe(access.claims.fam);
    expect(refresh.claims.jti).not.toBe(access.claims.jti);

    // Signed with auth.secret, HS256.
    const verified = await jwtVerify(answer.access_token, key, { algorithms: ['HS256'], typ: 'at+jwt', issuer: 'mockapi' });
    expect(verified.payload.sid).toBe(sandbox);
  });

  it('logs in by email too, and a baseline user as editor', async () => {
    const sandbox = `tok-${unique()}`;
    const byEmail = await post(server.api, '/auth/login', { email: 'viewer@mockapi.local', password: 'password' }, { cookie: `svc_identity=${sandbox}` });
    expect(byEmail.status, byEmail.text).toBe(200);
    expect(byEmail.body).toMatchObject({ role: 'viewer', scopes: ['*:read'] });
    expect(decode(byEmail.body.access_token).claims.scope).toBe('*:read');

    const first = (await sandboxClient(server.api, sandbox).get('/users/1')).body;
    const user = await login(server.api, first.email, { sandbox });
    expect(user.role).toBe('editor');
    expect(user.user).toMatchObject({ id: 1, username: first.username });
    expect(decode(user.access_token).claims).toMatchObject({ sub: '1', role: 'editor', scope: '*:read *:write' });
  });

  it('refuses wrong credentials with 401 INVALID_CREDENTIALS and a plain Bearer challenge', async () => {
    expect401(await post(server.api, '/auth/login', { username: 'admin', password: 'nope' }), 'INVALID_CREDENTIALS', false);
    expect401(await post(server.api, '/auth/login', { username: 'nobody-here', password: 'password' }), 'INVALID_CREDENTIALS', false);
    expect401(await post(server.api, '/auth/login', { email: 'nobody@mockapi.local', password: 'password' }), 'INVALID_CREDENTIALS', false);
    expectProblem(await post(server.api, '/auth/login', { username: 'admin' }), 422, 'VALIDATION_FAILED');
    expectProblem(await post(server.api, '/auth/login', { password: 'password' }), 422, 'VALIDATION_FAILED');
    expectProblem(await post(server.api, '/auth/login', { username: 'admin', password: 7 }), 422, 'VALIDATION_FAILED');
  });
});

describe('lifetimes', () => {
  it('token_ttl shortens the access token (seconds or a duration); a bad one is 422', async () => {
    const sixty = await login(server.api, 'editor', { body: { token_ttl: 60 } });
    expect(sixty.expires_in).toBe(60);
    const claims = decode(sixty.access_token).claims;
    expect(claims.exp - claims.iat).toBe(60);
    expect(sixty.refresh_expires_in).toBe(604_800);

    const five = await login(server.api, 'editor', { body: { token_ttl: '5m' } });
    expect(five.expires_in).toBe(300);

    expectProblem(await post(server.api, '/auth/login', { username: 'editor', password: 'password', token_ttl: 'soon' }), 422, 'VALIDATION_FAILED');
  });

  it('X-Simulate-JWT-Expiry: 0 gives a token that fails at once with 401 TOKEN_EXPIRED', async () => {
    const answer = await login(server.api, 'admin', { headers: { 'x-simulate-jwt-expiry': '0' } });
    expect(answer.expires_in).toBe(0);
    const claims = decode(answer.access_token).claims;
    expect(claims.exp).toBe(claims.iat);
    expect401(await withToken(server.api, 'GET', '/posts/1', answer.access_token), 'TOKEN_EXPIRED', true);
    expect401(await withToken(server.api, 'GET', '/auth/me', answer.access_token), 'TOKEN_EXPIRED', true);
    // The refresh token is not shortened: it still gets a working pair.
    const refreshed = await post(server.api, '/auth/refresh', { refresh_token: answer.refresh_token });
    expect(refreshed.status, refreshed.text).toBe(200);
    expect((await withToken(server.api, 'GET', '/posts/1', refreshed.body.access_token)).status).toBe(200);
  });

  it('X-Simulate-JWT-Expiry takes durations; the shorter of it and token_ttl wins; a bad value is 400', async () => {
    expect((await login(server.api, 'admin', { headers: { 'x-simulate-jwt-expiry': '5s' } })).expires_in).toBe(5);
    expect((await login(server.api, 'admin', { headers: { 'x-simulate-jwt-expiry': '1m' } })).expires_in).toBe(60);
    expect((await login(server.api, 'admin', { headers: { 'x-simulate-jwt-expiry': '1m' }, body: { token_ttl: 10 } })).expires_in).toBe(10);
    expectProblem(await post(server.api, '/auth/login', { username: 'admin', password: 'password' }, { 'x-simulate-jwt-expiry': 'never' }), 400, 'INVALID_SIMULATION');
  });

  it('a token is expired once the request clock passes exp (X-Simulate-Clock-Skew), even when its verification is cached', async () => {
    const answer = await login(server.api, 'viewer');
    expect((await withToken(server.api, 'GET', '/posts/1', answer.access_token)).status).toBe(200);
    const short = await login(server.api, 'viewer', { body: { token_ttl: '4m' } });
    expect((await withToken(server.api, 'GET', '/posts/1', short.access_token)).status).toBe(200);
    expect((await withToken(server.api, 'GET', '/posts/1', short.access_token, undefined, { 'x-simulate-clock-skew': '+3m' })).status).toBe(200);
    expect401(await withToken(server.api, 'GET', '/posts/1', short.access_token, undefined, { 'x-simulate-clock-skew': '+5m' }), 'TOKEN_EXPIRED', true);
    expect((await withToken(server.api, 'GET', '/posts/1', short.access_token)).status).toBe(200);
    expect((await withToken(server.api, 'GET', '/posts/1', answer.access_token)).status).toBe(200);
  });

  it('a clock skew of +120 s at login makes the token not yet valid without tolerance', async () => {
    const answer = await login(server.api, 'viewer', { headers: { 'x-simulate-clock-skew': '+120s' } });
    const claims = decode(answer.access_token).claims;
    expect(claims.iat).toBeGreaterThanOrEqual(nowSeconds() + 118);
    expect401(await withToken(server.api, 'GET', '/posts', answer.access_token), 'TOKEN_NOT_YET_VALID', true);
    // Seen from the same skewed clock, it is fine.
    expect((await withToken(server.api, 'GET', '/posts', answer.access_token, undefined, { 'x-simulate-clock-skew': '+120s' })).status).toBe(200);
  });

  it('X-Simulate-Clock-Skew takes signed durations and bare seconds', async () => {
    const pair = await login(server.api, 'viewer', { body: { token_ttl: 100 } });
    for (const [skew, status] of [['-60s', 401], ['90', 200], ['+1m', 200], ['1.5m', 200], ['+95s', 200], ['+100s', 401], ['500ms', 200], ['+5m', 401]] as const) {
      const answer = await withToken(server.api, 'GET', '/posts/1', pair.access_token, undefined, { 'x-simulate-clock-skew': skew });
      expect(answer.status, `${skew}: ${answer.text}`).toBe(status);
    }
  });

  it('refuses a malformed X-Simulate-Clock-Skew with 400', async () => {
    // At most five minutes either way (contract section 7): a skew cannot revive an expired token.
    for (const skew of ['soon', '+2d', '++1s', '', '+301s', '-6m', '+1h']) {
      expectProblem(await request(`${server.api}/posts/1`, { headers: { 'x-simulate-clock-skew': skew } }), 400, 'INVALID_SIMULATION');
    }
  });
});

describe('forged and broken tokens: 401, never 500', () => {
  // Each variant differs from a token the server would accept in one way.
  const sid = `forge-${unique()}`;
  const variants: [name: string, make: () => Promise<string>, code: string][] = [
    ['alg none', async () => handMade({ alg: 'none', typ: 'at+jwt' }, viewerClaims(sid), 'none'), 'INVALID_TOKEN'],
    ['alg none with a signature', async () => handMade({ alg: 'none', typ: 'at+jwt' }, viewerClaims(sid)), 'INVALID_TOKEN'],
    ['HS512 with the right secret', () => sign(viewerClaims(sid), { alg: 'HS512', typ: 'at+jwt' }), 'INVALID_TOKEN'],
    ['HS384 with the right secret', () => sign(viewerClaims(sid), { alg: 'HS384', typ: 'at+jwt' }), 'INVALID_TOKEN'],
    ['an RS256 header over an HMAC with the secret (key confusion)', async () => handMade({ alg: 'RS256', typ: 'at+jwt' }, viewerClaims(sid)), 'INVALID_TOKEN'],
    [
      'a real RS256 token',
      async () => new SignJWT(viewerClaims(sid)).setProtectedHeader({ alg: 'RS256', typ: 'at+jwt' }).sign((await generateKeyPair('RS256')).privateKey),
      'INVALID_TOKEN',
    ],
    [
      'a tampered payload (viewer made admin)',
      async () => {
        const token = await sign(viewerClaims(sid));
        const [header, , signature] = token.split('.');
        return `${header}.${encodePart({ ...decode(token).claims, role: 'admin', scope: '*' })}.${signature}`;
      },
      'INVALID_TOKEN',
    ],
    ['the wrong secret', () => sign(viewerClaims(sid), undefined, new TextEncoder().encode('another-secret-entirely-0123456789')), 'INVALID_TOKEN'],
    ['typ JWT', () => sign(viewerClaims(sid), { alg: 'HS256', typ: 'JWT' }), 'INVALID_TOKEN'],
    ['no typ', () => sign(viewerClaims(sid), { alg: 'HS256' }), 'INVALID_TOKEN'],
    ['typ rt+jwt (a refresh token as access)', () => sign(viewerClaims(sid), { alg: 'HS256', typ: 'rt+jwt' }), 'INVALID_TOKEN'],
    ['no sid', () => sign({ ...viewerClaims(sid), sid: undefined }), 'INVALID_TOKEN'],
    ['a sid that is no sandbox id', () => sign({ ...viewerClaims(sid), sid: 'no such/sandbox' }), 'INVALID_TOKEN'],
    ['no sub', () => sign({ ...viewerClaims(sid), sub: undefined }), 'INVALID_TOKEN'],
    ['a sub that names no account', () => sign({ ...viewerClaims(sid), sub: 'persona:nobody' }), 'INVALID_TOKEN'],
    ['a sub that names no user', () => sign({ ...viewerClaims(sid), sub: '99999' }), 'INVALID_TOKEN'],
    ['another issuer', () => sign({ ...viewerClaims(sid), iss: 'someone-else' }), 'INVALID_TOKEN'],
    ['a role that is none', () => sign({ ...viewerClaims(sid), role: 'root' }), 'INVALID_TOKEN'],
    ['no exp', () => sign({ ...viewerClaims(sid), exp: undefined }), 'INVALID_TOKEN'],
    ['a string exp', () => sign({ ...viewerClaims(sid), exp: 'later' }), 'INVALID_TOKEN'],
    ['a payload that is an array', async () => handMade({ alg: 'HS256', typ: 'at+jwt' }, [1, 2] as unknown as Record<string, unknown>), 'INVALID_TOKEN'],
    ['garbage', async () => 'garbage', 'INVALID_TOKEN'],
    ['three dots of nothing', async () => '..', 'INVALID_TOKEN'],
    ['base64 of nothing JSON', async () => 'e30.e30.e30', 'INVALID_TOKEN'],
    ['a token 9 KB long', async () => `${'a'.repeat(4_500)}.${'b'.repeat(4_500)}.c`, 'INVALID_TOKEN'],
    ['expired an hour ago', () => sign({ ...viewerClaims(sid), iat: nowSeconds() - 7200, exp: nowSeconds() - 3600 }), 'TOKEN_EXPIRED'],
    ['issued an hour ahead', () => sign({ ...viewerClaims(sid), iat: nowSeconds() + 3600, exp: nowSeconds() + 7200 }), 'TOKEN_NOT_YET_VALID'],
    ['not before an hour ahead', () => sign({ ...viewerClaims(sid), nbf: nowSeconds() + 3600 }), 'TOKEN_NOT_YET_VALID'],
  ];

  it('accepts the unforged control token (so each variant fails for its one difference)', async () => {
    const answer = await withToken(server.api, 'GET', '/posts/1', await sign(viewerClaims(sid)));
    expect(answer.status, answer.text).toBe(200);
  });

  it('accepts the typ spelled as RFC 9068 allows (application/at+jwt, any case)', async () => {
    for (const typ of ['application/at+jwt', 'AT+JWT']) {
      const answer = await withToken(server.api, 'GET', '/posts/1', await sign(viewerClaims(sid), { alg: 'HS256', typ }));
      expect(answer.status, `${typ}: ${answer.text}`).toBe(200);
    }
  });

  it.each(variants.map(([name, make, code]) => [name, code, make] as const))('%s → 401 %s on reads, writes, the profile and the open endpoints', async (_, code, make) => {
    const token = await make();
    for (const [method, path, body] of [
      ['GET', '/posts/1', undefined],
      ['GET', '/posts?limit=2', undefined],
      ['POST', '/posts', newRecord('posts')],
      ['DELETE', '/posts/1', undefined],
      ['GET', '/auth/me', undefined],
      ['POST', '/sandbox/reset', undefined],
      ['POST', '/auth/login', { username: 'admin', password: 'password' }],
      ['GET', '/auth/roles', undefined],
    ] as const) {
      const answer = await withToken(server.api, method, path, token, body);
      expect401(answer, code, true);
    }
  });

  it('an empty Bearer is 401 INVALID_TOKEN (with or without a space)', async () => {
    for (const authorization of ['Bearer', 'Bearer ', 'bearer    ']) {
      const answer = await request(`${server.api}/posts/1`, { headers: { authorization } });
      expect401(answer, 'INVALID_TOKEN', true);
    }
  });

  it('a refresh token used as an access token is 401 INVALID_TOKEN', async () => {
    const pair = await login(server.api, 'admin');
    expect401(await withToken(server.api, 'GET', '/posts/1', pair.refresh_token), 'INVALID_TOKEN', true);
    // ... and an access token is no refresh token.
    expect401(await post(server.api, '/auth/refresh', { refresh_token: pair.access_token }), 'INVALID_TOKEN', true);
  });

  it('a token of a user deleted in its sandbox is 401 INVALID_TOKEN there (and the user lives on elsewhere)', async () => {
    const sandbox = `del-${unique()}`;
    const owner = sandboxClient(server.api, sandbox);
    const target = (await owner.get('/users/3')).body;
    const pair = await login(server.api, target.username, { sandbox });
    expect((await withToken(server.api, 'GET', '/auth/me', pair.access_token)).status).toBe(200);
    expect((await owner.delete('/users/3')).status).toBe(200);
    expect401(await withToken(server.api, 'GET', '/auth/me', pair.access_token), 'INVALID_TOKEN', true);
    expect401(await withToken(server.api, 'GET', '/posts/1', pair.access_token), 'INVALID_TOKEN', true);
    // Its refresh token cannot bring it back either.
    expect401(await post(server.api, '/auth/refresh', { refresh_token: pair.refresh_token }), 'INVALID_TOKEN', true);
    // The user is still in the baseline for every other sandbox.
    await login(server.api, target.username, { sandbox: `other-${unique()}` });
  });

  it('a request without a token stays as it was (no Bearer: Basic is no token)', async () => {
    const answer = await request(`${server.api}/posts/1`, { headers: { authorization: 'Basic YWRtaW46cGFzc3dvcmQ=' } });
    expect(answer.status).toBe(200);
  });
});

describe('the sandbox of a token', () => {
  it("is the token's sid, over a cookie or an X-Sandbox header naming another sandbox", async () => {
    const mine = `sid-${unique()}`;
    const other = sandboxClient(server.api, `sid-other-${unique()}`);
    const pair = await login(server.api, 'admin', { sandbox: mine });
    const created = await withToken(server.api, 'POST', '/posts', pair.access_token, newRecord('posts'), { cookie: `svc_identity=${other.id}` });
    expect(created.status, created.text).toBe(200);
    expect(created.headers.getSetCookie()).toEqual([]);

    const viaCookie = await withToken(server.api, 'GET', `/posts/${created.body.id}`, pair.access_token, undefined, { cookie: `svc_identity=${other.id}` });
    expect(viaCookie.status).toBe(200);
    const viaHeader = await withToken(server.api, 'GET', `/posts/${created.body.id}`, pair.access_token, undefined, { 'x-sandbox': other.id });
    expect(viaHeader.status).toBe(200);
    expect((await other.get(`/posts/${created.body.id}`)).status).toBe(404);
    expect((await sandboxClient(server.api, mine).get(`/posts/${created.body.id}`)).status).toBe(200);

    const info = await withToken(server.api, 'GET', '/sandbox', pair.access_token, undefined, { cookie: `svc_identity=${other.id}` });
    expect(info.status, info.text).toBe(200);
    expect(JSON.stringify(info.body)).toContain(mine);
  });

  it('a token never mints a cookie', async () => {
    const pair = await login(server.api, 'viewer');
    const answer = await withToken(server.api, 'GET', '/posts?limit=1', pair.access_token);
    expect(answer.status).toBe(200);
    expect(answer.headers.getSetCookie()).toEqual([]);
  });

  it('a token with a good signature but a malformed cookie beside it still works (the cookie is not read)', async () => {
    const pair = await login(server.api, 'viewer');
    const answer = await withToken(server.api, 'GET', '/posts/1', pair.access_token, undefined, { cookie: 'svc_identity=not valid!' });
    expect(answer.status, answer.text).toBe(200);
  });
});

describe('every 401 carries WWW-Authenticate: Bearer', () => {
  it('on login, refresh, me and reset-password failures', async () => {
    expect401(await post(server.api, '/auth/login', { username: 'admin', password: 'x' }), 'INVALID_CREDENTIALS', false);
    expect401(await post(server.api, '/auth/refresh', { refresh_token: 'garbage' }), 'INVALID_TOKEN', true);
    expect401(await request(`${server.api}/auth/me`, { headers: bearer('garbage') }), 'INVALID_TOKEN', true);
    expect401(await request(`${server.api}/auth/me`, { headers: { cookie: `svc_identity=nobody-${unique()}` } }), 'UNAUTHORIZED', false);
  });
});

describe('servers of their own', () => {
  const servers = configuredServers();

  it('auth.clockTolerance: 180 accepts a token issued 120 s ahead (and not 240 s ahead)', async () => {
    const tolerant = await servers.serve({ auth: { clockTolerance: 180 } });
    const ahead = await login(tolerant.api, 'viewer', { headers: { 'x-simulate-clock-skew': '+120s' } });
    expect((await withToken(tolerant.api, 'GET', '/posts', ahead.access_token)).status).toBe(200);
    const further = await login(tolerant.api, 'viewer', { headers: { 'x-simulate-clock-skew': '+240s' } });
    expect401(await withToken(tolerant.api, 'GET', '/posts', further.access_token), 'TOKEN_NOT_YET_VALID', true);
    // The tolerance also keeps an expired token alive for its length, and no longer.
    const short = await login(tolerant.api, 'viewer', { body: { token_ttl: 60 } });
    expect((await withToken(tolerant.api, 'GET', '/posts/1', short.access_token, undefined, { 'x-simulate-clock-skew': '+200s' })).status).toBe(200);
    expect401(await withToken(tolerant.api, 'GET', '/posts/1', short.access_token, undefined, { 'x-simulate-clock-skew': '+260s' }), 'TOKEN_EXPIRED', true);
  });

  it('tokens survive a restart on the same file (the generated secret is kept there), not on another file', async () => {
    const first = await servers.serve({});
    const pair = await login(first.api, 'admin', { sandbox: `restart-${unique()}` });
    await first.stop();
    const again = await servers.serve({}, first.db);
    expect((await withToken(again.api, 'GET', '/auth/me', pair.access_token)).status).toBe(200);
    const refreshed = await post(again.api, '/auth/refresh', { refresh_token: pair.refresh_token });
    expect(refreshed.status, refreshed.text).toBe(200);

    const elsewhere = await servers.serve({});
    expect401(await withToken(elsewhere.api, 'GET', '/posts/1', pair.access_token), 'INVALID_TOKEN', true);
  });

  it('auth.secret, when set, signs and verifies instead of the kept secret', async () => {
    const first = await servers.serve({});
    const kept = await login(first.api, 'admin');
    await first.stop();
    const configured = await servers.serve({ auth: { secret: 'a-configured-secret-for-this-test-only' } }, first.db);
    expect401(await withToken(configured.api, 'GET', '/posts/1', kept.access_token), 'INVALID_TOKEN', true);
    const fresh = await login(configured.api, 'admin');
    await jwtVerify(fresh.access_token, new TextEncoder().encode('a-configured-secret-for-this-test-only'), { algorithms: ['HS256'] });
    expect((await withToken(configured.api, 'GET', '/posts/1', fresh.access_token)).status).toBe(200);
  });
});
