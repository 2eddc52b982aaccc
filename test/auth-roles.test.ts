import { describe, expect, it } from 'vitest';
import { sandboxClient, useServer, type RunningServer } from './helpers/server.js';
import { expectProblem, newRecord, request } from './helpers/problems.js';
import { expect401, login, post, unique, useConfiguredServer, withToken } from './helpers/auth.js';

const server = useServer();
const guestByConfig = useConfiguredServer({
  auth: {
    required: true,
    personas: {
      poster: { role: 'viewer', scopes: 'posts:*' },
      visitor: { role: 'guest' },
      ops: { role: 'admin', password: 'ops-pass', email: 'ops@example.test' },
    },
  },
});
const guestByFlag = useServer({ args: ['--auth-required'] });

type Role = 'viewer' | 'editor' | 'admin';
type Row = [method: string, path: string, body: unknown, viewer: number, editor: number, admin: number];

/** A sandbox holding a snapshot `s1`, its export document, and a token of `role` bound to it. */
async function seeded(role: Role) {
  const owner = sandboxClient(server.api, `roles-${role}-${unique()}`);
  expect((await owner.post('/sandbox/snapshots', { name: 's1' })).status).toBe(200);
  const exported = (await owner.get('/sandbox/export')).body;
  const pair = await login(server.api, role, { sandbox: owner.id });
  return { owner, exported, token: pair.access_token };
}

describe('roles on every route (with a token; auth not required)', () => {
  // In order: reads, writes, then the destructive ones, so each row finds what it needs.
  const rows = (exported: unknown): Row[] => [
    ['GET', '/posts?limit=2', undefined, 200, 200, 200],
    ['GET', '/posts/1', undefined, 200, 200, 200],
    ['HEAD', '/posts/1', undefined, 200, 200, 200],
    ['GET', '/posts/1/comments', undefined, 200, 200, 200],
    ['GET', '/users/1/todos', undefined, 200, 200, 200],
    ['GET', '/comments/1/post', undefined, 200, 200, 200],
    ['GET', '/sandbox', undefined, 200, 200, 200],
    ['GET', '/sandbox/activity', undefined, 200, 200, 200],
    ['GET', '/sandbox/snapshots', undefined, 200, 200, 200],
    ['GET', '/sandbox/snapshots/s1', undefined, 200, 200, 200],
    ['GET', '/sandbox/export', undefined, 200, 200, 200],
    // The mailbox holds reset tokens: inbox:read, which `*:read` does not cover (contract section 7).
    ['GET', '/inbox/messages', undefined, 403, 403, 200],
    ['POST', '/posts', newRecord('posts'), 403, 200, 200],
    ['POST', '/users', newRecord('users'), 403, 200, 200],
    ['POST', '/comments', newRecord('comments'), 403, 200, 200],
    ['POST', '/todos', newRecord('todos'), 403, 200, 200],
    ['PUT', '/posts/2', newRecord('posts'), 403, 200, 200],
    ['PATCH', '/todos/3', { completed: true }, 403, 200, 200],
    ['POST', '/sandbox/snapshots', { name: 's2' }, 403, 200, 200],
    ['DELETE', '/posts/4', undefined, 403, 403, 200],
    ['DELETE', '/comments/5', undefined, 403, 403, 200],
    ['DELETE', '/users/6', undefined, 403, 403, 200],
    ['DELETE', '/todos/7', undefined, 403, 403, 200],
    ['DELETE', '/sandbox/snapshots/s2', undefined, 403, 403, 200],
    ['POST', '/sandbox/snapshots/s1/restore', undefined, 403, 403, 200],
    ['POST', '/sandbox/import', exported, 403, 403, 200],
    ['POST', '/sandbox/reset', undefined, 403, 403, 200],
  ];

  it.each(['viewer', 'editor', 'admin'] as const)('%s: allowed exactly what its scopes grant; otherwise 403 FORBIDDEN', async (role) => {
    const { token, exported } = await seeded(role);
    const column = { viewer: 3, editor: 4, admin: 5 }[role] as 3 | 4 | 5;
    for (const row of rows(exported)) {
      const [method, path, body] = row;
      const answer = await withToken(server.api, method, path, token, body);
      const context = `${role} ${method} ${path}: ${answer.status} ${answer.text.slice(0, 300)}`;
      if (row[column] === 403) {
        expectProblem(answer, 403, 'FORBIDDEN');
        expect(answer.body.detail, context).toContain(role);
      } else {
        expect(answer.status, context).toBe(row[column]);
      }
    }
  });

  it("a 403 changes nothing: a viewer's refused write and delete leave the sandbox as it was", async () => {
    const { owner, token } = await seeded('viewer');
    const before = (await owner.get('/posts/1')).body;
    expect((await withToken(server.api, 'PATCH', '/posts/1', token, { title: 'changed' })).status).toBe(403);
    expect((await withToken(server.api, 'DELETE', '/posts/1', token)).status).toBe(403);
    expect((await owner.get('/posts/1')).body).toEqual(before);
    expect((await owner.get('/sandbox/snapshots/s1')).status).toBe(200);
  });

  it('a cached answer for one role is not stale for another: a viewer sees what an admin just wrote', async () => {
    const sandbox = `cache-${unique()}`;
    const admin = (await login(server.api, 'admin', { sandbox })).access_token;
    const viewer = (await login(server.api, 'viewer', { sandbox })).access_token;
    const first = await withToken(server.api, 'GET', '/posts/1', viewer);
    expect((await withToken(server.api, 'GET', '/posts/1', admin)).body).toEqual(first.body);
    expect((await withToken(server.api, 'PATCH', '/posts/1', admin, { title: 'by the admin' })).status).toBe(200);
    expect((await withToken(server.api, 'GET', '/posts/1', viewer)).body.title).toBe('by the admin');
    expect((await sandboxClient(server.api, sandbox).get('/posts/1')).body.title).toBe('by the admin');
  });

  it('GET /auth/roles and /auth/permissions describe the four roles', async () => {
    const roles = await request(`${server.api}/auth/roles`);
    expect(roles.status).toBe(200);
    expect(Object.fromEntries(roles.body.data.map((r: { name: string; scopes: string[] }) => [r.name, r.scopes]))).toEqual({
      admin: ['*'],
      editor: ['*:read', '*:write'],
      viewer: ['*:read'],
      guest: ['public:read'],
    });
    const permissions = await request(`${server.api}/auth/permissions`);
    expect(permissions.status).toBe(200);
    expect(permissions.body.roles.viewer).toEqual(['*:read']);
    // Generated from the routes' declarations (not a second list).
    expect(permissions.body.rules).toContainEqual(expect.objectContaining({ method: 'DELETE', path: '/api/v1/{collection}/{id}', scope: '{collection}:delete', guest: false }));
    expect(permissions.body.rules).toContainEqual(expect.objectContaining({ method: 'GET', path: '/api/v1/inbox/messages', scope: 'inbox:read', guest: false }));
    expect(permissions.body.rules).toContainEqual(expect.objectContaining({ method: 'GET', path: '/api/v1/custom/{name}', scope: '{name}:read or custom:read', guest: false }));
    expect(permissions.body.rules).toContainEqual(expect.objectContaining({ method: 'POST', path: '/api/v1/auth/login', scope: null, guest: true }));
  });
});

describe.each([
  ['auth.required in the config', guestByConfig],
  ['serve --auth-required', guestByFlag],
] as [string, RunningServer][])('guest mode (%s)', (_, guest) => {
  it('reads of the core collections are 200 without a token', async () => {
    const client = sandboxClient(guest.api, `guest-${unique()}`);
    for (const path of ['/posts', '/posts/1', '/users?limit=2', '/comments/1', '/todos?completed=true', '/users/1/posts', '/posts/1/comments', '/comments/1/post']) {
      const answer = await client.get(path);
      expect(answer.status, `${path}: ${answer.text.slice(0, 200)}`).toBe(200);
    }
    expect((await client.call('HEAD', '/posts/1')).status).toBe(200);
  });

  it('everything else without a token is 401 UNAUTHORIZED with a plain Bearer challenge, and changes nothing', async () => {
    const client = sandboxClient(guest.api, `guest-${unique()}`);
    const before = (await client.get('/posts/1')).body;
    for (const [method, path, body] of [
      ['POST', '/posts', newRecord('posts')],
      ['PUT', '/posts/1', newRecord('posts')],
      ['PATCH', '/posts/1', { title: 'x' }],
      ['DELETE', '/posts/1', undefined],
      ['POST', '/users', newRecord('users')],
      ['DELETE', '/todos/1', undefined],
      ['GET', '/sandbox', undefined],
      ['GET', '/sandbox/activity', undefined],
      ['GET', '/sandbox/export', undefined],
      ['GET', '/sandbox/snapshots', undefined],
      ['POST', '/sandbox/snapshots', { name: 'g' }],
      ['POST', '/sandbox/snapshots/g/restore', undefined],
      ['DELETE', '/sandbox/snapshots/g', undefined],
      ['POST', '/sandbox/import', {}],
      ['POST', '/sandbox/reset', undefined],
      ['GET', '/auth/me', undefined],
      ['PATCH', '/auth/me', { name: 'x' }],
    ] as const) {
      const answer = await client.call(method, path, body);
      expect401(answer, 'UNAUTHORIZED', false);
    }
    expect((await client.get('/posts/1')).body).toEqual(before);
  });

  it('the public auth endpoints work without a token', async () => {
    const client = sandboxClient(guest.api, `guest-${unique()}`);
    expect((await client.get('/auth/roles')).status).toBe(200);
    expect((await client.get('/auth/permissions')).status).toBe(200);
    const pair = await client.post('/auth/login', { username: 'viewer', password: 'password' });
    expect(pair.status, pair.text).toBe(200);
    expect((await client.post('/auth/refresh', { refresh_token: pair.body.refresh_token })).status).toBe(200);
    const tag = unique();
    const registered = await client.post('/auth/register', { name: 'Guest Made', username: `g_${tag}`, email: `g.${tag}@example.test`, password: 'secret-1' });
    expect(registered.status, registered.text).toBe(200);
    expect((await client.post('/auth/forgot-password', { email: `g.${tag}@example.test` })).status).toBe(200);
    // The mailbox is no public endpoint: a guest is 401, the admin reads it.
    expect((await client.get('/inbox/messages')).status).toBe(401);
    const admin = await login(guest.api, 'admin', { sandbox: client.id });
    const inbox = await withToken(guest.api, 'GET', '/inbox/messages', admin.access_token);
    expect(inbox.status, inbox.text).toBe(200);
    const token = inbox.body.data[0].token;
    expect((await client.post('/auth/reset-password', { token, password: 'secret-2' })).status).toBe(200);
    expectProblem(await client.post('/auth/reset-password', { token, password: 'secret-3' }), 400, 'INVALID_RESET_TOKEN');
    expect((await client.post('/auth/logout')).status).toBe(200);
    expect((await request(`${guest.url}/health`)).status).toBe(200);
  });

  it('with a token the role decides: viewer 403 on a write, admin 200', async () => {
    const sandbox = `guest-${unique()}`;
    const viewer = await login(guest.api, 'viewer', { sandbox });
    const admin = await login(guest.api, 'admin', { sandbox });
    expectProblem(await withToken(guest.api, 'POST', '/posts', viewer.access_token, newRecord('posts')), 403, 'FORBIDDEN');
    expect((await withToken(guest.api, 'GET', '/sandbox', viewer.access_token)).status).toBe(200);
    expect((await withToken(guest.api, 'POST', '/posts', admin.access_token, newRecord('posts'))).status).toBe(200);
    expect((await withToken(guest.api, 'POST', '/sandbox/reset', admin.access_token)).status).toBe(200);
    // An expired token is 401, never a downgrade to guest (which could read).
    const expired = await login(guest.api, 'viewer', { sandbox, headers: { 'x-simulate-jwt-expiry': '0' } });
    expect401(await withToken(guest.api, 'GET', '/posts/1', expired.access_token), 'TOKEN_EXPIRED', true);
  });

  it("what an admin's token read (and the answer cache holds) is never served to a guest of the same sandbox", async () => {
    const sandbox = `guest-cache-${unique()}`;
    const admin = (await login(guest.api, 'admin', { sandbox })).access_token;
    expect((await withToken(guest.api, 'POST', '/sandbox/snapshots', admin, { name: 'kept' })).status).toBe(200);
    const created = await withToken(guest.api, 'POST', '/posts', admin, newRecord('posts'));
    const paths = ['/sandbox', '/sandbox/activity', '/sandbox/export', '/sandbox/snapshots', '/sandbox/snapshots/kept'];
    for (let round = 0; round < 2; round++) {
      for (const path of [...paths, '/posts?limit=3', `/posts/${created.body.id}`]) {
        expect((await withToken(guest.api, 'GET', path, admin)).status, path).toBe(200);
      }
    }
    const guestClient = sandboxClient(guest.api, sandbox);
    for (const path of paths) {
      const answer = await guestClient.get(path);
      expect401(answer, 'UNAUTHORIZED', false);
      // Conditional requests too: a guest's If-None-Match gets no 304 from the admin's answer.
      const etag = (await withToken(guest.api, 'GET', path, admin)).headers.get('etag');
      if (etag) expect401(await guestClient.get(path, { 'if-none-match': etag }), 'UNAUTHORIZED', false);
    }
    // The list itself is public: same records for the guest.
    const adminList = await withToken(guest.api, 'GET', '/posts?limit=3', admin);
    const guestList = await guestClient.get('/posts?limit=3');
    expect(guestList.status).toBe(200);
    expect(guestList.body).toEqual(adminList.body);
    expect((await guestClient.get(`/posts/${created.body.id}`)).status).toBe(200);
    expect401(await guestClient.post('/posts', newRecord('posts')), 'UNAUTHORIZED', false);
  });
});

describe('configured personas', () => {
  it('a persona with its own scopes gets exactly those (posts:* may delete posts, not read comments)', async () => {
    const pair = await login(guestByConfig.api, 'poster');
    expect(pair).toMatchObject({ role: 'viewer', scopes: ['posts:*'] });
    expect((await withToken(guestByConfig.api, 'GET', '/posts/1', pair.access_token)).status).toBe(200);
    expect((await withToken(guestByConfig.api, 'DELETE', '/posts/1', pair.access_token)).status).toBe(200);
    expectProblem(await withToken(guestByConfig.api, 'GET', '/comments/1', pair.access_token), 403, 'FORBIDDEN');
    expectProblem(await withToken(guestByConfig.api, 'POST', '/todos', pair.access_token, newRecord('todos')), 403, 'FORBIDDEN');
  });

  it('a read that embeds or expands another collection needs its read scope too', async () => {
    const { access_token: token } = await login(guestByConfig.api, 'poster');
    for (const path of ['/posts/1?_expand=user', '/posts?_embed=comments', '/posts?limit=2&_expand=user', '/users/1/posts', '/posts/1/user', '/posts/1/comments']) {
      expectProblem(await withToken(guestByConfig.api, 'GET', path, token), 403, 'FORBIDDEN');
    }
    expect((await withToken(guestByConfig.api, 'GET', '/posts?limit=2', token)).status).toBe(200);
  });

  it("a persona's own password and email", async () => {
    expect401(await post(guestByConfig.api, '/auth/login', { username: 'ops', password: 'password' }), 'INVALID_CREDENTIALS', false);
    const pair = await login(guestByConfig.api, 'ops@example.test', { password: 'ops-pass' });
    expect(pair).toMatchObject({ role: 'admin', scopes: ['*'], user: { id: 'persona:ops', email: 'ops@example.test' } });
  });

  it('a token with the guest role is refused writes with 403 (a token was presented), and may read', async () => {
    const pair = await login(guestByConfig.api, 'visitor');
    expect(pair.role).toBe('guest');
    expect((await withToken(guestByConfig.api, 'GET', '/posts/1', pair.access_token)).status).toBe(200);
    expectProblem(await withToken(guestByConfig.api, 'POST', '/posts', pair.access_token, newRecord('posts')), 403, 'FORBIDDEN');
    expectProblem(await withToken(guestByConfig.api, 'GET', '/sandbox', pair.access_token), 403, 'FORBIDDEN');
  });
});
