import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expectProblem, type Client } from './problems.js';
import { sandboxClient, startServer, type Answer, type RunningServer } from './server.js';

/**
 * One list-feature suite (envelope, paging, order, sort, filters, search, cursors, caps,
 * isolation) run the same way against any collection that serves the list contract: a core
 * collection over an empty baseline, a custom collection, a config-declared one. Each target
 * seeds the same records through HTTP POST in a fresh sandbox and every expectation is worked
 * out from those records, so nothing here leans on a baseline.
 */

/** What the suite needs to know of a collection; where collections legitimately differ, the target says so. */
export interface ListTarget {
  /** The describe title. */
  name: string;
  /** Starts the target's server (one per target), with `limits` set so that `cap` below holds. */
  start: () => Promise<RunningServer>;
  /** The list path under `/api/v1`, e.g. `/posts` or `/custom/invoices`. */
  path: string;
  /** Makes what the records refer to in `sandbox` (e.g. users for posts); returns the 4 `user_id` values to use, in order (numbers). */
  prepare: (client: Client) => Promise<number[]>;
  /** The most live created records a sandbox may hold here, and the limit's name in the 403. */
  cap: { value: number; limit: string };
  /** Is `user_id` a foreign key (a value naming no visible record is 422) or plain data (accepted)? */
  foreignKeyUserId: boolean;
  /** Open (custom) collections filter on any path (an unknown one matches nothing); closed ones answer 400. */
  open: boolean;
  /** Tests of this target alone, registered inside its describe; `fresh()` gives a client of a new sandbox on its server. */
  more?: (fresh: () => Client) => void;
}

/** How many records each target's main sandbox holds. */
export const SEEDED = 24;

const titles = ['Café crème', 'apple pie', 'Apple tart', 'naïve résumé', 'zebra crossing', 'Ärger im Büro', '😀 smile', 'apple pie'];
const animals = ['quokka', 'wombat', 'koala'];

/** The i-th record of the common shape (`user_id` from `prepare`): titles repeat (ties), text exercises search and unicode. */
export function recordOf(i: number, userIds: number[]): Record<string, unknown> {
  return {
    user_id: userIds[i % userIds.length],
    title: titles[i % titles.length],
    body: `Record ${i} about a ${animals[i % animals.length]}${i % 4 === 0 ? ' near the gate' : ''}, nr${String(i).padStart(2, '0')}`,
  };
}

/** Bad `page`/`limit` values and the parameter name each 400 must carry (shared with lists.test.ts). */
export const badPaging: Array<[string, RegExp]> = [
  ['limit=0', /\blimit\b/],
  ['limit=201', /\blimit\b/],
  ['limit=abc', /\blimit\b/],
  ['limit=-1', /\blimit\b/],
  ['limit=1.5', /\blimit\b/],
  ['limit=1e1', /\blimit\b/],
  ['limit=99999999999999999999', /\blimit\b/],
  ['page=0', /\bpage\b/],
  ['page=-1', /\bpage\b/],
  ['page=x', /\bpage\b/],
  ['page=1.5', /\bpage\b/],
  ['page=2&limit=0', /\blimit\b/],
  ['limit=5&page=0', /\bpage\b/],
  ['_limit=0', /limit/],
  ['_limit=201', /limit/],
  ['_per_page=0', /per_page|limit/],
  ['_per_page=abc', /per_page|limit/],
  ['_page=0', /page/],
  ['_page=x', /page/],
];

/** FTS5 syntax in `q`: every one is text, never a syntax error (shared with search.test.ts). */
export function ftsSyntax(word: string): string[] {
  return [`"${word}`, `${word}"`, `${word}*`, '*', `-${word}`, `${word} AND`, `NEAR(${word} voluptate)`, `(${word}`, `${word} OR zzyzx`, `title:${word}`, `^${word}`, '😀', '\u0000', "'; DROP TABLE overlay; --"];
}

type Rec = Record<string, any>;
const ids = (answer: Answer) => answer.body.data.map((r: Rec) => r.id);
const withQuery = (path: string, query: string) => (query ? `${path}${path.includes('?') ? '&' : '?'}${query}` : path);
/** SQLite compares text as UTF-8 bytes (code point order), not as JS's UTF-16 units. */
const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
const compare = (a: unknown, b: unknown) => (typeof a === 'number' && typeof b === 'number' ? a - b : byBytes(String(a), String(b)));

/** `_sort` as the contract orders it: the keys, then id ascending. */
function sorted(records: Rec[], keys: Array<[string, boolean]>): Rec[] {
  return [...records].sort((a, b) => {
    for (const [field, descending] of keys) {
      const c = compare(a[field], b[field]);
      if (c) return descending ? -c : c;
    }
    return compare(a.id, b.id);
  });
}

/** `q` as the contract reads it: every word of the query is a prefix of a word of the searched text, case and accents folded. */
const fold = (text: string) => (text.normalize('NFKC').match(/[\p{L}\p{N}]+/gu) ?? []).map((w) => w.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase());
function matches(record: Rec, q: string): boolean {
  const terms = fold(q);
  const words = fold(`${record.title} ${record.body}`);
  return terms.length > 0 && terms.every((t) => words.some((w) => w.startsWith(t)));
}

/** Registers the suite for one target. */
export function describeListFeatures(target: ListTarget): void {
  describe(`list features: ${target.name}`, () => {
    let server: RunningServer;
    let client: Client;
    let userIds: number[];
    /** In creation order, as POST answered them. */
    let seeded: Rec[];
    /** The default order: newest created first. */
    let newestFirst: Rec[];
    const path = target.path;
    const fresh = () => sandboxClient(server.api);
    const get = (query = '') => client.get(withQuery(path, query));
    const idsOf = (records: Rec[]) => records.map((r) => r.id);

    beforeAll(async () => {
      server = await target.start();
      client = fresh();
      userIds = await target.prepare(client);
      seeded = [];
      for (let i = 0; i < SEEDED; i++) {
        const answer = await client.post(path, recordOf(i, userIds));
        expect(answer.status, answer.text).toBe(200);
        expect(answer.body).toMatchObject({ ...recordOf(i, userIds), _sandbox: 'created' });
        seeded.push(answer.body);
      }
      newestFirst = [...seeded].reverse();
    }, 60_000);
    afterAll(async () => {
      await server?.cleanup();
    });

    describe('envelope and paging', () => {
      it('answers page 1 of 10 in the envelope, newest created first, the same records GET /{id} answers', async () => {
        const answer = await get();
        expect(answer.status, answer.text).toBe(200);
        expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
        expect(Object.keys(answer.body).sort()).toEqual(['data', 'pagination']);
        expect(answer.body.pagination).toEqual({
          page: 1,
          limit: 10,
          total: SEEDED,
          totalPages: Math.ceil(SEEDED / 10),
          hasNextPage: true,
          hasPrevPage: false,
          nextCursor: expect.stringMatching(/./),
        });
        expect(answer.body.data).toEqual(newestFirst.slice(0, 10));
        for (const record of answer.body.data.slice(0, 3)) expect((await client.get(`${path}/${record.id}`)).body).toEqual(record);
      });

      // [query, page, limit]
      it.each<[string, number, number]>([
        ['limit=5', 1, 5],
        ['limit=5&page=5', 5, 5],
        ['limit=5&page=6', 6, 5],
        ['limit=7&page=4', 4, 7],
        ['page=3', 3, 10],
        ['page=100', 100, 10],
        ['limit=1&page=24', 24, 1],
        ['limit=1&page=23', 23, 1],
        ['limit=24', 1, 24],
        ['limit=23&page=2', 2, 23],
        ['limit=200', 1, 200],
        ['_limit=5&_page=2', 2, 5],
        ['_per_page=6&page=2', 2, 6],
      ])('?%s: page %i of limit %i, and its nextCursor leads to the next page', async (query, page, limit) => {
        const answer = await get(query);
        expect(answer.status, answer.text).toBe(200);
        const totalPages = Math.ceil(SEEDED / limit);
        const { pagination } = answer.body;
        expect(pagination).toMatchObject({ page, limit, total: SEEDED, totalPages, hasNextPage: page < totalPages, hasPrevPage: page > 1 });
        expect(ids(answer)).toEqual(idsOf(newestFirst.slice((page - 1) * limit, page * limit)));
        if (page >= totalPages) expect(pagination.nextCursor).toBeNull();
        else {
          const next = await get(`limit=${limit}&cursor=${encodeURIComponent(pagination.nextCursor)}`);
          expect(next.status, next.text).toBe(200);
          expect(ids(next)).toEqual(idsOf(newestFirst.slice(page * limit, (page + 1) * limit)));
          expect(next.body.pagination).toMatchObject({ page: page + 1, hasPrevPage: true });
        }
      });

      it.each(badPaging)('?%s is 400 INVALID_QUERY naming the parameter', async (query, names) => {
        const answer = await get(query);
        expectProblem(answer, 400, 'INVALID_QUERY');
        expect(answer.body.detail).toMatch(names);
      });
    });

    describe('_sort and _order', () => {
      it.each<[string, Array<[string, boolean]>]>([
        ['_sort=title', [['title', false]]],
        ['_sort=-title', [['title', true]]],
        ['_sort=title&_order=desc', [['title', true]]],
        ['_sort=user_id,-title', [['user_id', false], ['title', true]]],
        ['_sort=-user_id,title', [['user_id', true], ['title', false]]],
        ['_sort=user_id,title&_order=desc,asc', [['user_id', true], ['title', false]]],
        ['_sort=title,user_id&_order=desc', [['title', true], ['user_id', true]]],
        ['_sort=body', [['body', false]]],
        ['_sort=-id', [['id', true]]],
      ])('?%s sorts by the keys, ties by id', async (query, keys) => {
        const answer = await get(`${query}&limit=200`);
        expect(answer.status, answer.text).toBe(200);
        expect(ids(answer)).toEqual(idsOf(sorted(seeded, keys)));
        // and pages of it are slices of that order
        expect(ids(await get(`${query}&limit=5&page=3`))).toEqual(idsOf(sorted(seeded, keys).slice(10, 15)));
      });

      it('refuses an _order other than asc/desc, naming it', async () => {
        const answer = await get('_sort=title&_order=sideways');
        expectProblem(answer, 400, 'INVALID_QUERY');
        expect(answer.body.detail).toContain('"_order"');
      });
    });

    describe('filters', () => {
      const where = (query: string, keep: (r: Rec, users: number[]) => boolean) => [query, keep] as const;
      it.each([
        where('user_id=U1', (r, u) => r.user_id === u[1]),
        where('user_id=U0&user_id=U2', (r, u) => r.user_id === u[0] || r.user_id === u[2]),
        where('user_id_ne=U1', (r, u) => r.user_id !== u[1]),
        where('user_id_ne=U1&user_id_ne=U3', (r, u) => r.user_id !== u[1] && r.user_id !== u[3]),
        where('user_id_gt=U1', (r, u) => r.user_id > u[1]!),
        where('user_id_gte=U1&user_id_lt=U3', (r, u) => r.user_id >= u[1]! && r.user_id < u[3]!),
        where('user_id_lte=U1', (r, u) => r.user_id <= u[1]!),
        where('title_like=APPLE', (r) => r.title.toLowerCase().includes('apple')),
        where('title_like=pie&title_like=zebra', (r) => /pie|zebra/.test(r.title)),
        where('body_like=near the', (r) => r.body.includes('near the')),
        where('title_like=apple&user_id=U3', (r, u) => r.title.toLowerCase().includes('apple') && r.user_id === u[3]),
        where('title=Café crème', (r) => r.title === 'Café crème'),
        where('title_ne=apple pie&_sort=title', (r) => r.title !== 'apple pie'),
        where('title_like=zzyzx', () => false),
      ])('?%s', async (query, keep) => {
        const resolved = query.replace(/U(\d)/g, (_, n) => String(userIds[Number(n)])).replace(/ /g, '%20');
        const answer = await get(`${resolved}&limit=200`);
        expect(answer.status, answer.text).toBe(200);
        const expected = seeded.filter((r) => keep(r, userIds));
        expect(answer.body.pagination.total).toBe(expected.length);
        const order = query.includes('_sort=title') ? sorted(expected, [['title', false]]) : [...expected].reverse();
        expect(ids(answer)).toEqual(idsOf(order));
      });

      // Was a bug (both kinds of collection): SQLite's lower() folds ASCII only, so "ärger" missed "Ärger".
      it('_like is case-insensitive beyond ASCII: title_like=ärger finds "Ärger im Büro"', async () => {
        const answer = await get(`title_like=${encodeURIComponent('ÄRGER IM BÜRO'.toLowerCase())}&limit=200`);
        expect(ids(answer)).toEqual(idsOf(newestFirst.filter((r) => r.title === 'Ärger im Büro')));
      });

      it('filters on id, a repeated id as OR, and an id that is not there matches nothing', async () => {
        const [a, b] = [seeded[3]!, seeded[17]!];
        expect(ids(await get(`id=${a.id}`))).toEqual([a.id]);
        expect(ids(await get(`id=${a.id}&id=${b.id}&id=local-00000000-0000-4000-8000-000000000000`))).toEqual([b.id, a.id]);
        expect((await get(`id_ne=${a.id}&limit=200`)).body.pagination.total).toBe(SEEDED - 1);
        expect(ids(await get('id=local-00000000-0000-4000-8000-000000000000'))).toEqual([]);
      });

      it(target.open ? 'an unknown field matches nothing (any path may be filtered)' : 'an unknown field is 400 INVALID_QUERY naming it', async () => {
        const answer = await get('nope=1');
        if (target.open) {
          expect(answer.status, answer.text).toBe(200);
          expect(answer.body.pagination.total).toBe(0);
        } else {
          expectProblem(answer, 400, 'INVALID_QUERY');
          expect(answer.body.detail).toContain('"nope"');
        }
      });
    });

    describe('q: search', () => {
      it.each(['quokka', 'QUOKKA', 'quo', 'apple quo', 'wombat nr1', 'cafe', 'CREME', 'resume naive', 'arger buro', 'café crème koala', 'zzyzx', 'apple zzyzx', '😀', '!!!'])(
        'q=%s finds the records every word of it starts a word of',
        async (q) => {
          const expected = seeded.filter((r) => matches(r, q));
          const answer = await get(`q=${encodeURIComponent(q)}&limit=200`);
          expect(answer.status, answer.text).toBe(200);
          expect(answer.body.pagination.total).toBe(expected.length);
          expect(new Set(ids(answer))).toEqual(new Set(idsOf(expected)));
          // with _sort, in that order
          expect(ids(await get(`q=${encodeURIComponent(q)}&_sort=-title&limit=200`))).toEqual(idsOf(sorted(expected, [['title', true]])));
        },
      );

      it('finds something for the words this suite relies on (the model is not vacuous)', () => {
        for (const q of ['quokka', 'cafe', 'arger buro', 'apple quo']) expect(seeded.filter((r) => matches(r, q)).length, q).toBeGreaterThan(0);
      });

      it.each(ftsSyntax('quokka'))('treats q=%j as text: 200, the records its words match, never a syntax error', async (q) => {
        const answer = await get(`q=${encodeURIComponent(q)}&limit=200`);
        expect(answer.status, answer.text).toBe(200);
        expect(new Set(ids(answer))).toEqual(new Set(idsOf(seeded.filter((r) => matches(r, q)))));
      });

      it('reads OR as a word that must match, and "quokka*" as quokka', async () => {
        expect((await get('q=quokka%20OR%20wombat')).body.pagination.total).toBe(0);
        expect(new Set(ids(await get('q=%22quokka*%22&limit=200')))).toEqual(new Set(ids(await get('q=quokka&limit=200'))));
      });

      it('combines q with filters and paging', async () => {
        const expected = seeded.filter((r) => matches(r, 'quokka') && r.user_id !== userIds[0]);
        const all = await get(`q=quokka&user_id_ne=${userIds[0]}&limit=200`);
        expect(new Set(ids(all))).toEqual(new Set(idsOf(expected)));
        expect(ids(await get(`q=quokka&user_id_ne=${userIds[0]}&limit=2&page=2`))).toEqual(ids(all).slice(2, 4));
      });
    });

    describe('cursors', () => {
      /** Walks by cursor, `limit` a page; returns every id seen in order. */
      async function walk(who: Client, query: string, limit: number, between: (n: number) => Promise<void> = async () => {}) {
        const seen: unknown[] = [];
        let cursor: string | null = null;
        for (let n = 0; n < 100; n++) {
          const answer: Answer = await who.get(withQuery(path, `${query ? `${query}&` : ''}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`));
          expect(answer.status, answer.text).toBe(200);
          seen.push(...ids(answer));
          cursor = answer.body.pagination.nextCursor;
          if (!cursor) return seen;
          await between(n);
        }
        throw new Error('the walk did not end');
      }

      it.each(['', '_sort=title', '_sort=-user_id,title', 'q=quokka', 'q=apple&_sort=-body', `title_like=a&_sort=-title`])(
        'walks ?%s by cursor: every record once, in list order',
        async (query) => {
          const whole = ids(await get(`${query ? `${query}&` : ''}limit=200`));
          const seen = await walk(client, query, 5);
          expect(seen).toEqual(whole);
          expect(new Set(seen).size).toBe(seen.length);
        },
      );

      it('sees every record that stays exactly once while others are created and deleted between pages', async () => {
        const other = fresh();
        const users = await target.prepare(other);
        for (let i = 0; i < 10; i++) expect((await other.post(path, recordOf(i, users))).status).toBe(200);
        for (const query of ['', '_sort=title']) {
          const before: unknown[] = ids(await other.get(withQuery(path, 'limit=200')));
          const doomed = [before[2], before[before.length - 3]];
          let n = 0;
          const seen = await walk(other, query, 3, async () => {
            const created = await other.post(path, recordOf(100 + n, users));
            expect(created.status, created.text).toBe(200);
            const victim = doomed[n++];
            if (victim) expect((await other.delete(`${path}/${victim}`)).status).toBe(200);
          });
          expect(n).toBeGreaterThanOrEqual(doomed.length);
          const counts = new Map<unknown, number>();
          for (const id of seen) counts.set(id, (counts.get(id) ?? 0) + 1);
          for (const [id, count] of counts) expect(count, `record ${id} seen twice`).toBe(1);
          for (const id of before) if (!doomed.includes(id)) expect(counts.get(id), `stable record ${id}`).toBe(1);
        }
      });

      it('refuses a cursor from another query with 400 INVALID_CURSOR, and garbage too', async () => {
        const cursor = (await get('_sort=title&limit=5')).body.pagination.nextCursor as string;
        expect(cursor).toEqual(expect.any(String));
        expect((await get(`_sort=title&limit=5&cursor=${cursor}`)).status).toBe(200);
        for (const query of ['_sort=-title', '', `user_id=${userIds[0]}&_sort=title`, 'q=quokka&_sort=title', '_sort=title,user_id']) {
          const answer = await get(`${query ? `${query}&` : ''}cursor=${cursor}`);
          expectProblem(answer, 400, 'INVALID_CURSOR');
          expect(answer.body.detail).toContain('"cursor"');
        }
        expectProblem(await get('cursor=not-a-cursor!'), 400, 'INVALID_CURSOR');
      });
    });

    describe('changes', () => {
      it('a PATCH shows at once in the list, search and filters; the record keeps its place; PUT back restores it', async () => {
        const target = seeded[5]!;
        const before = ids(await get('limit=200'));
        expect((await get('q=wallaby')).body.pagination.total).toBe(0);
        const patched = await client.patch(`${path}/${target.id}`, { title: 'Wallaby walk' });
        expect(patched.status, patched.text).toBe(200);
        expect(patched.body).toMatchObject({ id: target.id, title: 'Wallaby walk', body: target.body, _sandbox: 'created' });
        expect(ids(await get('limit=200'))).toEqual(before);
        expect(ids(await get('q=wallaby'))).toEqual([target.id]);
        expect(ids(await get('title_like=wallaby'))).toEqual([target.id]);
        expect(ids(await get(`q=${encodeURIComponent(String(target.title).split(' ')[0]!)}&limit=200`))).not.toContain(target.id);
        const { id: _id, _sandbox: _s, created_at: _c, ...fields } = target;
        const restored = await client.put(`${path}/${target.id}`, fields);
        expect(restored.status, restored.text).toBe(200);
        expect(restored.body).toEqual(target);
        expect((await get('q=wallaby')).body.pagination.total).toBe(0);
        expect((await get('limit=200')).body.data).toEqual(newestFirst);
      });
    });

    describe('caps and references', () => {
      it(`creating past ${target.cap.limit} is 403 QUOTA_EXCEEDED naming it; deleting frees a slot`, async () => {
        expect(target.cap.value).toBeGreaterThan(SEEDED);
        const extra: Rec[] = [];
        for (let i = SEEDED; i < target.cap.value; i++) {
          const answer = await client.post(path, recordOf(i, userIds));
          expect(answer.status, answer.text).toBe(200);
          extra.push(answer.body);
        }
        const over = await client.post(path, recordOf(99, userIds));
        expectProblem(over, 403, 'QUOTA_EXCEEDED');
        expect(over.body.detail).toContain(target.cap.limit);
        expect((await get('limit=1')).body.pagination.total).toBe(target.cap.value);
        expect((await client.delete(`${path}/${extra[0]!.id}`)).status).toBe(200);
        const again = await client.post(path, recordOf(98, userIds));
        expect(again.status, again.text).toBe(200);
        extra.push(again.body);
        expectProblem(await client.post(path, recordOf(97, userIds)), 403, 'QUOTA_EXCEEDED');
        for (const record of extra.slice(1)) expect((await client.delete(`${path}/${record.id}`)).status).toBe(200);
        expect(ids(await get('limit=200'))).toEqual(idsOf(newestFirst));
      });

      it(target.foreignKeyUserId ? 'a user_id naming no visible record is 422' : 'user_id is plain data: any value is kept', async () => {
        const other = fresh();
        const answer = await other.post(path, { ...recordOf(0, [987654]) });
        if (target.foreignKeyUserId) expectProblem(answer, 422, 'VALIDATION_FAILED');
        else expect(answer.body, answer.text).toMatchObject({ user_id: 987654, _sandbox: 'created' });
      });
    });

    target.more?.(fresh);

    describe('isolation', () => {
      it('another sandbox sees none of it, by list, search, filter or id', async () => {
        const other = fresh();
        const list = await other.get(path);
        expect(list.status, list.text).toBe(200);
        expect(list.body).toEqual({ data: [], pagination: { page: 1, limit: 10, total: 0, totalPages: 0, hasNextPage: false, hasPrevPage: false, nextCursor: null } });
        expect((await other.get(`${path}?q=quokka`)).body.pagination.total).toBe(0);
        expect((await other.get(`${path}?title_like=apple`)).body.pagination.total).toBe(0);
        expect((await other.get(`${path}?id=${seeded[0]!.id}`)).body.pagination.total).toBe(0);
        expectProblem(await other.get(`${path}/${seeded[0]!.id}`), 404, 'NOT_FOUND');
        expectProblem(await other.patch(`${path}/${seeded[0]!.id}`, { title: 'x' }), 404, 'NOT_FOUND');
        expectProblem(await other.delete(`${path}/${seeded[0]!.id}`), 404, 'NOT_FOUND');
        expect((await get('limit=1')).body.pagination.total).toBe(SEEDED);
      });
    });
  });
}

/**
 * Starts a server on a config of its own whose fixtures folder holds only `fixtures` (collection
 * name → records; every other collection's baseline is empty), in a temporary folder that goes
 * with the server. One per target, for the whole file.
 */
export async function startConfigured(config: Record<string, unknown>, fixtures: Record<string, unknown[]> = {}): Promise<RunningServer> {
  const dir = mkdtempSync(join(tmpdir(), 'mockapi-list-features-'));
  mkdirSync(join(dir, 'fixtures'));
  for (const [name, records] of Object.entries(fixtures)) writeFileSync(join(dir, 'fixtures', `${name}.json`), JSON.stringify(records));
  writeFileSync(join(dir, 'mockapi.config.json'), JSON.stringify({ fixtures: './fixtures', ...config }));
  const server = await startServer({ args: ['--config', join(dir, 'mockapi.config.json')] });
  const cleanup = server.cleanup;
  return Object.assign(server, {
    cleanup: async () => {
      await cleanup();
      rmSync(dir, { recursive: true, force: true });
    },
  });
}
