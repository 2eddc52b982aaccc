import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decode, expect401, login, post, unique, withToken } from './helpers/auth.js';
import { expectProblem, newRecord, request } from './helpers/problems.js';
import { sandboxClient, startServer, useServer, type RunningServer } from './helpers/server.js';

/**
 * Issue 28's authorization defects, black-box: each decided once, in `auth/authorize.ts`, for
 * every door (REST, custom collections, custom routes, the mailbox, tokens).
 */

/** A server with `auth.required`, a few personas and custom routes, from an .mjs config. */
function requiredServer(): () => RunningServer {
  let server: RunningServer | undefined;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mockapi-authz-'));
    const config = `export default {
      auth: { required: true, personas: { reader: { role: 'viewer', scopes: 'posts:read' }, poster: { role: 'editor' }, stats: { role: 'viewer', scopes: 'stats:read' } } },
      routes: {
        'POST /side-effect': () => ({ done: true }),
        'GET /open': { public: true, handler: () => ({ open: true }) },
        'GET /stats': { scope: 'stats:read', handler: () => ({ stats: 1 }) },
        'GET /posts-with-comments': async (request, ctx) => (await ctx.collection('posts').list({ _embed: 'comments', limit: 1 })).data[0].comments.length,
      },
    };\n`;
    writeFileSync(join(dir, 'mockapi.config.mjs'), config);
    server = await startServer({ cwd: dir });
  });
  afterAll(async () => {
    await server?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });
  return () => server!;
}

const required = requiredServer();
const open = useServer();

describe('the mailbox (28.2)', () => {
  it('under auth.required: a guest is 401, *:read is 403, inbox:read (admin) reads it', async () => {
    const { api } = required();
    const sandbox = `mail-${unique()}`;
    const guest = sandboxClient(api, sandbox);
    expect((await post(api, '/auth/forgot-password', { email: 'abraham.fay@example.org' }, { cookie: `svc_identity=${sandbox}` })).status).toBe(200);
    expect401(await guest.get('/inbox/messages'), 'UNAUTHORIZED', false);
    const viewer = await login(api, 'viewer', { sandbox });
    const editor = await login(api, 'editor', { sandbox });
    expectProblem(await withToken(api, 'GET', '/inbox/messages', viewer.access_token), 403, 'FORBIDDEN');
    expectProblem(await withToken(api, 'GET', '/inbox/messages', editor.access_token), 403, 'FORBIDDEN');
    const admin = await login(api, 'admin', { sandbox });
    const inbox = await withToken(api, 'GET', '/inbox/messages', admin.access_token);
    expect(inbox.status, inbox.text).toBe(200);
    expect(inbox.body.data).toHaveLength(1);
  });

  it("a persona's password cannot be reset: its message carries no token", async () => {
    const { api } = open;
    const owner = sandboxClient(api, `mail-${unique()}`);
    expect((await owner.post('/auth/forgot-password', { email: 'admin@mockapi.local' })).status).toBe(200);
    const inbox = await owner.get('/inbox/messages');
    expect(inbox.status).toBe(200);
    expect(inbox.body.data[0].token).toBeNull();
    expect(inbox.body.data[0].to).toBe('admin@mockapi.local');
    // A user's message still carries one.
    expect((await owner.post('/auth/forgot-password', { email: 'abraham.fay@example.org' })).status).toBe(200);
    expect((await owner.get('/inbox/messages')).body.data[0].token).toEqual(expect.any(String));
  });

  it('a guest under auth.required is 401 on /custom collections, reads the baseline ones', async () => {
    const { api } = required();
    const sandbox = `custom-${unique()}`;
    const admin = await login(api, 'admin', { sandbox });
    expect((await withToken(api, 'POST', '/custom/notes', admin.access_token, { text: 'private' })).status).toBe(200);
    const guest = sandboxClient(api, sandbox);
    expect401(await guest.get('/custom'), 'UNAUTHORIZED', false);
    expect401(await guest.get('/custom/notes'), 'UNAUTHORIZED', false);
    expect401(await guest.get('/custom/notes/export'), 'UNAUTHORIZED', false);
    expect((await guest.get('/posts/1')).status).toBe(200);
  });
});

describe('PATCH /auth/me needs a token (28.5)', () => {
  it("the cookie's login authenticates GET /auth/me only", async () => {
    const { api } = required();
    const sandbox = `me-${unique()}`;
    await login(api, 'admin', { sandbox });
    const cookie = sandboxClient(api, sandbox);
    expect((await cookie.get('/auth/me')).status).toBe(200);
    expect401(await cookie.patch('/auth/me', { name: 'Mallory' }), 'UNAUTHORIZED', false);
    expect((await cookie.get('/auth/me')).body.user.name).toBe('Admin');
  });
});

describe('custom routes follow the role rules (28.6)', () => {
  it('a guest is 401 unless the route is declared public; a declared scope is needed by tokens', async () => {
    const { api } = required();
    const sandbox = `routes-${unique()}`;
    const guest = sandboxClient(api, sandbox);
    expect401(await guest.post('/side-effect', {}), 'UNAUTHORIZED', false);
    expect((await guest.get('/open')).body).toEqual({ open: true });
    expect401(await guest.get('/stats'), 'UNAUTHORIZED', false);
    const reader = await login(api, 'reader', { sandbox });
    expectProblem(await withToken(api, 'GET', '/stats', reader.access_token), 403, 'FORBIDDEN');
    const stats = await login(api, 'stats', { sandbox });
    expect((await withToken(api, 'GET', '/stats', stats.access_token)).body).toEqual({ stats: 1 });
    // viewer's *:read covers stats:read; a route that names no scope takes any token.
    const viewer = await login(api, 'viewer', { sandbox });
    expect((await withToken(api, 'GET', '/stats', viewer.access_token)).status).toBe(200);
    expect((await withToken(api, 'POST', '/side-effect', reader.access_token, {})).status).toBe(200);
  });

  it("ctx.collection(...).list({_embed}) checks the embedded collection's scope, as REST does", async () => {
    const { api } = required();
    const sandbox = `routes-${unique()}`;
    const reader = await login(api, 'reader', { sandbox });
    expectProblem(await withToken(api, 'GET', '/posts-with-comments', reader.access_token), 403, 'FORBIDDEN');
    const viewer = await login(api, 'viewer', { sandbox });
    expect((await withToken(api, 'GET', '/posts-with-comments', viewer.access_token)).status).toBe(200);
  });
});

describe('_embed and _expand are parsed once (28.7)', () => {
  it.each(['_embed=%20comments', '_embed=comments%20', '_expand=%20user', '_embed=comments&_embed=%20comments'])(
    'a posts:read token asking %s is 403',
    async (query) => {
      const { api } = required();
      const reader = await login(api, 'reader', { sandbox: `embed-${unique()}` });
      expect((await withToken(api, 'GET', '/posts/1', reader.access_token)).status).toBe(200);
      expectProblem(await withToken(api, 'GET', `/posts/1?${query}`, reader.access_token), 403, 'FORBIDDEN');
      expectProblem(await withToken(api, 'GET', `/posts?${query}`, reader.access_token), 403, 'FORBIDDEN');
      expectProblem(await withToken(api, 'GET', `/users/1/posts?${query}`, reader.access_token), 403, 'FORBIDDEN');
    },
  );
});

describe('access tokens keep their limits (28.8)', () => {
  it('token_ttl and X-Simulate-JWT-Expiry never lengthen a token past auth.accessTtl', async () => {
    const { api } = open;
    const sandbox = `ttl-${unique()}`;
    const long = await login(api, 'viewer', { sandbox, body: { token_ttl: '1d' } });
    expect(long.expires_in).toBe(900);
    const header = await login(api, 'viewer', { sandbox, headers: { 'x-simulate-jwt-expiry': '86400' } });
    expect(header.expires_in).toBe(900);
    const { claims } = decode(header.access_token);
    expect(claims.exp - claims.iat).toBe(900);
    expect((await login(api, 'viewer', { sandbox, body: { token_ttl: '5s' } })).expires_in).toBe(5);
  });

  it('X-Simulate-Clock-Skew is bounded to 5 minutes either way', async () => {
    const { api } = open;
    const owner = sandboxClient(api, `skew-${unique()}`);
    expect((await owner.get('/posts/1', { 'x-simulate-clock-skew': '-300s' })).status).toBe(200);
    expectProblem(await owner.get('/posts/1', { 'x-simulate-clock-skew': '-301s' }), 400, 'INVALID_SIMULATION');
    expectProblem(await owner.get('/posts/1', { 'x-simulate-clock-skew': '+1h' }), 400, 'INVALID_SIMULATION');
  });

  it("logout ends the family's access token, even one used (and cached) before", async () => {
    const { api } = open;
    const pair = await login(api, 'admin', { sandbox: `logout-${unique()}` });
    expect((await withToken(api, 'GET', '/posts/1', pair.access_token)).status).toBe(200);
    expect((await withToken(api, 'POST', '/auth/logout', pair.access_token)).status).toBe(200);
    expect401(await withToken(api, 'GET', '/posts/1', pair.access_token), 'INVALID_TOKEN', true);
    expect401(await withToken(api, 'POST', '/sandbox/reset', pair.access_token, undefined, { 'x-simulate-clock-skew': '+60s' }), 'INVALID_TOKEN', true);
  });

  it("refresh reuse revokes the family's access tokens too", async () => {
    const { api } = open;
    const first = await login(api, 'admin', { sandbox: `reuse-${unique()}` });
    const second = (await post(api, '/auth/refresh', { refresh_token: first.refresh_token })).body;
    expect((await withToken(api, 'GET', '/posts/1', second.access_token)).status).toBe(200);
    expect((await post(api, '/auth/refresh', { refresh_token: first.refresh_token })).status).toBe(401);
    expect401(await withToken(api, 'GET', '/posts/1', second.access_token), 'INVALID_TOKEN', true);
    expect401(await withToken(api, 'GET', '/posts/1', first.access_token), 'INVALID_TOKEN', true);
  });
});

describe('snapshots (28.12)', () => {
  it('replacing a snapshot by name needs what deleting needs', async () => {
    const { api } = open;
    const owner = sandboxClient(api, `snap-${unique()}`);
    expect((await owner.post('/sandbox/snapshots', { name: 'keep' })).status).toBe(200);
    const editor = await login(api, 'editor', { sandbox: owner.id });
    expectProblem(await withToken(api, 'POST', '/sandbox/snapshots', editor.access_token, { name: 'keep' }), 403, 'FORBIDDEN');
    expect((await withToken(api, 'POST', '/sandbox/snapshots', editor.access_token, { name: 'fresh' })).status).toBe(200);
    const admin = await login(api, 'admin', { sandbox: owner.id });
    expect((await withToken(api, 'POST', '/sandbox/snapshots', admin.access_token, { name: 'keep' })).status).toBe(200);
  });
});

describe('X-Sandbox beside a token (28.14)', () => {
  it('a malformed X-Sandbox is 400 INVALID_IDENTITY with a token too', async () => {
    const { api } = open;
    const pair = await login(api, 'viewer', { sandbox: `xs-${unique()}` });
    expectProblem(await withToken(api, 'GET', '/posts/1', pair.access_token, undefined, { 'x-sandbox': 'has space' }), 400, 'INVALID_IDENTITY');
  });
});

describe('webhook secrets (28.15)', () => {
  it('only webhooks:write holders see them; an export without it carries none and says so', async () => {
    const { api } = open;
    const owner = sandboxClient(api, `hooks-${unique()}`);
    const hook = await owner.post('/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['posts.created'] });
    expect(hook.status, hook.text).toBe(200);
    expect(hook.body.secret).toEqual(expect.any(String));
    const viewer = await login(api, 'viewer', { sandbox: owner.id });
    const listed = await withToken(api, 'GET', '/webhooks', viewer.access_token);
    expect(listed.status).toBe(200);
    expect(listed.body.data[0].secret).toBeUndefined();
    expect((await withToken(api, 'GET', `/webhooks/${hook.body.id}`, viewer.access_token)).body.secret).toBeUndefined();
    const exported = await withToken(api, 'GET', '/sandbox/export', viewer.access_token);
    expect(exported.status).toBe(200);
    expect(exported.text).not.toContain(hook.body.secret);
    expect(exported.body.sandboxes[0].withheld).toEqual(['webhooks.secret']);
    const editor = await login(api, 'editor', { sandbox: owner.id });
    expect((await withToken(api, 'GET', '/webhooks', editor.access_token)).body.data[0].secret).toBe(hook.body.secret);
    expect((await owner.get('/sandbox/export')).text).toContain(hook.body.secret);
    // The export without secrets imports (the subscriptions get new secrets).
    const other = sandboxClient(api, `hooks-${unique()}`);
    const imported = await other.post('/sandbox/import', exported.body);
    expect(imported.status, imported.text).toBe(200);
    const again = (await other.get('/webhooks')).body.data[0];
    expect(again.secret).toEqual(expect.any(String));
    expect(again.secret).not.toBe(hook.body.secret);
  });
});

describe('a guest cannot reach what a token reads through a custom collection file route', () => {
  it('writes by a guest are 401', async () => {
    const { api } = required();
    expect401(await sandboxClient(api, `w-${unique()}`).post('/posts', newRecord('posts')), 'UNAUTHORIZED', false);
    expect((await request(`${api}/auth/permissions`)).status).toBe(200);
  });
});

describe('GraphQL answers kept in the answer cache', () => {
  it('are not served to a token of the same role whose scopes do not grant the read', async () => {
    const { api } = required();
    const sandbox = `gql-scopes-${unique()}`;
    // Both personas are viewers: `reader` holds posts:read, `stats` only stats:read.
    const reader = await login(api, 'reader', { sandbox });
    const stats = await login(api, 'stats', { sandbox });
    const query = { query: '{ posts(limit: 1) { data { id } } }' };
    const allowed = await withToken(api, 'POST', '/graphql', reader.access_token, query);
    expect(allowed.body.errors, allowed.text).toBeUndefined();
    expect(allowed.body.data.posts.data).toHaveLength(1);
    const refused = await withToken(api, 'POST', '/graphql', stats.access_token, query);
    expect(refused.body.errors?.[0]?.extensions?.code, refused.text).toBe('FORBIDDEN');
  });
});
