import { afterEach, describe, expect, it } from 'vitest';
import Stripe from 'stripe';
import { verify as verifyGithub } from '@octokit/webhooks-methods';
import { Webhook } from 'standardwebhooks';
import { sandboxClient } from './helpers/server.js';
import { configuredServers, readFile } from './helpers/configured.js';
import { create, expectProblem, expectValidation } from './helpers/problems.js';
import { eventually, startReceiver, type Receiver } from './helpers/receiver.js';

const servers = configuredServers();
const fast = { webhooks: { timeoutMs: 400, attempts: 3, backoffMs: 20 } };
const receivers: Receiver[] = [];
afterEach(async () => {
  while (receivers.length) await receivers.pop()!.close();
});
const receiver = async (...args: Parameters<typeof startReceiver>) => {
  const r = await startReceiver(...args);
  receivers.push(r);
  return r;
};

/** The subscription's deliveries once none is pending. */
const settled = (client: ReturnType<typeof sandboxClient>, hook: string, count = 1) =>
  eventually(async () => {
    const answer = await client.get(`/webhooks/${hook}/deliveries`);
    const data = answer.body.data as { status: string }[];
    return data.length >= count && data.every((d) => d.status !== 'pending') ? answer.body.data : undefined;
  });

describe('webhook subscriptions', () => {
  it('create, read, list, patch and delete; 422 for invalid ones; another sandbox cannot see them; they survive a reset', async () => {
    const server = await servers.serve(fast);
    const client = sandboxClient(server.api);
    const created = await client.post('/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['post.created', 'users.*'] });
    expect(created.status, created.text).toBe(200);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^wh_[0-9a-f-]{36}$/),
      url: 'http://127.0.0.1:9/hook',
      events: ['post.created', 'users.*'],
      secret: expect.stringMatching(/^whsec_/),
      signature: 'timestamped',
      created_at: expect.stringMatching(/Z$/),
    });
    const id = created.body.id;
    expect((await client.get(`/webhooks/${id}`)).body).toEqual(created.body);
    expect((await client.get('/webhooks')).body).toMatchObject({ data: [created.body], pagination: { total: 1 } });
    const patched = await client.patch(`/webhooks/${id}`, { events: ['*'], signature: 'sha256', secret: 's3cret' });
    expect(patched.body).toEqual({ ...created.body, events: ['*'], signature: 'sha256', secret: 's3cret' });

    expectValidation(await client.post('/webhooks', { events: ['*'] }), ['/url']);
    expectValidation(await client.post('/webhooks', { url: 'ftp://x/y', events: ['*'] }), ['/url']);
    expectValidation(await client.post('/webhooks', { url: 'not a url', events: ['*'] }), ['/url']);
    expectValidation(await client.post('/webhooks', { url: 'http://x/', events: [] }), ['/events']);
    expectValidation(await client.post('/webhooks', { url: 'http://x/', events: ['Bad pattern'] }), ['/events/0']);
    expectValidation(await client.post('/webhooks', { url: 'http://x/', events: ['*'], signature: 'md5' }), ['/signature']);
    expectValidation(await client.post('/webhooks', { url: 'http://x/', events: ['*'], color: 'red' }), ['/color']);
    expectValidation(await client.post('/webhooks', { url: 'http://x/', events: ['*'], signature: 'standard', secret: 'plain' }), ['/secret']);
    expectValidation(await client.patch(`/webhooks/${id}`, { url: 'mailto:a@b.c' }), ['/url']);
    expectProblem(await client.post('/webhooks', '[1]'), 400, 'INVALID_BODY');

    const other = sandboxClient(server.api);
    expectProblem(await other.get(`/webhooks/${id}`), 404, 'NOT_FOUND');
    expectProblem(await other.patch(`/webhooks/${id}`, { events: ['*'] }), 404, 'NOT_FOUND');
    expectProblem(await other.delete(`/webhooks/${id}`), 404, 'NOT_FOUND');
    expectProblem(await other.get(`/webhooks/${id}/deliveries`), 404, 'NOT_FOUND');
    expect((await other.get('/webhooks')).body.data).toEqual([]);

    await client.post('/sandbox/reset');
    expect((await client.get(`/webhooks/${id}`)).status).toBe(200);
    // a subscription alone does not make the sandbox hold data
    expect((await client.get('/sandbox')).status).toBe(200);
    expect((await client.delete(`/webhooks/${id}`)).status).toBe(200);
    expectProblem(await client.get(`/webhooks/${id}`), 404, 'NOT_FOUND');
    expectProblem(await client.put(`/webhooks/${id}`, {}), 405, 'METHOD_NOT_ALLOWED');
  });

  it('allowHosts refuses other targets', async () => {
    const server = await servers.serve({ webhooks: { ...fast.webhooks, allowHosts: ['localhost', '127.0.0.1'] } });
    const client = sandboxClient(server.api);
    expect((await client.post('/webhooks', { url: 'http://127.0.0.1:1234/x', events: ['*'] })).status).toBe(200);
    expectValidation(await client.post('/webhooks', { url: 'https://example.com/x', events: ['*'] }), ['/url']);
  });
});

describe('webhook deliveries to a real receiver', () => {
  it('POST every header and the body, signed in each format, verified by the libraries receivers use', async () => {
    const server = await servers.serve(fast);
    const target = await receiver();
    const client = sandboxClient(server.api);
    const stripeHook = (await client.post('/webhooks', { url: `${target.url}/stripe`, events: ['posts.created'] })).body;
    const githubHook = (await client.post('/webhooks', { url: `${target.url}/github`, events: ['post.*'], signature: 'sha256', secret: 'gh secret' })).body;
    const standardHook = (await client.post('/webhooks', { url: `${target.url}/standard`, events: ['*'], signature: 'standard' })).body;
    const post = await create(client, 'posts', { user_id: 1, title: 'héllo ✓' });
    await target.waitFor(3);
    const events = (await client.get('/events')).body.data;
    for (const request of target.received) {
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.headers['user-agent']).toBe('Service-Webhook-Dispatcher/1.0');
      expect(request.headers['x-service-event']).toBe('post.created');
      expect(request.headers['x-service-delivery']).toMatch(/^del_[0-9a-f-]{36}$/);
      // The body's id is the delivery's (contract section 8, issue 28); the event's rides along.
      const delivery = request.headers['x-service-delivery'];
      expect(JSON.parse(request.body)).toEqual({ id: delivery, event_id: events[0].id, event: 'post.created', timestamp: events[0].timestamp, data: post });
    }
    const signatures = target.received.map((r) => r.headers['x-service-signature'] as string);
    const stripeRequest = target.received[signatures.findIndex((s) => s.startsWith('t='))];
    const githubRequest = target.received[signatures.findIndex((s) => s.startsWith('sha256='))];
    const standardRequest = target.received[signatures.findIndex((s) => s.startsWith('v1,'))];
    const stripeEvent = new Stripe('sk_test_x').webhooks.constructEvent(stripeRequest.body, stripeRequest.headers['x-service-signature'] as string, stripeHook.secret);
    expect((stripeEvent as unknown as { data: unknown }).data).toEqual(post);
    expect(await verifyGithub(githubHook.secret, githubRequest.body, githubRequest.headers['x-service-signature'] as string)).toBe(true);
    const standardHeaders = Object.fromEntries(['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [h, standardRequest.headers[h] as string]));
    expect(standardHeaders['webhook-id']).toBe(standardRequest.headers['x-service-delivery']);
    expect(new Webhook(standardHook.secret).verify(standardRequest.body, standardHeaders)).toEqual(JSON.parse(standardRequest.body));

    const [delivery] = await settled(client, stripeHook.id);
    expect(delivery).toEqual({
      id: stripeRequest.headers['x-service-delivery'],
      webhook_id: stripeHook.id,
      event: 'post.created',
      status: 'succeeded',
      attempts: [{ at: expect.stringMatching(/Z$/), status_code: 200, duration_ms: expect.any(Number), error: null }],
      created_at: expect.stringMatching(/Z$/),
    });
  });

  it('500, 500, 200: three attempts of one delivery id, then succeeded; a hanging receiver fails after the timeout while the API answers', async () => {
    const server = await servers.serve(fast);
    const target = await receiver([500, 500, 200]);
    const client = sandboxClient(server.api);
    const hook = (await client.post('/webhooks', { url: target.url, events: ['todo.updated'] })).body;
    await client.patch('/todos/1', { completed: true });
    await target.waitFor(3);
    const ids = target.received.map((r) => r.headers['x-service-delivery']);
    expect(new Set(ids).size).toBe(1);
    const [delivery] = await settled(client, hook.id);
    expect(delivery.status).toBe('succeeded');
    expect(delivery.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 500, 200]);

    target.setReplies([], 'hang');
    await client.patch('/todos/2', { completed: true });
    await target.waitFor(4);
    // the receiver hangs: the API keeps answering
    for (let i = 0; i < 5; i++) expect((await client.get(`/posts/${i + 1}`)).status).toBe(200);
    expect((await client.patch('/todos/3', { completed: true })).status).toBe(200);
    const deliveries = await settled(client, hook.id, 3);
    const hung = deliveries.find((d: { id: string; status: string }) => d.id !== delivery.id && d.status === 'failed');
    expect(hung.attempts).toHaveLength(3);
    for (const attempt of hung.attempts) {
      expect(attempt.status_code).toBeNull();
      expect(attempt.error).toMatch(/400 ms/);
    }
  });

  it('a 4xx fails at once; a manual retry makes one more attempt with the same delivery id; ping sends test.ping', async () => {
    const server = await servers.serve(fast);
    const target = await receiver([410]);
    const client = sandboxClient(server.api);
    const hook = (await client.post('/webhooks', { url: target.url, events: ['user.deleted'] })).body;
    await client.delete('/users/5');
    const [failed] = await settled(client, hook.id);
    expect(failed.status).toBe('failed');
    expect(failed.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([410]);

    const retried = await client.post(`/webhooks/deliveries/${failed.id}/retry`);
    expect(retried.status, retried.text).toBe(200);
    expect(retried.body.id).toBe(failed.id);
    const [after] = await settled(client, hook.id);
    expect(after.status).toBe('succeeded');
    expect(after.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([410, 200]);
    expect(target.received.map((r) => r.headers['x-service-delivery'])).toEqual([failed.id, failed.id]);
    expect(target.bodies().map((b) => b.id)).toEqual([failed.id, failed.id]);
    expectProblem(await sandboxClient(server.api).post(`/webhooks/deliveries/${failed.id}/retry`), 404, 'NOT_FOUND');

    const ping = await client.post(`/webhooks/${hook.id}/ping`);
    expect(ping.status, ping.text).toBe(200);
    expect(ping.body).toMatchObject({ event: 'test.ping', status: 'pending' });
    await target.waitFor(3);
    expect(target.received[2].headers['x-service-event']).toBe('test.ping');
    expect(JSON.parse(target.received[2].body)).toMatchObject({ id: ping.body.id, event_id: expect.stringMatching(/^evt_/), event: 'test.ping', data: { webhook: hook.id } });
    // pings are not changes: the log does not hold them
    expect((await client.get('/events?events=test.*')).body.data).toEqual([]);
  });

  it('an attempt that ends after its subscription was deleted leaves nothing behind', async () => {
    const server = await servers.serve({ webhooks: { timeoutMs: 300, attempts: 1, backoffMs: 20 } });
    const target = await receiver([], 'hang');
    const client = sandboxClient(server.api);
    const hook = (await client.post('/webhooks', { url: target.url, events: ['*'] })).body;
    await client.patch('/todos/1', { completed: true });
    await target.waitFor(1);
    expect((await client.delete(`/webhooks/${hook.id}`)).status).toBe(200);
    await new Promise((done) => setTimeout(done, 700));
    const orphans = readFile(server.db, (db) => db.prepare(`SELECT count(*) FROM delivery_attempts WHERE delivery_id NOT IN (SELECT id FROM deliveries)`).pluck().get());
    expect(orphans).toBe(0);
  });

  it('a subscription receives only events logged after it was made', async () => {
    const server = await servers.serve(fast);
    const target = await receiver();
    const client = sandboxClient(server.api);
    await create(client, 'users');
    await client.patch('/todos/1', { completed: true });
    await client.post('/webhooks', { url: target.url, events: ['*'] });
    await client.delete('/comments/1');
    await target.waitFor(1);
    await new Promise((done) => setTimeout(done, 200));
    expect(target.bodies().map((b) => b.event)).toEqual(['comment.deleted']);
  });

  it("sandbox A's events never reach B's subscriptions; config subscriptions receive every sandbox's", async () => {
    const everything = await receiver();
    const server = await servers.serve({ webhooks: { ...fast.webhooks, subscriptions: [{ url: everything.url, events: ['*'], secret: 'cfg', signature: 'sha256' }] } });
    const forA = await receiver();
    const forB = await receiver();
    const a = sandboxClient(server.api);
    const b = sandboxClient(server.api);
    await a.post('/webhooks', { url: forA.url, events: ['*'] });
    await b.post('/webhooks', { url: forB.url, events: ['*'] });
    await create(a, 'posts', { user_id: 1 });
    await create(a, 'users');
    await create(b, 'todos', { user_id: 1 });
    await forA.waitFor(2);
    await forB.waitFor(1);
    await everything.waitFor(3);
    await new Promise((done) => setTimeout(done, 200));
    expect(forA.bodies().map((e) => e.event).sort()).toEqual(['post.created', 'user.created']);
    expect(forB.bodies().map((e) => e.event)).toEqual(['todo.created']);
    expect(everything.bodies().map((e) => e.event).sort()).toEqual(['post.created', 'todo.created', 'user.created']);
    for (const r of everything.received) expect(await verifyGithub('cfg', r.body, r.headers['x-service-signature'] as string)).toBe(true);
  });
});

describe('webhooks in export and import', () => {
  it('travel with the sandbox, secrets included; an import replaces them; bad ones are refused', async () => {
    const server = await servers.serve(fast);
    const a = sandboxClient(server.api);
    const hook = (await a.post('/webhooks', { url: 'http://127.0.0.1:9/a', events: ['post.*'], signature: 'standard' })).body;
    const exported = (await a.get('/sandbox/export')).body;
    expect(exported.sandboxes[0].webhooks).toEqual([hook]);

    const b = sandboxClient(server.api);
    await b.post('/webhooks', { url: 'http://127.0.0.1:9/b', events: ['*'] });
    const imported = await b.post('/sandbox/import', exported);
    expect(imported.status, imported.text).toBe(200);
    expect((await b.get('/webhooks')).body.data).toEqual([hook]);
    expect((await b.get('/sandbox/export')).body.sandboxes[0].webhooks).toEqual([hook]);

    const without = structuredClone(exported);
    delete without.sandboxes[0].webhooks;
    expect((await b.post('/sandbox/import', without)).status).toBe(200);
    expect((await b.get('/webhooks')).body.data).toEqual([]);

    for (const [change, path] of [
      [(h: any) => (h.url = 'ftp://x'), '/sandboxes/0/webhooks/0/url'],
      [(h: any) => (h.events = []), '/sandboxes/0/webhooks/0/events'],
      [(h: any) => (h.secret = 'not whsec'), '/sandboxes/0/webhooks/0/secret'],
      [(h: any) => (h.signature = 'md5'), '/sandboxes/0/webhooks/0/signature'],
      [(h: any) => (h.color = 'red'), '/sandboxes/0/webhooks/0/color'],
    ] as const) {
      const bad = structuredClone(exported);
      change(bad.sandboxes[0].webhooks[0]);
      const answer = await b.post('/sandbox/import', bad);
      expect(answer.status, answer.text).toBe(422);
      expect(answer.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    }
    const twice = structuredClone(exported);
    twice.sandboxes[0].webhooks.push(twice.sandboxes[0].webhooks[0]);
    expect((await b.post('/sandbox/import', twice)).body.errors[0].path).toBe('/sandboxes/0/webhooks/1/id');
    expect((await b.get('/webhooks')).body.data).toEqual([]);
  });
});
