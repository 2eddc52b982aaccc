import { describe, expect, it } from 'vitest';
import { sandboxClient, useServer } from './helpers/server.js';
import { expectProblem, expectValidation, type Client } from './helpers/problems.js';
import { expect401, login, post, unique, withToken } from './helpers/auth.js';

const server = useServer();

const forgot = (client: Client, email: string) => client.post('/auth/forgot-password', { email });
const inbox = async (client: Client, query = '') => {
  const answer = await client.get(`/inbox/messages${query}`);
  expect(answer.status, answer.text).toBe(200);
  return answer.body as { data: any[]; pagination: any };
};
/** The newest message's token (fails unless there is one). */
const newestToken = async (client: Client): Promise<string> => {
  const [message] = (await inbox(client)).data;
  expect(message?.token).toBeTypeOf('string');
  return message.token;
};
const canLogIn = async (client: Client, username: string, password: string) =>
  (await post(server.api, '/auth/login', { username, password }, { cookie: `svc_identity=${client.id}` })).status === 200;

describe('forgot-password and the mailbox', () => {
  it('puts a message {id, to, subject, text, html, token, created_at} whose HTML link ends in ?token=<token>', async () => {
    const client = sandboxClient(server.api, `mail-${unique()}`);
    const user = (await client.get('/users/4')).body;
    const answer = await forgot(client, user.email);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.message).toBeTypeOf('string');

    const { data, pagination } = await inbox(client);
    expect(pagination).toMatchObject({ page: 1, total: 1, totalPages: 1, hasNextPage: false, hasPrevPage: false });
    expect(data).toHaveLength(1);
    const message = data[0];
    expect(Object.keys(message).sort()).toEqual(['created_at', 'html', 'id', 'subject', 'text', 'to', 'token'].sort());
    expect(message.to).toBe(user.email);
    expect(message.subject).toMatch(/\S/);
    expect(message.token).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(new Date(message.created_at).toISOString()).toBe(message.created_at);
    const links = [...message.html.matchAll(/href="([^"]+)"/g)].map((m) => m[1].replaceAll('&amp;', '&'));
    expect(links).toHaveLength(1);
    expect(links[0]).toMatch(/^http:\/\/[^/]+\/reset-password\?token=/);
    expect(links[0].endsWith(`?token=${message.token}`)).toBe(true);
    expect(message.text).toContain(`?token=${message.token}`);
    expect(message.html).toContain(user.name);
  });

  it('answers an unknown address exactly like a known one, with a message holding no token and no link', async () => {
    const client = sandboxClient(server.api, `mail-${unique()}`);
    const known = await forgot(client, (await client.get('/users/1')).body.email);
    const unknown = await forgot(client, `nobody.${unique()}@example.test`);
    expect(unknown.status).toBe(200);
    expect(unknown.body).toEqual(known.body);
    const [message] = (await inbox(client)).data;
    expect(message.token).toBeNull();
    expect(message.to).toMatch(/^nobody\./);
    expect(message.html).not.toContain('token=');
    expect(Object.keys(message).sort()).toEqual(['created_at', 'html', 'id', 'subject', 'text', 'to', 'token'].sort());
  });

  it('lists newest first, pages, and refuses a bad page size', async () => {
    const client = sandboxClient(server.api, `mail-${unique()}`);
    for (const n of [1, 2, 3]) await forgot(client, `n${n}.${unique()}@example.test`);
    const all = (await inbox(client)).data;
    expect(all.map((m) => m.to.slice(0, 2))).toEqual(['n3', 'n2', 'n1']);
    const second = await inbox(client, '?limit=1&page=2');
    expect(second.data.map((m) => m.id)).toEqual([all[1].id]);
    expect(second.pagination).toMatchObject({ page: 2, limit: 1, total: 3, totalPages: 3, hasNextPage: true, hasPrevPage: true });
    expectProblem(await client.get('/inbox/messages?limit=0'), 400, 'INVALID_QUERY');
    expectProblem(await client.get('/inbox/messages?page=x'), 400, 'INVALID_QUERY');
  });

  it('is per sandbox: another sandbox sees none of it, a token reads its own sandbox', async () => {
    const client = sandboxClient(server.api, `mail-${unique()}`);
    await forgot(client, (await client.get('/users/1')).body.email);
    expect((await inbox(sandboxClient(server.api, `mail-${unique()}`))).data).toEqual([]);
    const admin = await login(server.api, 'admin', { sandbox: client.id });
    const viaToken = await withToken(server.api, 'GET', '/inbox/messages', admin.access_token, undefined, { cookie: `svc_identity=elsewhere-${unique()}` });
    expect(viaToken.status).toBe(200);
    expect(viaToken.body.data).toHaveLength(1);
  });

  it('keeps the newest 200 messages of a sandbox', async () => {
    const client = sandboxClient(server.api, `mail-${unique()}`);
    for (let n = 1; n <= 203; n++) expect((await forgot(client, `m${n}@example.test`)).status).toBe(200);
    const { data, pagination } = await inbox(client, '?limit=100&page=2');
    expect(pagination.total).toBe(200);
    expect(data.at(-1).to).toBe('m4@example.test');
    expect((await inbox(client, '?limit=1')).data[0].to).toBe('m203@example.test');
  });

  it('validates its body', async () => {
    const client = sandboxClient(server.api, `mail-${unique()}`);
    expectValidation(await client.post('/auth/forgot-password', {}), ['/email']);
    expectValidation(await client.post('/auth/reset-password', { token: 'x' }), ['/password']);
    expectValidation(await client.post('/auth/reset-password', {}), ['/token', '/password']);
  });
});

describe('reset-password', () => {
  it('sets the new password (the old one fails), once; the token is single use', async () => {
    const client = sandboxClient(server.api, `reset-${unique()}`);
    const user = (await client.get('/users/5')).body;
    await forgot(client, user.email);
    const token = await newestToken(client);
    const answer = await client.post('/auth/reset-password', { token, password: 'new-secret' });
    expect(answer.status, answer.text).toBe(200);
    expect(await canLogIn(client, user.username, 'new-secret')).toBe(true);
    expect(await canLogIn(client, user.username, 'password')).toBe(false);
    expectProblem(await client.post('/auth/reset-password', { token, password: 'third' }), 400, 'INVALID_RESET_TOKEN');
    expect(await canLogIn(client, user.username, 'new-secret')).toBe(true);
    // Other sandboxes keep the configured password.
    expect(await canLogIn(sandboxClient(server.api, `reset-${unique()}`), user.username, 'password')).toBe(true);
  });

  it('a newer request supersedes the older token', async () => {
    const client = sandboxClient(server.api, `reset-${unique()}`);
    const user = (await client.get('/users/6')).body;
    await forgot(client, user.email);
    const older = await newestToken(client);
    await forgot(client, user.email);
    const newer = await newestToken(client);
    expect(newer).not.toBe(older);
    expectProblem(await client.post('/auth/reset-password', { token: older, password: 'from-older' }), 400, 'INVALID_RESET_TOKEN');
    expect((await client.post('/auth/reset-password', { token: newer, password: 'from-newer' })).status).toBe(200);
    expect(await canLogIn(client, user.username, 'from-newer')).toBe(true);
    expect(await canLogIn(client, user.username, 'from-older')).toBe(false);
  });

  it('an unknown token, or one of another sandbox, is 400 INVALID_RESET_TOKEN', async () => {
    const client = sandboxClient(server.api, `reset-${unique()}`);
    expectProblem(await client.post('/auth/reset-password', { token: 'not-a-token', password: 'x1' }), 400, 'INVALID_RESET_TOKEN');
    await forgot(client, (await client.get('/users/7')).body.email);
    const token = await newestToken(client);
    expectProblem(await sandboxClient(server.api, `reset-${unique()}`).post('/auth/reset-password', { token, password: 'x1' }), 400, 'INVALID_RESET_TOKEN');
    // Still good where it was made.
    expect((await client.post('/auth/reset-password', { token, password: 'x1' })).status).toBe(200);
  });

  it("works for a registered user and ends the user's refresh families; a persona's password is the config's", async () => {
    const client = sandboxClient(server.api, `reset-${unique()}`);
    await forgot(client, 'admin@mockapi.local');
    expect((await inbox(client)).data[0].token).toBeNull();
    expect(await canLogIn(client, 'admin', 'password')).toBe(true);

    const tag = unique();
    const registered = await client.post('/auth/register', { name: 'R', username: `r_${tag}`, email: `r.${tag}@example.test`, password: 'first-1' });
    expect(registered.status).toBe(200);
    await forgot(client, `r.${tag}@example.test`);
    expect((await client.post('/auth/reset-password', { token: await newestToken(client), password: 'second-2' })).status).toBe(200);
    expect(await canLogIn(client, `r_${tag}`, 'second-2')).toBe(true);
    expect(await canLogIn(client, `r_${tag}`, 'first-1')).toBe(false);
    expect401(await post(server.api, '/auth/refresh', { refresh_token: registered.body.refresh_token }), 'INVALID_TOKEN', true);
    // The access tokens of those families end with them.
    expect401(await withToken(server.api, 'GET', '/posts/1', registered.body.access_token), 'INVALID_TOKEN', true);
  });

  it('two resets racing with one token: one wins, the other is 400, and the winner\'s password holds', async () => {
    const client = sandboxClient(server.api, `reset-${unique()}`);
    const user = (await client.get('/users/10')).body;
    await forgot(client, user.email);
    const token = await newestToken(client);
    const answers = await Promise.all(['race-a', 'race-b'].map((password) => client.post('/auth/reset-password', { token, password })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400]);
    const winner = answers[0].status === 200 ? 'race-a' : 'race-b';
    expect(await canLogIn(client, user.username, winner)).toBe(true);
    expect(await canLogIn(client, user.username, winner === 'race-a' ? 'race-b' : 'race-a')).toBe(false);
  });

  it('a token of a user deleted since is 400', async () => {
    const client = sandboxClient(server.api, `reset-${unique()}`);
    await forgot(client, (await client.get('/users/8')).body.email);
    const token = await newestToken(client);
    expect((await client.delete('/users/8')).status).toBe(200);
    expectProblem(await client.post('/auth/reset-password', { token, password: 'x1' }), 400, 'INVALID_RESET_TOKEN');
  });
});

describe('a sandbox reset', () => {
  it('purges the mailbox, the reset tokens and the passwords set in the sandbox', async () => {
    const client = sandboxClient(server.api, `purge-${unique()}`);
    const user = (await client.get('/users/9')).body;
    await forgot(client, user.email);
    expect((await client.post('/auth/reset-password', { token: await newestToken(client), password: 'changed-1' })).status).toBe(200);
    await forgot(client, user.email);
    const pending = await newestToken(client);
    expect((await inbox(client)).data).toHaveLength(2);

    expect((await client.post('/sandbox/reset')).status).toBe(200);
    expect(await inbox(client)).toMatchObject({ data: [], pagination: { total: 0 } });
    expectProblem(await client.post('/auth/reset-password', { token: pending, password: 'changed-2' }), 400, 'INVALID_RESET_TOKEN');
    expect(await canLogIn(client, user.username, 'password')).toBe(true);
    expect(await canLogIn(client, user.username, 'changed-1')).toBe(false);
  });

  it("purges a persona's profile changes made in the sandbox", async () => {
    const client = sandboxClient(server.api, `purge-${unique()}`);
    const viewer = await login(server.api, 'viewer', { sandbox: client.id });
    expect((await withToken(server.api, 'PATCH', '/auth/me', viewer.access_token, { name: 'Changed' })).body.user.name).toBe('Changed');
    expect((await client.post('/sandbox/reset')).status).toBe(200);
    expect((await client.get('/auth/me')).body.user.name).toBe('Viewer');
  });
});
