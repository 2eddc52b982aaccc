import { describe, expect, it } from 'vitest';
import { sandboxClient, useServer } from './helpers/server.js';

/** `auth.login` and `auth.registered` are in the change log like any change (contract sections 8 and 15). */
const server = useServer();

describe('auth events', () => {
  it('a registration logs auth.registered (and user.created) then auth.login; a login logs auth.login; never a password', async () => {
    const client = sandboxClient(server.api);
    const registered = await client.post('/auth/register', { name: 'Ada', username: `ada${Date.now()}`, email: `ada${Date.now()}@example.com`, password: 'secret-1' });
    expect(registered.status, registered.text).toBe(200);
    expect((await client.post('/auth/login', { username: 'viewer', password: 'password' })).status).toBe(200);

    const events = (await client.get('/events?limit=10')).body.data as { event: string; data: any }[];
    expect(events.map((e) => e.event)).toEqual(['auth.login', 'auth.login', 'auth.registered', 'user.created']);
    expect(events[0].data).toMatchObject({ role: 'viewer', user: { id: 'persona:viewer' } });
    expect(events[2].data).toMatchObject({ role: 'editor', user: { id: registered.body.user.id, _sandbox: 'created' } });
    expect(JSON.stringify(events)).not.toMatch(/secret-1|scrypt/);
    expect((await client.get('/events?events=auths.*')).body.data).toHaveLength(3);

    // Another sandbox sees none of it.
    expect((await sandboxClient(server.api).get('/events')).body.data).toEqual([]);
  });

  it('a failed login logs nothing', async () => {
    const client = sandboxClient(server.api);
    expect((await client.post('/auth/login', { username: 'viewer', password: 'wrong' })).status).toBe(401);
    expect((await client.get('/events')).body.data).toEqual([]);
  });
});
