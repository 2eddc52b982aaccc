import { describe, expect, it } from 'vitest';
import { expectProblem } from './helpers/problems.js';
import { sandboxClient, useServer, type Answer } from './helpers/server.js';

// Keyset cursors: a walk never skips or repeats a record that stays, whatever is created or
// deleted between its pages.
const server = useServer();
const fresh = () => sandboxClient(server.api);
type Client = ReturnType<typeof fresh>;
const ids = (answer: Answer) => answer.body.data.map((r: { id: unknown }) => r.id);

/** Walks a list by cursor, calling `between` after each page; returns every id seen, in order. */
async function walk(client: Client, path: string, between: (page: number) => Promise<void> = async () => {}) {
  const seen: unknown[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 200; page++) {
    const answer: Answer = await client.get(`${path}${path.includes('?') ? '&' : '?'}limit=7${cursor ? `&cursor=${cursor}` : ''}`);
    expect(answer.status, answer.text).toBe(200);
    seen.push(...ids(answer));
    cursor = answer.body.pagination.nextCursor;
    if (!cursor) return seen;
    await between(page);
  }
  throw new Error('the walk did not end');
}

async function allIds(client: Client, path: string): Promise<unknown[]> {
  const answer = await client.get(`${path}${path.includes('?') ? '&' : '?'}limit=200`);
  return ids(answer);
}

describe('cursor walks', () => {
  it('match the page-by-page order when nothing changes', async () => {
    const client = fresh();
    for (let i = 0; i < 3; i++) await client.post('/posts', { user_id: 1 + i, title: `walk ${i}`, body: 'sunt' });
    for (const path of ['/posts', '/posts?_sort=-user_id,title', '/posts?q=sunt', '/posts?q=sunt&_sort=-id', '/todos?completed=true&_sort=title', '/comments?post_id_lte=20&_order=desc&_sort=email']) {
      expect(await walk(client, path), path).toEqual(await allIds(client, path));
    }
  });

  it.each([
    ['/posts', 'default order'],
    ['/posts?_sort=-user_id,title', 'two sort keys'],
    ['/posts?user_id_lte=12&_sort=title', 'a filter and a sort'],
    ['/posts?q=sunt&_sort=id', 'a search sorted by id'],
    ['/users?_sort=website', 'a nullable key ascending'],
    ['/users?_sort=-website,name', 'a nullable key descending'],
  ])('see every stable record exactly once while others are created and deleted (%s: %s)', async (path) => {
    const client = fresh();
    const collection = path.slice(1).split('?')[0] as 'posts' | 'users';
    const make = async (i: number) => {
      const body =
        collection === 'posts'
          ? { user_id: 1 + (i % 25), title: `churn ${i} ${String.fromCharCode(97 + (i % 26))}`, body: 'sunt churn' }
          : { name: `Churn ${i}`, username: `churn_${i}_${Math.random().toString(36).slice(2, 8)}`, email: `churn${i}.${Math.random().toString(36).slice(2, 8)}@example.com`, ...(i % 2 ? { website: `w${i}.example` } : {}) };
      const answer = await client.post(`/${collection}`, body);
      expect(answer.status, answer.text).toBe(200);
      return answer.body.id;
    };
    // Records that come and go during the walk, some of them already there when it starts.
    const churn: unknown[] = [await make(1000), await make(1001), await make(1002)];
    const before = await allIds(client, path);
    const doomed = new Set<unknown>([before[3], before[before.length - 4], ...churn.slice(0, 2)]);
    const doomedList = [...doomed];

    let n = 0;
    const seen = await walk(client, path, async () => {
      churn.push(await make(n));
      const victim = doomedList[n++];
      if (victim !== undefined) expect((await client.delete(`/${collection}/${victim}`)).status).toBe(200);
      if (n % 3 === 0 && churn.length > 6) await client.delete(`/${collection}/${churn.splice(3, 1)[0]}`);
    });

    const stable = before.filter((id) => !doomed.has(id));
    const counts = new Map<unknown, number>();
    for (const id of seen) counts.set(id, (counts.get(id) ?? 0) + 1);
    for (const id of stable) expect(counts.get(id), `stable record ${id}`).toBe(1);
    for (const [id, count] of counts) expect(count, `record ${id} seen twice`).toBe(1);
    // records created during the walk are not stable: seen or not, never twice (checked above)
  });

  it('hold while another client of the same sandbox writes concurrently, non-stop', async () => {
    const id = `walk-${Math.random().toString(36).slice(2)}`;
    const walker = sandboxClient(server.api, id);
    const writer = sandboxClient(server.api, id);
    const before = await allIds(walker, '/comments?_sort=email,-id');
    const stable = new Set(before.slice(0, 150));
    const doomed = before.slice(150, 200); // baseline records deleted during the walk
    let writing = true;
    const writes = (async () => {
      const mine: unknown[] = [];
      for (let i = 0; writing; i++) {
        const created = await writer.post('/comments', { post_id: 1 + (i % 100), name: `c${i}`, email: `w${i % 50}@example.com`, body: 'x' });
        mine.push(created.body.id);
        if (doomed[i] !== undefined) await writer.delete(`/comments/${doomed[i]}`);
        if (mine.length > 20) await writer.delete(`/comments/${mine.shift()}`);
      }
    })();
    const seen: unknown[] = [];
    let cursor: string | null = null;
    do {
      const answer: Answer = await walker.get(`/comments?_sort=email,-id&limit=25${cursor ? `&cursor=${cursor}` : ''}`);
      expect(answer.status).toBe(200);
      seen.push(...ids(answer));
      cursor = answer.body.pagination.nextCursor;
    } while (cursor);
    writing = false;
    await writes;
    const counts = new Map<unknown, number>();
    for (const record of seen) counts.set(record, (counts.get(record) ?? 0) + 1);
    for (const record of stable) expect(counts.get(record), `stable record ${record}`).toBe(1);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
  });

  it('reports the page number and hasPrevPage while walking', async () => {
    const client = fresh();
    const first = await client.get('/todos?limit=50');
    expect(first.body.pagination).toMatchObject({ page: 1, hasPrevPage: false, hasNextPage: true, total: 200, totalPages: 4 });
    const second = await client.get(`/todos?limit=50&cursor=${first.body.pagination.nextCursor}`);
    expect(second.body.pagination).toMatchObject({ page: 2, hasPrevPage: true, hasNextPage: true });
    expect(ids(second)).toEqual(ids(await client.get('/todos?limit=50&page=2')));
    const last = await client.get(`/todos?limit=150&cursor=${first.body.pagination.nextCursor}`);
    expect(last.body.pagination).toMatchObject({ hasNextPage: false, nextCursor: null });
    expect(last.body.data).toHaveLength(150);
  });

  it('gives nextCursor on page-number requests too, and null on the last page', async () => {
    const client = fresh();
    const page3 = await client.get('/posts?page=3&limit=10');
    const next = await client.get(`/posts?limit=10&cursor=${page3.body.pagination.nextCursor}`);
    expect(ids(next)).toEqual(ids(await client.get('/posts?page=4&limit=10')));
    expect((await client.get('/posts?page=10&limit=10')).body.pagination.nextCursor).toBeNull();
    expect((await client.get('/posts?page=11&limit=10')).body.pagination.nextCursor).toBeNull();
  });

  it('walks a relevance-ranked search (q without _sort) in rank order', async () => {
    const client = fresh();
    expect(await walk(client, '/comments?q=et')).toEqual(await allIds(client, '/comments?q=et'));
  });

  it('keeps working when the record the cursor points at is deleted', async () => {
    const client = fresh();
    for (const path of ['/posts', '/posts?_sort=title', '/posts?q=sunt']) {
      const first = await client.get(`${path}${path.includes('?') ? '&' : '?'}limit=2`);
      const expected = (await allIds(client, path)).slice(2, 4);
      await client.delete(`/posts/${first.body.data[1].id}`);
      const next = await client.get(`${path}${path.includes('?') ? '&' : '?'}limit=2&cursor=${first.body.pagination.nextCursor}`);
      expect(ids(next), path).toEqual(expected);
      await client.post('/sandbox/reset');
    }
  });
});

describe('cursors on long sort values', () => {
  // A long sort value travels as a bounded prefix; the next page reads the rest from the anchor
  // record (the cursor's id). Prefixes shared by several long values, both directions, and an
  // anchor changed or deleted between pages (the walk may repeat, never skip).
  const long = (prefix: string, tail: string, length = 6000) => prefix.repeat(Math.ceil(length / prefix.length)).slice(0, length - tail.length) + tail;

  it('follows the nextCursor of a 6,000-character key (the issue 17 repro)', async () => {
    const client = fresh();
    expect((await client.patch('/posts/1', { body: long('x', 'y') })).status).toBe(200);
    const first = await client.get('/posts?_sort=-body&limit=1');
    expect(ids(first)).toEqual([1]);
    const cursor = first.body.pagination.nextCursor as string;
    expect(cursor.length).toBeLessThanOrEqual(4096);
    const next = await client.get(`/posts?_sort=-body&limit=1&cursor=${cursor}`);
    expect(next.status, next.text).toBe(200);
    expect(ids(next)).toEqual(ids(await client.get('/posts?_sort=-body&limit=1&page=2')));
  });

  /** Six marked posts whose long bodies share a 5,990-character prefix (two of them equal), plus one short. */
  async function seed(client: Client) {
    const tails = ['c', 'a', 'e', 'b', 'e', 'd'];
    const made: unknown[] = [];
    for (const [i, tail] of tails.entries()) {
      const answer = await client.post('/posts', { user_id: 1 + i, title: `longwalk ${'é'.repeat(480)}${i % 3}`, body: long('ü', tail) });
      expect(answer.status, answer.text).toBe(200);
      made.push(answer.body.id);
    }
    // a changed baseline record among them, and a short one
    expect((await client.patch('/posts/3', { title: `longwalk ${'é'.repeat(480)}1`, body: long('ü', 'c') })).status).toBe(200);
    expect((await client.patch('/posts/4', { title: 'longwalk short', body: 'üü' })).status).toBe(200);
    return made;
  }

  it.each([
    '/posts?title_like=longwalk&_sort=body',
    '/posts?title_like=longwalk&_sort=-body',
    '/posts?title_like=longwalk&_sort=body,title',
    '/posts?title_like=longwalk&_sort=-body,-title',
    '/posts?title_like=longwalk&_sort=title,-body',
    '/posts?_sort=-body',
  ])('walks %s one record a page, exactly', async (path) => {
    const client = fresh();
    await seed(client);
    const seen: unknown[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 300; page++) {
      const answer: Answer = await client.get(`${path}&limit=${path.includes('title_like') ? 1 : 3}${cursor ? `&cursor=${cursor}` : ''}`);
      expect(answer.status, answer.text).toBe(200);
      seen.push(...ids(answer));
      cursor = answer.body.pagination.nextCursor;
      if (!cursor) break;
      expect(cursor.length).toBeLessThanOrEqual(4096);
    }
    expect(seen).toEqual(await allIds(client, path));
  });

  it.each([
    ['/posts?title_like=longwalk&_sort=body', 'patched'],
    ['/posts?title_like=longwalk&_sort=-body', 'patched'],
    ['/posts?title_like=longwalk&_sort=body,title', 'patched'],
    ['/posts?title_like=longwalk&_sort=-body', 'deleted'],
    ['/posts?title_like=longwalk&_sort=body', 'deleted'],
  ])('never skips a record when the anchor of %s is %s between pages', async (path, change) => {
    const client = fresh();
    await seed(client);
    const before = await allIds(client, path);
    const changed = new Set<unknown>();
    const seen: unknown[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 300 && (page === 0 || cursor); page++) {
      const answer: Answer = await client.get(`${path}&limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      expect(answer.status, answer.text).toBe(200);
      seen.push(...ids(answer));
      cursor = answer.body.pagination.nextCursor;
      const anchor = ids(answer).at(-1);
      if (!cursor || anchor === undefined || changed.has(anchor)) continue;
      changed.add(anchor);
      if (change === 'deleted') expect((await client.delete(`/posts/${anchor}`)).status).toBe(200);
      else {
        // the same prefix with a tail that moves the record past all the others, whichever direction
        const tail = path.includes('-body') ? '0' : 'z';
        expect((await client.patch(`/posts/${anchor}`, { body: long('ü', tail) })).status).toBe(200);
      }
    }
    expect(cursor).toBeNull();
    for (const id of before) expect(seen, `record ${id}`).toContain(id);
  });

  it('still refuses a tampered long-key cursor', async () => {
    const client = fresh();
    await seed(client);
    const cursor = (await client.get('/posts?title_like=longwalk&_sort=body&limit=2')).body.pagination.nextCursor as string;
    const [fingerprint, ...key] = JSON.parse(Buffer.from(cursor, 'base64url').toString());
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    expectProblem(await client.get(`/posts?title_like=longwalk&_sort=-body&cursor=${cursor}`), 400, 'INVALID_CURSOR');
    expectProblem(await client.get(`/posts?title_like=longwalk&_sort=body&cursor=${encode([`${fingerprint}x`, ...key])}`), 400, 'INVALID_CURSOR');
    expectProblem(await client.get(`/posts?title_like=longwalk&_sort=body&cursor=${encode([fingerprint, { p: 'x'.repeat(5000) }, key[1]])}`), 400, 'INVALID_CURSOR');
    expectProblem(await client.get(`/posts?title_like=longwalk&_sort=body&cursor=${encode([fingerprint, { x: 1 }, key[1]])}`), 400, 'INVALID_CURSOR');
    expectProblem(await client.get(`/posts?title_like=longwalk&_sort=body&cursor=${encode([fingerprint, key[0], key[0]])}`), 400, 'INVALID_CURSOR');
  });
});

describe('invalid cursors', () => {
  it.each([
    ['garbage', 'not-a-cursor!'],
    ['not base64 JSON', 'aGVsbG8'],
    ['a JSON array of the wrong shape', Buffer.from('[1,2,3]').toString('base64url')],
    ['an object', Buffer.from('{"a":1}').toString('base64url')],
    ['too long', 'A'.repeat(5000)],
  ])('%s is 400 INVALID_CURSOR', async (_name, cursor) => {
    const answer = await fresh().get(`/posts?cursor=${encodeURIComponent(cursor)}`);
    expectProblem(answer, 400, 'INVALID_CURSOR');
    expect(answer.body.detail).toContain('"cursor"');
  });

  it('refuses a cursor replayed with other filters, search, sort or collection', async () => {
    const client = fresh();
    const cursor = (await client.get('/posts?user_id=1&limit=2')).body.pagination.nextCursor;
    expect(cursor).toEqual(expect.any(String));
    expect((await client.get(`/posts?user_id=1&cursor=${cursor}`)).status).toBe(200);
    for (const path of ['/posts?user_id=2', '/posts', '/posts?user_id=1&_sort=title', '/posts?user_id=1&q=sunt', '/todos?user_id=1']) {
      const answer = await client.get(`${path}&cursor=${cursor}`.replace('/posts&', '/posts?').replace('/todos&', '/todos?'));
      expectProblem(answer, 400, 'INVALID_CURSOR');
    }
  });

  it('refuses a cursor whose fingerprint was edited, and ignores page when a cursor is given', async () => {
    const client = fresh();
    const cursor = (await client.get('/posts?limit=3')).body.pagination.nextCursor as string;
    const [fingerprint, ...key] = JSON.parse(Buffer.from(cursor, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify([`${fingerprint}x`, ...key])).toString('base64url');
    expectProblem(await client.get(`/posts?cursor=${forged}`), 400, 'INVALID_CURSOR');
    const wrongType = Buffer.from(JSON.stringify([fingerprint, 'x'])).toString('base64url');
    expectProblem(await client.get(`/posts?cursor=${wrongType}`), 400, 'INVALID_CURSOR');
    expect(ids(await client.get(`/posts?limit=3&page=9&cursor=${cursor}`))).toEqual([4, 5, 6]);
  });
});
