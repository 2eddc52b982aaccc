import { statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configuredServers, readFile } from './helpers/configured.js';
import { eventually, startReceiver } from './helpers/receiver.js';
import { sandboxClient } from './helpers/server.js';

/**
 * Issue 28, defect 10: mailbox messages and webhook deliveries were stored outside every quota
 * (a 900 KB address stored 2.7 MB, 200 messages a sandbox; 20 subscriptions × 100 kept
 * deliveries × the record's size), so 20 requests grew the file by 52 MB. They count in
 * `limits.sandboxBytes` and make the sandbox hold data now; as logs, their oldest entries make
 * room when the sandbox reaches the bound, and an address longer than 254 characters gets no mail.
 */
const servers = configuredServers();
const forgot = (client: ReturnType<typeof sandboxClient>, email: string) => client.post('/auth/forgot-password', { email });

/** The file's own account of what a sandbox stores: records, snapshots, mailbox and delivery bodies. */
function stored(file: string, key: string): { total: number; mailbox: number; deliveries: number; holds: number } {
  return readFile(file, (db) => {
    const sid = db.prepare(`SELECT sid FROM sandboxes WHERE key = ?`).pluck().get(key) as number | undefined;
    if (sid === undefined) return { total: 0, mailbox: 0, deliveries: 0, holds: 0 };
    const sum = (sql: string) => db.prepare(sql).pluck().get(sid) as number;
    const rows = (table: string) => sum(`SELECT coalesce(sum(coalesce(length(CAST(doc AS BLOB)), length(CAST(id AS TEXT)))), 0) FROM ${table} WHERE sid = ?`);
    const mailbox = sum(`SELECT coalesce(sum(length(CAST(doc AS BLOB))), 0) FROM mailbox WHERE sid = ?`);
    const deliveries = sum(`SELECT coalesce(sum(length(CAST(body AS BLOB))), 0) FROM deliveries WHERE sid = ?`);
    const holds = sum(`SELECT holds FROM sandboxes WHERE sid = ?`);
    return { total: rows('overlay') + rows('snapshot_rows') + mailbox + deliveries, mailbox, deliveries, holds };
  });
}

const fileBytes = (db: string) => [db, `${db}-wal`].reduce((sum, file) => sum + (statSync(file, { throwIfNoEntry: false })?.size ?? 0), 0);

describe('the mailbox within the quota', () => {
  it('an address longer than 254 characters stores no mail and is answered as any other: 20 of 900 KB leave the file as it was', async () => {
    const server = await servers.serve({});
    const client = sandboxClient(server.api);
    const usual = await forgot(client, 'nobody@example.com');
    expect(usual.status).toBe(200);
    const before = fileBytes(server.db);
    for (let i = 0; i < 20; i++) {
      const answer = await forgot(client, `${'a'.repeat(900_000)}${i}@example.com`);
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual(usual.body);
    }
    expect(fileBytes(server.db) - before).toBeLessThan(2_000_000);
    // The one message to a real address is all the mailbox holds.
    expect((await client.get('/sandbox')).body.quotas.bytes.used).toBe(stored(server.db, client.id).mailbox);
    expect(stored(server.db, client.id).mailbox).toBeLessThan(4_000);
  });

  it('messages count in quotas.bytes and make the sandbox hold data; at the bound the oldest make room, and records still fit', async () => {
    const limit = 30_000;
    const server = await servers.serve({ limits: { sandboxBytes: limit } });
    const client = sandboxClient(server.api);
    expect((await forgot(client, 'admin@mockapi.local')).status).toBe(200);
    const one = stored(server.db, client.id);
    expect(one.mailbox).toBeGreaterThan(500);
    expect(one.holds).toBe(1);
    expect((await client.get('/sandbox')).body.quotas.bytes).toEqual({ used: one.total, limit });

    for (let i = 0; i < 60; i++) expect((await forgot(client, `someone${i}@example.com`)).status).toBe(200);
    const full = stored(server.db, client.id);
    expect(full.total).toBeLessThanOrEqual(limit);
    expect(full.total).toBeGreaterThan(limit - 3_000);
    // A record write takes the room of the oldest messages rather than being refused.
    expect((await client.post('/custom/notes', { body: 'x'.repeat(10_000) })).status).toBe(200);
    const after = stored(server.db, client.id);
    expect(after.total).toBeLessThanOrEqual(limit);
    expect((await client.get('/sandbox')).body.quotas.bytes.used).toBe(after.total);
  });
});

describe('webhook deliveries within the quota', () => {
  it('20 subscriptions × record-sized bodies: deliveries count in quotas.bytes, the sandbox stays within its bound, and so does the file', async () => {
    const receiver = await startReceiver();
    // One write's 20 deliveries in flight take 600 KB: they are never dropped before they are sent.
    const limit = 1_000_000;
    const server = await servers.serve({ limits: { sandboxBytes: limit } });
    servers.defer(() => receiver.close());
    const client = sandboxClient(server.api);
    for (let i = 0; i < 20; i++) {
      const created = await client.post('/webhooks', { url: `${receiver.url}/hook${i}`, events: ['*'] });
      expect(created.status, created.text).toBe(200);
    }
    const before = fileBytes(server.db);
    const body = 'y'.repeat(30_000);
    for (let i = 0; i < 10; i++) {
      // Deliveries still pending count too: a write may have to wait for them to be sent (403 changes nothing).
      await eventually(async () => (await client.post('/custom/blobs', { body })).status === 200, 20_000, 100);
    }
    await receiver.waitFor(200, 20_000);
    const settled = await eventually(async () => {
      const now = stored(server.db, client.id);
      const used = (await client.get('/sandbox')).body.quotas.bytes.used;
      return used === now.total && now;
    });
    expect(settled.deliveries).toBeGreaterThan(0);
    expect(settled.total).toBeLessThanOrEqual(limit);
    // 200 deliveries of 30 KB were 6 MB on file; the WAL is truncated after 5 s without writes.
    await eventually(async () => fileBytes(server.db) - before < 3_000_000, 15_000, 250);
  }, 60_000);
});
