import { describe, expect, it } from 'vitest';
import { EventSource } from 'eventsource';
import { sandboxClient, useServer } from './helpers/server.js';
import { runCli } from './helpers/cli.js';
import { create, expectProblem } from './helpers/problems.js';

const server = useServer();

interface Frame {
  id?: string;
  event?: string;
  data?: string;
  retry?: string;
  comment?: string;
}

/** A raw SSE reader over fetch: frames as they arrive, so the test sees exactly what the server sends. */
async function openStream(sandbox: string, query = '', headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const response = await fetch(`${server.api}/events/stream${query}`, { headers: { cookie: `svc_identity=${sandbox}`, ...headers }, signal: controller.signal });
  const frames: Frame[] = [];
  let buffer = '';
  const reading = (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const frame: Frame = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) frame.comment = line.slice(1).trim();
            else {
              const colon = line.indexOf(':');
              (frame as Record<string, string>)[line.slice(0, colon)] = line.slice(colon + 1).trimStart();
            }
          }
          frames.push(frame);
        }
      }
    } catch {
      // aborted
    }
  })();
  const events = () => frames.filter((f) => f.event);
  return {
    response,
    frames,
    events,
    async waitFor(count: number, ms = 5_000) {
      const until = Date.now() + ms;
      while (events().length < count) {
        if (Date.now() > until) throw new Error(`stream got ${events().length} events, not ${count}`);
        await new Promise((done) => setTimeout(done, 20));
      }
      return events();
    },
    close: async () => {
      controller.abort();
      await reading;
    },
  };
}

describe('GET /events/stream', () => {
  it('opens with retry and a comment, then sends each event with id, event and data; filters; only the own sandbox', async () => {
    const a = sandboxClient(server.api);
    const b = sandboxClient(server.api);
    const stream = await openStream(a.id);
    const filtered = await openStream(a.id, '?events=users.*');
    const other = await openStream(b.id);
    try {
      expect(stream.response.status).toBe(200);
      expect(stream.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      await new Promise((done) => setTimeout(done, 100));
      expect(stream.frames[0]).toMatchObject({ retry: '2000', comment: expect.any(String) });

      const post = await create(a, 'posts', { user_id: 1 });
      const user = await create(a, 'users');
      await create(b, 'todos', { user_id: 1 });
      const [first, second] = await stream.waitFor(2);
      const logged = (await a.get('/events')).body.data;
      expect(first).toEqual({ id: logged[1].id, event: 'post.created', data: JSON.stringify(logged[1]) });
      expect(JSON.parse(first.data!).data).toEqual(post);
      expect(JSON.parse(second.data!).data).toEqual(user);
      expect((await filtered.waitFor(1)).map((f) => f.event)).toEqual(['user.created']);
      expect((await other.waitFor(1)).map((f) => f.event)).toEqual(['todo.created']);
      await new Promise((done) => setTimeout(done, 150));
      expect(stream.events()).toHaveLength(2);
      expect(other.events()).toHaveLength(1);
      expect(filtered.events()).toHaveLength(1);
    } finally {
      await Promise.all([stream.close(), filtered.close(), other.close()]);
    }
  });

  it('replays what was missed after Last-Event-ID (or since; the header wins), everything for an id no longer in the log', async () => {
    const client = sandboxClient(server.api);
    for (let i = 0; i < 4; i++) await create(client, 'todos', { user_id: 1, title: `t${i}` });
    const logged = ((await client.get('/events')).body.data as { id: string }[]).reverse();
    const resumed = await openStream(client.id, `?since=${logged[0].id}`, { 'last-event-id': logged[1].id });
    const bySince = await openStream(client.id, `?since=${logged[2].id}&events=todo.*`);
    const unknown = await openStream(client.id, '', { 'last-event-id': 'evt_zzzzzzzzzzzz' });
    try {
      expect((await resumed.waitFor(2)).map((f) => f.id)).toEqual([logged[2].id, logged[3].id]);
      expect((await bySince.waitFor(1)).map((f) => f.id)).toEqual([logged[3].id]);
      expect((await unknown.waitFor(4)).map((f) => f.id)).toEqual(logged.map((e) => e.id));
      await create(client, 'todos', { user_id: 1 });
      expect(await resumed.waitFor(3)).toHaveLength(3);
    } finally {
      await Promise.all([resumed.close(), bySince.close(), unknown.close()]);
    }
    expectProblem(await client.get('/events/stream?since=bogus'), 400, 'INVALID_QUERY');
    expectProblem(await client.get('/events/stream?events=BAD'), 400, 'INVALID_QUERY');
  });

  it('a reset by the CLI (another process) reaches an open stream', async () => {
    const client = sandboxClient(server.api);
    await create(client, 'posts', { user_id: 1 });
    const stream = await openStream(client.id, '?events=sandboxes.*');
    try {
      const run = await runCli(['reset', '--sandbox', client.id, '--db', server.db]);
      expect(run.code, run.stderr).toBe(0);
      const [reset] = await stream.waitFor(1);
      expect(reset.event).toBe('sandbox.reset');
      expect(JSON.parse(reset.data!).data).toMatchObject({ sandbox: client.id, purged: { posts: 1 } });
    } finally {
      await stream.close();
    }
  });

  it('an EventSource client that loses its connection resumes from Last-Event-ID without a gap or a duplicate', async () => {
    const client = sandboxClient(server.api);
    let cut: (() => void) | undefined;
    let connections = 0;
    const source = new EventSource(`${server.api}/events/stream`, {
      fetch: async (input, init) => {
        connections++;
        const response = await fetch(input, { ...init, headers: { ...init?.headers, cookie: `svc_identity=${client.id}` } });
        // The first connection can be cut from the test: its body ends as a dropped connection would.
        if (connections > 1 || !response.body) return response;
        const reader = response.body.getReader();
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            cut = () => {
              void reader.cancel();
              controller.close();
            };
          },
          async pull(controller) {
            const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
            if (done) controller.close();
            else controller.enqueue(value);
          },
        });
        return new Response(body, { status: response.status, headers: response.headers });
      },
    });
    const seen: string[] = [];
    const ids: string[] = [];
    source.addEventListener('todo.created', (message) => {
      seen.push(JSON.parse(message.data).data.title);
      ids.push(message.lastEventId);
    });
    try {
      await new Promise<void>((done) => source.addEventListener('open', () => done(), { once: true }));
      await create(client, 'todos', { user_id: 1, title: 'one' });
      await create(client, 'todos', { user_id: 1, title: 'two' });
      while (seen.length < 2) await new Promise((done) => setTimeout(done, 20));
      cut!();
      // Logged while the client is away (it waits `retry: 2000` before reconnecting).
      await create(client, 'todos', { user_id: 1, title: 'three' });
      await create(client, 'todos', { user_id: 1, title: 'four' });
      const until = Date.now() + 8_000;
      while (seen.length < 4 && Date.now() < until) await new Promise((done) => setTimeout(done, 50));
      await create(client, 'todos', { user_id: 1, title: 'five' });
      while (seen.length < 5 && Date.now() < until) await new Promise((done) => setTimeout(done, 20));
      expect(connections).toBe(2);
      expect(seen).toEqual(['one', 'two', 'three', 'four', 'five']);
      const logged = ((await client.get('/events')).body.data as { id: string }[]).map((e) => e.id).reverse();
      expect(ids).toEqual(logged);
    } finally {
      source.close();
    }
  });
});

describe('event streams at shutdown', () => {
  it('SIGTERM ends open streams cleanly (the body ends, not a cut connection) and the server exits 0', async () => {
    const { startServer } = await import('./helpers/server.js');
    const own = await startServer({ cli: true });
    try {
      const response = await fetch(`${own.api}/events/stream`, { headers: { cookie: 'svc_identity=shutdown-test' } });
      const reader = response.body!.getReader();
      await reader.read(); // the opening retry and comment
      const exit = own.stop('SIGTERM');
      let ended: 'clean' | 'cut';
      try {
        while (!(await reader.read()).done);
        ended = 'clean';
      } catch {
        ended = 'cut';
      }
      expect(ended).toBe('clean');
      expect(await exit).toBe(0);
    } finally {
      await own.cleanup();
    }
  });
});
