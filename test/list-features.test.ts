import { expect, it } from 'vitest';
import { expectProblem } from './helpers/problems.js';
import type { Answer } from './helpers/server.js';
import { describeListFeatures, SEEDED, startConfigured } from './helpers/list-features.js';

// The list features of the contract (section 5), the same tests run against a core collection
// over an empty baseline and a custom collection (section 10): the engine is generic.

/** Room for the seeded records and two more, so the cap test stays a few requests. */
const cap = SEEDED + 2;
/** Numbers whose text order (12, 30, 400, 7) is not their numeric order: sorts and comparisons must use numbers. */
const userIds = [30, 7, 400, 12];

describeListFeatures({
  name: 'core /posts (empty baseline)',
  path: '/posts',
  // Posts need users: the fixtures hold only these (integer ids, so user_id is a number field
  // that _gt/_lt compare); posts, comments and todos start empty.
  start: () =>
    startConfigured(
      { limits: { createdPerCollection: cap } },
      { users: userIds.map((id) => ({ id, name: `User ${id}`, username: `user${id}`, email: `user${id}@example.test` })) },
    ),
  prepare: async (client) => {
    const users = await client.get('/users?limit=200');
    expect(users.body.data.map((u: { id: number }) => u.id).sort()).toEqual([...userIds].sort());
    return userIds;
  },
  cap: { value: cap, limit: 'limits.createdPerCollection' },
  foreignKeyUserId: true,
  open: false,
});

describeListFeatures({
  name: 'custom /custom/invoices',
  path: '/custom/invoices',
  start: () => startConfigured({ limits: { customRecords: cap } }),
  // A custom collection's user_id is plain data: nothing to create first.
  prepare: async () => userIds,
  cap: { value: cap, limit: 'limits.customRecords' },
  foreignKeyUserId: false,
  open: true,
  more: (fresh) => {
    // Was a bug: `_sort` on a path holding objects or arrays handed out a nextCursor that the next
    // request refused (400 INVALID_CURSOR). Objects and arrays now sort as missing values.
    it.each(['_sort=meta', '_sort=-meta', '_sort=tags'])('a cursor walk of ?%s (objects and arrays) is refused up front or completes', async (query) => {
      const client = fresh();
      const bodies = [{ meta: { a: 2 }, tags: ['b', 'c'] }, { meta: { a: 1 }, tags: [] }, { meta: 'text', tags: 'x' }, { meta: 3 }];
      for (const body of bodies) expect((await client.post('/custom/things', body)).status).toBe(200);
      const whole = await client.get(`/custom/things?${query}&limit=200`);
      if (whole.status === 400) return expectProblem(whole, 400, 'INVALID_QUERY');
      const seen: unknown[] = [];
      let cursor: string | null = null;
      for (let n = 0; n < 10; n++) {
        const answer: Answer = await client.get(`/custom/things?${query}&limit=1${cursor ? `&cursor=${cursor}` : ''}`);
        expect(answer.status, answer.text).toBe(200);
        seen.push(...answer.body.data.map((r: { id: string }) => r.id));
        cursor = answer.body.pagination.nextCursor;
        if (!cursor) break;
      }
      expect(seen).toEqual(whole.body.data.map((r: { id: string }) => r.id));
    });
  },
});
