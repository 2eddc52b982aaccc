import { spawn, type ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import Stripe from 'stripe';
import { cliPath, sandboxClient } from './helpers/server.js';
import { configuredServers } from './helpers/configured.js';
import { runCli } from './helpers/cli.js';
import { runInProcess } from './helpers/cli-in-process.js';
import { create } from './helpers/problems.js';
import { eventually, startReceiver, type Receiver } from './helpers/receiver.js';

const servers = configuredServers();
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** Starts `mockapi webhook tail` and waits until it says it is tailing. */
async function startTail(args: string[]) {
  const proc: ChildProcess = spawn(process.execPath, [cliPath, 'webhook', 'tail', ...args], { env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stdout!.on('data', (chunk) => (stdout += chunk));
  proc.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((done) => proc.once('exit', (code) => done(code)));
  cleanups.push(() => {
    if (proc.exitCode === null) proc.kill('SIGKILL');
  });
  await eventually(async () => /tailing/.test(stderr) || (proc.exitCode !== null && Promise.reject(new Error(stderr))), 20_000);
  return {
    stderr: () => stderr,
    lines: () => stdout.split('\n').filter(Boolean),
    json: () => stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line)),
    stop: async (signal: NodeJS.Signals) => {
      proc.kill(signal);
      return exited;
    },
  };
}

describe('mockapi webhook tail', () => {
  it('--json follows a server in another process: events, delivery outcomes and a CLI reset; --forward-to signs and posts each event; exits 0 on SIGTERM', async () => {
    const hookTarget: Receiver = await startReceiver([503, 200]);
    const forwardTarget: Receiver = await startReceiver();
    cleanups.push(() => hookTarget.close(), () => forwardTarget.close());
    const server = await servers.serve({ webhooks: { timeoutMs: 500, attempts: 3, backoffMs: 20 } });
    const client = sandboxClient(server.api);
    await client.post('/webhooks', { url: hookTarget.url, events: ['post.created'] });
    const secret = 'whsec_tail_secret';
    const tail = await startTail(['--json', '--db', server.db, '--forward-to', forwardTarget.url, '--secret', secret]);

    const post = await create(client, 'posts', { user_id: 1 });
    await client.patch('/users/3', { name: 'Tailed' });
    const reset = await runCli(['reset', '--sandbox', client.id, '--db', server.db]);
    expect(reset.code, reset.stderr).toBe(0);

    const lines = await eventually(async () => {
      const json = tail.json();
      const types = json.map((l) => l.type);
      return types.filter((t) => t === 'delivery').length >= 2 && types.filter((t) => t === 'forward').length >= 3 ? json : undefined;
    });
    const events = lines.filter((l) => l.type === 'event');
    expect(events.map((e) => e.event)).toEqual(['post.created', 'user.updated', 'sandbox.reset']);
    expect(events[0]).toMatchObject({ sandbox: client.id, id: expect.stringMatching(/^evt_/), data: post });
    const deliveries = lines.filter((l) => l.type === 'delivery');
    expect(deliveries.map((d) => [d.attempt, d.status_code, d.status])).toEqual([
      [1, 503, 'retrying'],
      [2, 200, 'succeeded'],
    ]);
    expect(deliveries[0]).toMatchObject({ sandbox: client.id, event: 'post.created', url: hookTarget.url });
    const forwards = lines.filter((l) => l.type === 'forward');
    expect(forwards.map((f) => [f.event, f.status_code])).toEqual([
      ['post.created', 200],
      ['user.updated', 200],
      ['sandbox.reset', 200],
    ]);
    await forwardTarget.waitFor(3);
    const first = forwardTarget.received[0];
    expect(first.headers['x-service-event']).toBe('post.created');
    // As a delivery's: the body's id is the forward's delivery id, the event's rides along.
    expect(JSON.parse(first.body)).toMatchObject({ id: first.headers['x-service-delivery'], event_id: events[0].id });
    expect(first.headers['x-service-delivery']).toBe(forwards[0].delivery);
    const verified = new Stripe('sk_test_x').webhooks.constructEvent(first.body, first.headers['x-service-signature'] as string, secret);
    expect((verified as unknown as { data: unknown }).data).toEqual(post);

    expect(await tail.stop('SIGTERM')).toBe(0);
  });

  it('prints readable lines, filtered by --sandbox and --event, replays with --since, and exits 0 on SIGINT', async () => {
    const server = await servers.serve({});
    const a = sandboxClient(server.api);
    const b = sandboxClient(server.api);
    await create(a, 'todos', { user_id: 1, title: 'before the tail' });
    const tail = await startTail(['--db', server.db, '--sandbox', a.id, '--event', 'todos.*', '--since', 'all']);
    await create(a, 'todos', { user_id: 1, title: 'while tailing' });
    await create(a, 'users');
    await create(b, 'todos', { user_id: 1, title: 'other sandbox' });
    const lines = await eventually(async () => (tail.lines().length >= 2 ? tail.lines() : undefined));
    await new Promise((done) => setTimeout(done, 400));
    expect(tail.lines()).toHaveLength(2);
    expect(lines[0]).toContain('todo.created');
    expect(lines[0]).toContain('before the tail');
    expect(lines[1]).toContain(a.id);
    expect(lines[1]).toContain('while tailing');
    expect(await tail.stop('SIGINT')).toBe(0);
  });

  it('prints an event written right after it starts, while it is still loading, and none written before', async () => {
    const server = await servers.serve({});
    const client = sandboxClient(server.api);
    await create(client, 'todos', { user_id: 1, title: 'before the tail' });
    // No waiting for "tailing": the event lands while the command is still loading its modules, but
    // after Node itself started (a preload says so): the tail shows what was logged from the
    // process's start, and on a loaded machine an exec can take longer than a request.
    const nodeUp = `data:text/javascript,process.stderr.write('node up\\n')`;
    const proc = spawn(process.execPath, ['--import', nodeUp, cliPath, 'webhook', 'tail', '--json', '--db', server.db], { env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    cleanups.push(() => {
      if (proc.exitCode === null) proc.kill('SIGKILL');
    });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (chunk) => (stdout += chunk));
    proc.stderr.on('data', (chunk) => (stderr += chunk));
    await eventually(async () => stderr.includes('node up'), 25_000);
    await create(client, 'todos', { user_id: 1, title: 'right after the start' });
    expect(stderr).not.toMatch(/tailing/);
    // A cold CLI start on a busy 2-core machine (the whole suite beside it) can take ten seconds.
    const events = await eventually(async () => (/tailing/.test(stderr) && stdout ? stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line)) : undefined), 25_000);
    await new Promise((done) => setTimeout(done, 300));
    expect(events.map((event: { data: { title: string } }) => event.data.title)).toEqual(['right after the start']);
  });

  it('refuses bad options with exit 2', async () => {
    // The real binary once; the CLI in this worker for each option.
    const real = await runCli(['webhook', 'tail', '--event', 'Bad!']);
    expect(real.code, real.stderr).toBe(2);
    expect(real.stderr.trim().split('\n')).toHaveLength(1);
    for (const args of [['--event', 'Bad!'], ['--since', 'yesterday'], ['--since', 'evt_0000000000001'], ['--forward-to', 'ftp://x'], ['--signature', 'md5'], ['--sandbox', 'a b']]) {
      const run = await runInProcess(['webhook', 'tail', ...args], tmpdir());
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});
