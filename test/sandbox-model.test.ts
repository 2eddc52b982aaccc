import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sandboxClient, useServer } from './helpers/server.js';
import { BASELINE } from './helpers/problems.js';

/**
 * A property test of sandboxes against a model (issue 17): random sequences of create, patch,
 * delete, reset, snapshot, restore, snapshot delete and import across 4 sandboxes, with
 * `maxSandboxes: 3`. After every step each sandbox shows exactly its model's state, and a sandbox
 * holding data is evicted only when one more starts holding data while 3 already do (then exactly
 * the excess goes; which one is the deterministic tests' business, in eviction.test.ts).
 */

const maxSandboxes = 3;
const server = useServer({ args: ['--config', configFile()] });
const touchedIds = [1, 2, 3, 4, 5];
const snapshotNames = ['a', 'b'];

function configFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mockapi-model-'));
  const file = join(dir, 'mockapi.config.json');
  writeFileSync(file, JSON.stringify({ limits: { maxSandboxes } }));
  return file;
}

interface Posts {
  /** Created posts, oldest first: id and title. */
  created: { id: string; title: string }[];
  /** Baseline ids changed in the sandbox → their title. */
  updated: Map<number, string>;
  deleted: Set<number>;
}
interface Sandbox {
  posts: Posts;
  snapshots: Map<string, Posts>;
}

const empty = (): Posts => ({ created: [], updated: new Map(), deleted: new Set() });
const copy = (posts: Posts): Posts => ({ created: [...posts.created], updated: new Map(posts.updated), deleted: new Set(posts.deleted) });
const holds = (s: Sandbox) => s.posts.created.length > 0 || s.posts.updated.size > 0 || s.posts.deleted.size > 0 || s.snapshots.size > 0;

type Action =
  | { kind: 'create' | 'reset'; at: number }
  | { kind: 'patch' | 'deleteBaseline'; at: number; id: number }
  | { kind: 'deleteCreated'; at: number; pick: number }
  | { kind: 'snapshot' | 'restore' | 'dropSnapshot'; at: number; name: string }
  | { kind: 'import'; at: number; from: number };

const at = fc.integer({ min: 0, max: 3 });
const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('create' as const), at }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reset' as const), at }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constantFrom('patch' as const, 'deleteBaseline' as const), at, id: fc.constantFrom(...touchedIds) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('deleteCreated' as const), at, pick: fc.nat(20) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constantFrom('snapshot' as const, 'restore' as const, 'dropSnapshot' as const), at, name: fc.constantFrom(...snapshotNames) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('import' as const), at, from: at }) },
);

let run = 0;

describe('sandboxes against a model', () => {
  it('every sandbox holding data sees exactly its own state; evictions only beyond maxSandboxes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 14 }), async (actions) => {
        run++;
        const clients = [0, 1, 2, 3].map((i) => sandboxClient(server.api, `model-${run}-${i}`));
        const model: Sandbox[] = clients.map(() => ({ posts: empty(), snapshots: new Map() }));
        let titles = 0;
        try {
          for (const step of actions) {
            const heldBefore = model.map(holds);
            await apply(step);
            // Who may have been evicted: one more started holding data while the bound was full.
            const startedHolding = !heldBefore[step.at] && holds(model[step.at]);
            const othersHolding = model.filter((s, i) => i !== step.at && heldBefore[i] && holds(s)).length;
            const excess = startedHolding ? Math.max(0, othersHolding + 1 - maxSandboxes) : 0;
            let evicted = 0;
            for (const [i, client] of clients.entries()) {
              const seen = await observe(client);
              if (i !== step.at && holds(model[i]) && isEmpty(seen) && excess > evicted) {
                evicted++;
                model[i] = { posts: empty(), snapshots: new Map() };
              }
              expectState(seen, model[i], `sandbox ${i} after ${JSON.stringify(step)}`);
            }
            expect(evicted, `evictions after ${JSON.stringify(step)}`).toBe(excess);
            expect(model.filter(holds).length).toBeLessThanOrEqual(maxSandboxes);
          }
        } finally {
          // Nothing of this run may count toward the bound in the next one.
          for (const client of clients) {
            for (const name of snapshotNames) await client.delete(`/sandbox/snapshots/${name}`);
            await client.post('/sandbox/reset');
          }
        }

        async function apply(step: Action): Promise<void> {
          const client = clients[step.at];
          const state = model[step.at];
          const { posts } = state;
          switch (step.kind) {
            case 'create': {
              const title = `model title ${run} ${++titles}`;
              const answer = await client.post('/posts', { user_id: 1, title, body: 'text' });
              expect(answer.status, answer.text).toBe(200);
              posts.created.push({ id: answer.body.id, title });
              return;
            }
            case 'reset':
              expect((await client.post('/sandbox/reset')).status).toBe(200);
              state.posts = empty();
              return;
            case 'patch': {
              const title = `changed ${run} ${++titles}`;
              const answer = await client.patch(`/posts/${step.id}`, { title });
              expect(answer.status).toBe(posts.deleted.has(step.id) ? 404 : 200);
              if (answer.status === 200) posts.updated.set(step.id, title);
              return;
            }
            case 'deleteBaseline': {
              const answer = await client.delete(`/posts/${step.id}`);
              expect(answer.status).toBe(posts.deleted.has(step.id) ? 404 : 200);
              posts.updated.delete(step.id);
              posts.deleted.add(step.id);
              return;
            }
            case 'deleteCreated': {
              if (!posts.created.length) return;
              const [gone] = posts.created.splice(step.pick % posts.created.length, 1);
              expect((await client.delete(`/posts/${gone.id}`)).status).toBe(200);
              return;
            }
            case 'snapshot':
              expect((await client.post('/sandbox/snapshots', { name: step.name })).status).toBe(200);
              state.snapshots.set(step.name, copy(posts));
              return;
            case 'restore': {
              const snapshot = state.snapshots.get(step.name);
              expect((await client.post(`/sandbox/snapshots/${step.name}/restore`)).status).toBe(snapshot ? 200 : 404);
              if (snapshot) state.posts = copy(snapshot);
              return;
            }
            case 'dropSnapshot':
              expect((await client.delete(`/sandbox/snapshots/${step.name}`)).status).toBe(state.snapshots.has(step.name) ? 200 : 404);
              state.snapshots.delete(step.name);
              return;
            case 'import': {
              const source = model[step.from];
              const document = (await clients[step.from].get('/sandbox/export')).body;
              const answer = await client.post('/sandbox/import', document);
              expect(answer.status, answer.text).toBe(200);
              model[step.at] = { posts: copy(source.posts), snapshots: new Map([...source.snapshots].map(([n, p]) => [n, copy(p)])) };
              return;
            }
          }
        }
      }),
      { numRuns: 20 },
    );
  }, 120_000);
});

interface Seen {
  created: { id: string; title: string }[];
  updated: Map<number, string>;
  deleted: Set<number>;
  total: number;
  snapshots: string[];
}

async function observe(client: ReturnType<typeof sandboxClient>): Promise<Seen> {
  const list = (await client.get('/posts?limit=200')).body;
  const records = list.data as { id: number | string; title: string; _sandbox?: string }[];
  const ids = new Set(records.map((r) => r.id));
  const snapshots = ((await client.get('/sandbox/snapshots')).body.data as { name: string }[]).map((s) => s.name).sort();
  return {
    // The list shows created posts newest first.
    created: records.filter((r) => r._sandbox === 'created').map((r) => ({ id: r.id as string, title: r.title })).reverse(),
    updated: new Map(records.filter((r) => r._sandbox === 'updated').map((r) => [r.id as number, r.title])),
    deleted: new Set(touchedIds.filter((id) => !ids.has(id))),
    total: list.pagination.total,
    snapshots,
  };
}

const isEmpty = (seen: Seen) => !seen.created.length && !seen.updated.size && !seen.deleted.size && !seen.snapshots.length;

function expectState(seen: Seen, model: Sandbox, where: string): void {
  expect(seen.created, where).toEqual(model.posts.created);
  expect(seen.updated, where).toEqual(model.posts.updated);
  expect(seen.deleted, where).toEqual(model.posts.deleted);
  expect(seen.total, where).toBe(BASELINE.posts + model.posts.created.length - model.posts.deleted.size);
  expect(seen.snapshots, where).toEqual([...model.snapshots.keys()].sort());
}
