import { describe, expect, it } from 'vitest';
import { sandboxClient, useServer } from './helpers/server.js';
import { BASELINE, expectProblem, expectValidation, LOCAL_ID, totalOf } from './helpers/problems.js';
import { decode, expect401, login, post, unique, withToken } from './helpers/auth.js';

const server = useServer();

const registration = (overrides: Record<string, unknown> = {}) => {
  const tag = unique();
  return { name: `Reg ${tag}`, username: `reg_${tag}`, email: `reg.${tag}@example.test`, password: `pw-${tag}`, ...overrides };
};

describe('register', () => {
  it('creates the user in the sandbox overlay (_sandbox "created"), logs it in as editor, and nowhere else', async () => {
    const client = sandboxClient(server.api, `reg-${unique()}`);
    const given = registration();
    const answer = await client.post('/auth/register', given);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toMatchObject({ token_type: 'Bearer', expires_in: 900, refresh_expires_in: 604_800, role: 'editor', scopes: ['*:read', '*:write'] });
    const user = answer.body.user;
    expect(user).toMatchObject({ name: given.name, username: given.username, email: given.email, _sandbox: 'created' });
    expect(user.id).toMatch(LOCAL_ID);
    expect(user).not.toHaveProperty('password');
    expect(decode(answer.body.access_token).claims).toMatchObject({ sub: user.id, sid: client.id, role: 'editor' });

    const stored = await client.get(`/users/${user.id}`);
    expect(stored.status).toBe(200);
    expect(stored.body).toEqual(user);
    expect(await totalOf(client, 'users')).toBe(BASELINE.users + 1);
    const other = sandboxClient(server.api, `reg-other-${unique()}`);
    expect((await other.get(`/users/${user.id}`)).status).toBe(404);
    expect(await totalOf(other, 'users')).toBe(BASELINE.users);

    // Its password works in its sandbox only, and is never shown.
    await login(server.api, given.username, { sandbox: client.id, password: given.password });
    await login(server.api, given.email, { sandbox: client.id, password: given.password });
    expect401(await post(server.api, '/auth/login', { username: given.username, password: 'password' }, { cookie: `svc_identity=${client.id}` }), 'INVALID_CREDENTIALS', false);
    expect401(await post(server.api, '/auth/login', { username: given.username, password: given.password }, { cookie: `svc_identity=${other.id}` }), 'INVALID_CREDENTIALS', false);
    const exported = await client.get('/sandbox/export');
    expect(exported.status).toBe(200);
    expect(exported.text).toContain(given.username);
    expect(exported.text).not.toContain(given.password);
    expect(exported.text).not.toContain('scrypt$');
    expect((await client.get(`/users?username=${given.username}`)).text).not.toContain('scrypt');
  });

  it('answers 409 for a username or email taken in the sandbox, by the baseline, or by a persona', async () => {
    const client = sandboxClient(server.api, `reg-${unique()}`);
    const first = (await client.get('/users/1')).body;
    const earlier = registration();
    expect((await client.post('/auth/register', earlier)).status).toBe(200);
    const before = await totalOf(client, 'users');
    for (const taken of [
      { username: first.username },
      { email: first.email },
      { username: earlier.username },
      { email: earlier.email },
      { username: 'admin' },
      { username: 'Viewer' },
      { email: 'editor@mockapi.local' },
      { email: 'ADMIN@mockapi.local' },
    ]) {
      const answer = await client.post('/auth/register', registration(taken));
      expectProblem(answer, 409, 'CONFLICT');
    }
    expect(await totalOf(client, 'users')).toBe(before);
    // Per sandbox: the same username is free in another one.
    const elsewhere = await sandboxClient(server.api, `reg-${unique()}`).post('/auth/register', registration({ username: earlier.username, email: earlier.email }));
    expect(elsewhere.status, elsewhere.text).toBe(200);
  });

  it('validates: every field required, no others (no role to pick), an email that is one', async () => {
    const client = sandboxClient(server.api, `reg-${unique()}`);
    expectValidation(await client.post('/auth/register', {}), ['/name', '/username', '/email', '/password']);
    expectValidation(await client.post('/auth/register', registration({ role: 'admin' })), ['/role']);
    expectValidation(await client.post('/auth/register', registration({ password: '' })), ['/password']);
    expectValidation(await client.post('/auth/register', registration({ password: 'x'.repeat(1025) })), ['/password']);
    expectProblem(await client.post('/auth/register', registration({ email: 'not-an-email' })), 422, 'VALIDATION_FAILED');
    expectProblem(await client.post('/auth/register', '[1,2]'), 400, 'INVALID_BODY');
    expect(await totalOf(client, 'users')).toBe(BASELINE.users);
  });

  it('takes token_ttl', async () => {
    const answer = await sandboxClient(server.api, `reg-${unique()}`).post('/auth/register', registration({ token_ttl: '2m' }));
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.expires_in).toBe(120);
  });
});

describe('PATCH /auth/me', () => {
  it("a registered user's profile change persists in its sandbox's users overlay", async () => {
    const client = sandboxClient(server.api, `me-${unique()}`);
    const registered = (await client.post('/auth/register', registration())).body;
    const answer = await withToken(server.api, 'PATCH', '/auth/me', registered.access_token, { bio: 'Hello', website: 'example.test' });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toMatchObject({ role: 'editor', user: { id: registered.user.id, bio: 'Hello', website: 'example.test', _sandbox: 'created' } });
    expect((await client.get(`/users/${registered.user.id}`)).body).toMatchObject({ bio: 'Hello', website: 'example.test' });
    expect((await withToken(server.api, 'GET', '/auth/me', registered.access_token)).body).toEqual(answer.body);
  });

  it("a baseline user's change is its sandbox's only (the baseline and other sandboxes keep the original)", async () => {
    const mine = sandboxClient(server.api, `me-${unique()}`);
    const other = sandboxClient(server.api, `me-${unique()}`);
    const original = (await mine.get('/users/2')).body;
    const pair = await login(server.api, original.username, { sandbox: mine.id });
    const answer = await withToken(server.api, 'PATCH', '/auth/me', pair.access_token, { name: 'Renamed Here' });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.user).toMatchObject({ id: 2, name: 'Renamed Here', _sandbox: 'updated' });
    expect((await mine.get('/users/2')).body).toMatchObject({ name: 'Renamed Here', _sandbox: 'updated' });
    expect((await other.get('/users/2')).body).toEqual(original);
    const there = await login(server.api, original.username, { sandbox: other.id });
    expect(there.user).toEqual(original);
  });

  it("a persona's change persists in its sandbox only; null removes a field; the new email logs in there", async () => {
    const mine = `me-${unique()}`;
    const pair = await login(server.api, 'editor', { sandbox: mine });
    const changed = await withToken(server.api, 'PATCH', '/auth/me', pair.access_token, { name: 'Chief Editor', bio: 'Edits', email: 'chief@example.test' });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toEqual({
      user: { id: 'persona:editor', username: 'editor', name: 'Chief Editor', email: 'chief@example.test', bio: 'Edits' },
      role: 'editor',
      scopes: ['*:read', '*:write'],
    });
    expect((await sandboxClient(server.api, mine).get('/auth/me')).body.user.name).toBe('Chief Editor');
    const removed = await withToken(server.api, 'PATCH', '/auth/me', pair.access_token, { bio: null });
    expect(removed.body.user).not.toHaveProperty('bio');
    expect(removed.body.user.name).toBe('Chief Editor');
    await login(server.api, 'chief@example.test', { sandbox: mine });

    const elsewhere = await login(server.api, 'editor', { sandbox: `me-${unique()}` });
    expect(elsewhere.user).toEqual({ id: 'persona:editor', username: 'editor', name: 'Editor', email: 'editor@mockapi.local' });
    expect401(await post(server.api, '/auth/login', { email: 'chief@example.test', password: 'password' }, { cookie: `svc_identity=other-${unique()}` }), 'INVALID_CREDENTIALS', false);
  });

  it("needs a token: the cookie's login authenticates GET /auth/me only (contract section 7)", async () => {
    const client = sandboxClient(server.api, `me-${unique()}`);
    const pair = await login(server.api, 'viewer', { sandbox: client.id });
    expect401(await client.patch('/auth/me', { bio: 'via cookie' }), 'UNAUTHORIZED', false);
    const answer = await withToken(server.api, 'PATCH', '/auth/me', pair.access_token, { bio: 'via token' });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toMatchObject({ role: 'viewer', user: { id: 'persona:viewer', bio: 'via token' } });
  });

  it('refuses other fields (username, role, id, password) with 422 and changes nothing', async () => {
    const client = sandboxClient(server.api, `me-${unique()}`);
    const pair = await login(server.api, 'viewer', { sandbox: client.id });
    for (const body of [{ username: 'x' }, { role: 'admin' }, { id: 'persona:admin' }, { password: 'x' }, { name: 'ok', scopes: ['*'] }]) {
      const answer = await withToken(server.api, 'PATCH', '/auth/me', pair.access_token, body);
      expectProblem(answer, 422, 'VALIDATION_FAILED');
    }
    expectProblem(await withToken(server.api, 'PATCH', '/auth/me', pair.access_token, { email: 'nope' }), 422, 'VALIDATION_FAILED');
    expectProblem(await withToken(server.api, 'PATCH', '/auth/me', pair.access_token, { name: 42 }), 422, 'VALIDATION_FAILED');
    expect((await client.get('/auth/me')).body).toMatchObject({ role: 'viewer', user: { name: 'Viewer', email: 'viewer@mockapi.local' } });
  });

  it("a user's email taken by another user is 409", async () => {
    const client = sandboxClient(server.api, `me-${unique()}`);
    const taken = (await client.get('/users/1')).body.email;
    const registered = (await client.post('/auth/register', registration())).body;
    expectProblem(await withToken(server.api, 'PATCH', '/auth/me', registered.access_token, { email: taken }), 409, 'CONFLICT');
  });

  it('an email another account logs in with is 409, so no account shadows another (as registration refuses)', async () => {
    const client = sandboxClient(server.api, `me-${unique()}`);
    const userEmail = (await client.get('/users/1')).body.email;
    const registered = (await client.post('/auth/register', registration())).body;
    const persona = await login(server.api, 'viewer', { sandbox: client.id });
    for (const [token, email] of [
      [registered.access_token, 'admin@mockapi.local'],
      [registered.access_token, 'Editor@mockapi.local'],
      [persona.access_token, 'editor@mockapi.local'],
      [persona.access_token, userEmail],
      [persona.access_token, registered.user.email],
    ]) {
      const answer = await withToken(server.api, 'PATCH', '/auth/me', token, { email });
      expectProblem(answer, 409, 'CONFLICT');
    }
    // Everyone still logs in by their own email.
    await login(server.api, 'admin@mockapi.local', { sandbox: client.id });
    expect((await login(server.api, userEmail, { sandbox: client.id })).user.id).toBe(1);
    // Its own email again is no conflict.
    expect((await withToken(server.api, 'PATCH', '/auth/me', persona.access_token, { email: 'viewer@mockapi.local' })).status).toBe(200);
    expect((await withToken(server.api, 'PATCH', '/auth/me', registered.access_token, { email: registered.user.email })).status).toBe(200);
  });

  it('without a token or session is 401', async () => {
    expect401(await sandboxClient(server.api, `me-${unique()}`).patch('/auth/me', { bio: 'x' }), 'UNAUTHORIZED', false);
  });
});
