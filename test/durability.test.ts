import { describe, it, expect, afterAll } from 'vitest';
import { startServer, sandboxClient, type RunningServer } from './helpers/server.js';
import { BASELINE, COLLECTIONS, create, newRecord, totals, type Client, type Collection } from './helpers/problems.js';

const started: RunningServer[] = [];
afterAll(async () => {
  // The second server uses the first one's database file: clean up in reverse order.
  for (const server of started.reverse()) await server.cleanup();
});

/** What a sandbox must see after the crash: the last acknowledged state of every record it touched. */
type Expected = Map<string, { collection: Collection; id: string | number; record: any | null }>;

async function workload(client: Client, tag: string, offset: number): Promise<{ expected: Expected; writes: number; counts: Record<Collection, number> }> {
  const expected: Expected = new Map();
  const counts = { ...BASELINE };
  let writes = 0;
  const remember = (collection: Collection, id: string | number, record: any | null) => {
    expected.set(`${collection}/${id}`, { collection, id, record });
    writes++;
  };
  const ok = async (pending: Promise<{ status: number; text: string; body: any }>) => {
    const answer = await pending;
    expect(answer.status, answer.text).toBe(200);
    return answer.body;
  };

  const users = [];
  for (let i = 0; i < 5; i++) {
    const user = await create(client, 'users', { name: `${tag} user ${i}` });
    users.push(user);
    remember('users', user.id, user);
    counts.users++;
  }
  for (let i = 0; i < 4; i++) {
    const post = await create(client, 'posts', { user_id: users[i].id, title: `${tag} post ${i}` });
    remember('posts', post.id, post);
    counts.posts++;
    const comment = await create(client, 'comments', { post_id: post.id });
    remember('comments', comment.id, comment);
    counts.comments++;
  }
  const todo = await create(client, 'todos', { user_id: users[0].id });
  remember('todos', todo.id, todo);
  counts.todos++;

  // Updates of baseline and created records, some twice (the last one must win).
  for (let i = 1; i <= 4; i++) remember('users', offset + i, await ok(client.patch(`/users/${offset + i}`, { name: `${tag} renamed ${i}` })));
  remember('users', offset + 1, await ok(client.patch(`/users/${offset + 1}`, { name: `${tag} renamed again`, phone: null })));
  for (let i = 1; i <= 3; i++) {
    remember('posts', offset + i, await ok(client.put(`/posts/${offset + i}`, { user_id: users[0].id, title: `${tag} replaced ${i}`, body: 'Replaced body' })));
  }
  remember('todos', todo.id, await ok(client.patch(`/todos/${todo.id}`, { completed: true })));
  remember('users', users[1].id, await ok(client.put(`/users/${users[1].id}`, newRecord('users', { name: `${tag} replaced user` }))));

  // Deletes of baseline and created records.
  for (let i = 1; i <= 3; i++) {
    await ok(client.delete(`/comments/${offset * 5 + i}`));
    remember('comments', offset * 5 + i, null);
    counts.comments--;
  }
  await ok(client.delete(`/todos/${offset + 1}`));
  remember('todos', offset + 1, null);
  counts.todos--;
  await ok(client.delete(`/users/${users[4].id}`));
  remember('users', users[4].id, null);
  counts.users--;
  await ok(client.delete(`/users/${offset + 5}`));
  remember('users', offset + 5, null);
  counts.users--;

  return { expected, writes, counts };
}

describe('acknowledged writes survive SIGKILL', () => {
  it('a restarted server on the same file sees every acknowledged write', async () => {
    const first = await startServer({ cli: true });
    started.push(first);
    const clients = [sandboxClient(first.api), sandboxClient(first.api)];
    const runs = await Promise.all([workload(clients[0], 'alpha', 0), workload(clients[1], 'beta', 10)]);
    expect(runs[0].writes + runs[1].writes).toBeGreaterThanOrEqual(50);

    await first.stop('SIGKILL');
    expect(first.proc.signalCode).toBe('SIGKILL');

    // Only the killed server needs a process of its own; the restart reads the file in-process.
    const second = await startServer({ db: first.db });
    started.push(second);
    for (const [index, run] of runs.entries()) {
      const client = sandboxClient(second.api, clients[index].id);
      for (const { collection, id, record } of run.expected.values()) {
        const answer = await client.get(`/${collection}/${id}`);
        if (record === null) expect(answer.status, `${collection}/${id} should stay deleted`).toBe(404);
        else expect(answer.body, `${collection}/${id}`).toEqual(record);
      }
      expect(await totals(client)).toEqual(run.counts);
    }

    // The two sandboxes still do not see each other, and a new one sees the baseline.
    const stranger = sandboxClient(second.api);
    expect(await totals(stranger)).toEqual(BASELINE);
    for (const run of runs) {
      for (const { collection, id } of run.expected.values()) {
        if (typeof id === 'string') expect((await stranger.get(`/${collection}/${id}`)).status).toBe(404);
      }
    }
    for (const collection of COLLECTIONS) {
      const answer = await stranger.get(`/${collection}/1`);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body).not.toHaveProperty('_sandbox');
    }
  }, 60_000);
});
