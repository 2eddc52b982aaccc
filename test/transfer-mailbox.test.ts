import { describe, it, expect } from 'vitest';
import { sandboxClient, useServer } from './helpers/server.js';

/** The sandbox mailbox travels with the sandbox's export and import (contract section 7), without any password. */
const server = useServer();

describe('the mailbox in exports', () => {
  it('an export carries the messages, oldest first; an import into another sandbox replaces its mailbox', async () => {
    const source = sandboxClient(server.api);
    expect((await source.post('/auth/forgot-password', { email: 'abraham.fay@example.org' })).status).toBe(200);
    expect((await source.post('/auth/forgot-password', { email: 'nobody@example.com' })).status).toBe(200);
    const inbox = (await source.get('/inbox/messages')).body.data;
    expect(inbox).toHaveLength(2);

    const document = (await source.get('/sandbox/export')).body;
    const [exported] = document.sandboxes;
    expect(exported.mailbox).toEqual([...inbox].reverse());
    expect(JSON.stringify(document)).not.toMatch(/scrypt|hash/);

    const target = sandboxClient(server.api);
    expect((await target.post('/auth/forgot-password', { email: 'viewer@mockapi.local' })).status).toBe(200);
    const imported = await target.post('/sandbox/import', document);
    expect(imported.status, imported.text).toBe(200);
    expect((await target.get('/inbox/messages')).body.data).toEqual(inbox);
    // A token that travelled is not live in the new sandbox: ask again.
    const token = inbox.find((m: { token: string | null }) => m.token).token;
    expect((await target.post('/auth/reset-password', { token, password: 'new-one' })).body.code).toBe('INVALID_RESET_TOKEN');

    // A reset purges it.
    expect((await target.post('/sandbox/reset')).status).toBe(200);
    expect((await target.get('/inbox/messages')).body).toMatchObject({ data: [], pagination: { total: 0 } });
  });
});
