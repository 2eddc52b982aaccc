import { afterEach, describe, expect, it } from 'vitest';
import { sandboxClient } from './helpers/server.js';
import { configuredServers } from './helpers/configured.js';
import { runCli } from './helpers/cli.js';
import { create } from './helpers/problems.js';
import { eventually, startReceiver, type Receiver } from './helpers/receiver.js';

const servers = configuredServers();
let target: Receiver | undefined;
afterEach(async () => target?.close());

describe('deliveries across a kill', () => {
  it('SIGKILL with pending deliveries: after a restart all are delivered, none lost, none succeeded twice; events logged meanwhile by the CLI too', async () => {
    target = await startReceiver([], 'hang');
    const config = { webhooks: { timeoutMs: 5_000, attempts: 3, backoffMs: 20 } };
    const first = await servers.serve(config, undefined, { cli: true });
    const client = sandboxClient(first.api);
    const hook = (await client.post('/webhooks', { url: target.url, events: ['*'] })).body;
    const records = [];
    for (let i = 0; i < 12; i++) records.push(await create(client, 'todos', { user_id: 1, title: `todo ${i}` }));
    await target.waitFor(1);
    // Every event has become a pending delivery (the dispatcher queues them right after each write).
    await eventually(async () => (await client.get(`/webhooks/${hook.id}/deliveries?limit=50`)).body.data.length === 12);
    expect(await first.stop('SIGKILL')).toBeNull();

    // While no server runs: a CLI reset logs an event that must be delivered once one does.
    const reset = await runCli(['reset', '--sandbox', client.id, '--db', first.db]);
    expect(reset.code, reset.stderr).toBe(0);

    const hungBefore = target.received.length;
    target.setReplies([], 200);
    const second = await servers.serve(config, first.db);
    const again = sandboxClient(second.api, client.id);
    const deliveries = await eventually(async () => {
      const answer = await again.get(`/webhooks/${hook.id}/deliveries?limit=50`);
      const data = answer.body.data as { id: string; event: string; status: string; attempts: { status_code: number | null }[] }[];
      return data.length === 13 && data.every((d) => d.status === 'succeeded') ? data : undefined;
    }, 15_000);
    expect(deliveries.map((d) => d.event).sort()).toEqual([...Array(12).fill('todo.created'), 'sandbox.reset'].sort());
    // every delivery acknowledged exactly once, and each event sent under one delivery id
    const acknowledged = target.received.slice(hungBefore).map((r) => r.headers['x-service-delivery'] as string);
    expect(acknowledged.sort()).toEqual(deliveries.map((d) => d.id).sort());
    for (const d of deliveries) expect(d.attempts.filter((a) => a.status_code === 200)).toHaveLength(1);
    const createdIds = target.received.slice(hungBefore).map((r) => JSON.parse(r.body)).filter((b) => b.event === 'todo.created').map((b) => b.data.id);
    expect(createdIds.sort()).toEqual(records.map((r) => r.id).sort());
  });
});
