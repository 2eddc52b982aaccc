import { describe, expect, it } from 'vitest';
import { readFile } from './helpers/configured.js';
import { create } from './helpers/problems.js';
import { sandboxClient, useServer } from './helpers/server.js';

// Event ids (issue 28, contract section 15): opaque, sorting in the sandbox's log order, and
// telling a sandbox nothing of what the others wrote in between (one global counter did).
const server = useServer();
const fresh = () => sandboxClient(server.api);
type Client = ReturnType<typeof fresh>;

/** The sandbox's event ids, oldest first. */
const ids = async (client: Client, query = '') => ((await client.get(`/events?limit=100${query}`)).body.data as { id: string }[]).map((e) => e.id).reverse();
/** How far apart two ids are, read as the base-36 numbers they are today. */
const gap = (a: string, b: string) => parseInt(b.slice(4), 36) - parseInt(a.slice(4), 36);

/** The `id:` lines an event stream sends within `ms`. */
async function streamIds(client: Client, headers: Record<string, string>, ms = 400): Promise<string[]> {
  const controller = new AbortController();
  const response = await fetch(`${server.api}/events/stream`, { headers: { cookie: `svc_identity=${client.id}`, ...headers }, signal: controller.signal });
  let text = '';
  const reading = (async () => {
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) text += Buffer.from(chunk).toString();
    } catch {
      // aborted
    }
  })();
  await new Promise((done) => setTimeout(done, ms));
  controller.abort();
  await reading;
  return [...text.matchAll(/^id: (.+)$/gm)].map((m) => m[1]);
}

describe('event ids', () => {
  it("do not tell a sandbox how much the others wrote", async () => {
    const a = fresh();
    const b = fresh();
    const alone = fresh();
    await create(a, 'todos', { user_id: 1 });
    for (let i = 0; i < 5; i++) await create(b, 'todos', { user_id: 1 });
    await create(a, 'todos', { user_id: 1 });
    await create(alone, 'todos', { user_id: 1 });
    await create(alone, 'todos', { user_id: 1 });
    const [a1, a2] = await ids(a);
    const [c1, c2] = await ids(alone);
    expect(a1).toMatch(/^evt_[0-9a-z]+$/);
    expect(gap(a1, a2)).toBe(gap(c1, c2));
    // The list's cursor does not carry a position in the whole log either.
    const page = (await a.get('/events?limit=1')).body.pagination.nextCursor;
    const pageAlone = (await alone.get('/events?limit=1')).body.pagination.nextCursor;
    const cursorNumber = (cursor: string) => Number(/\d+/.exec(Buffer.from(cursor, 'base64url').toString())![0]);
    expect(cursorNumber(page) - parseInt(a1.slice(4), 36)).toBe(cursorNumber(pageAlone) - parseInt(c1.slice(4), 36));
  });

  it('sort in log order, across a reset too, and are never given twice', async () => {
    const a = fresh();
    for (let i = 0; i < 3; i++) await create(a, 'todos', { user_id: 1 });
    const before = await ids(a);
    expect([...before].sort()).toEqual(before);
    expect((await a.post('/sandbox/reset')).status).toBeLessThan(300);
    await create(a, 'todos', { user_id: 1 });
    const after = await ids(a);
    expect(after).toHaveLength(2);
    expect([...before, ...after].sort()).toEqual([...before, ...after]);
    // An id from before the reset is no longer in the log: the stream replays all of it; since= lists what followed.
    expect(await streamIds(a, { 'last-event-id': before[2] })).toEqual(after);
    expect(await ids(a, `&since=${before[2]}`)).toEqual(after);
    expect(await ids(a, `&since=${after[0]}`)).toEqual([after[1]]);
  });

  it('of older servers (a position in the whole log) still work as since and Last-Event-ID', async () => {
    const a = fresh();
    for (let i = 0; i < 3; i++) await create(a, 'todos', { user_id: 1, title: `t${i}` });
    const current = await ids(a);
    const positions = readFile(server.db, (db) =>
      db.prepare(`SELECT n FROM events e JOIN sandboxes s USING (sid) WHERE s.key = ? ORDER BY n`).pluck().all(a.id),
    ) as number[];
    const legacy = (n: number) => `evt_${n.toString(36).padStart(12, '0')}`;
    expect(await ids(a, `&since=${legacy(positions[0])}`)).toEqual(current.slice(1));
    expect(await streamIds(a, { 'last-event-id': legacy(positions[1]) })).toEqual(current.slice(2));
  });
});
