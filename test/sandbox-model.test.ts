import { describe, it, expect } from 'vitest';
import ExcelJS from 'exceljs';
import fc from 'fast-check';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sandboxClient, useServer } from './helpers/server.js';
import { BASELINE } from './helpers/problems.js';

/**
 * A property test of sandboxes against a model (issue 17): random sequences of create, patch,
 * delete, reset, snapshot, restore, snapshot delete, import and spreadsheet imports (CSV and
 * XLSX into a custom collection, issue 28) across 4 sandboxes, snapshots by name, with
 * `maxSandboxes: 3`. After every step each sandbox shows exactly its model's state, and a sandbox
 * holding data is evicted only when one more starts holding data while 3 already do (then exactly
 * the excess goes; which one is the deterministic tests' business, in eviction.test.ts).
 */

const maxSandboxes = 3;
const server = useServer({ args: ['--config', configFile()] });
const touchedIds = [1, 2, 3, 4, 5];
const snapshotNames = ['a', 'b', 'release-1.0'];
const xlsxType = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

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
  /** Titles of the custom collection `items`, oldest first (filled by spreadsheet imports). */
  items: string[];
}
interface Sandbox {
  posts: Posts;
  snapshots: Map<string, Posts>;
}

const empty = (): Posts => ({ created: [], updated: new Map(), deleted: new Set(), items: [] });
const copy = (posts: Posts): Posts => ({ created: [...posts.created], updated: new Map(posts.updated), deleted: new Set(posts.deleted), items: [...posts.items] });
const holds = (s: Sandbox) =>
  s.posts.created.length > 0 || s.posts.updated.size > 0 || s.posts.deleted.size > 0 || s.posts.items.length > 0 || s.snapshots.size > 0;

type Action =
  | { kind: 'create' | 'reset'; at: number }
  | { kind: 'patch' | 'deleteBaseline'; at: number; id: number }
  | { kind: 'deleteCreated'; at: number; pick: number }
  | { kind: 'snapshot' | 'restore' | 'dropSnapshot'; at: number; name: string }
  | { kind: 'import'; at: number; from: number }
  | { kind: 'sheet'; at: number; format: 'csv' | 'xlsx'; rows: number };

const at = fc.integer({ min: 0, max: 3 });
const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('create' as const), at }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reset' as const), at }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constantFrom('patch' as const, 'deleteBaseline' as const), at, id: fc.constantFrom(...touchedIds) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('deleteCreated' as const), at, pick: fc.nat(20) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constantFrom('snapshot' as const, 'restore' as const, 'dropSnapshot' as const), at, name: fc.constantFrom(...snapshotNames) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('import' as const), at, from: at }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('sheet' as const), at, format: fc.constantFrom('csv' as const, 'xlsx' as const), rows: fc.integer({ min: 1, max: 3 }) }) },
);

/** A spreadsheet of `titles` (a nested column too): what a user exports from a spreadsheet program. */
async function sheetOf(format: 'csv' | 'xlsx', titles: string[]): Promise<Buffer> {
  const rows = titles.map((title, i) => [title, i]);
  if (format === 'csv') return Buffer.from(['title,meta.n', ...rows.map(([title, n]) => `"${title}",${n}`)].join('\r\n'));
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('items');
  sheet.addRows([['title', 'meta.n'], ...rows]);
  return Buffer.from(await book.xlsx.writeBuffer());
}

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
            case 'sheet': {
              const names = Array.from({ length: step.rows }, () => `sheet ${step.format} ${run} ${++titles}`);
              const res = await fetch(`${server.api}/custom/items/import`, {
                method: 'POST',
                headers: { cookie: `svc_identity=${client.id}`, 'content-type': step.format === 'csv' ? 'text/csv' : xlsxType },
                body: new Uint8Array(await sheetOf(step.format, names)),
              });
              expect(res.status, await res.text()).toBe(200);
              posts.items.push(...names);
              return;
            }
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
  items: string[];
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
  const items = ((await client.get('/custom/items?limit=200')).body.data as { title: string; meta: { n: number } }[]).reverse();
  // Each imported row keeps its nested column.
  for (const item of items) expect(typeof item.meta.n).toBe('number');
  return {
    items: items.map((item) => item.title),
    // The list shows created posts newest first.
    created: records.filter((r) => r._sandbox === 'created').map((r) => ({ id: r.id as string, title: r.title })).reverse(),
    updated: new Map(records.filter((r) => r._sandbox === 'updated').map((r) => [r.id as number, r.title])),
    deleted: new Set(touchedIds.filter((id) => !ids.has(id))),
    total: list.pagination.total,
    snapshots,
  };
}

const isEmpty = (seen: Seen) => !seen.created.length && !seen.updated.size && !seen.deleted.size && !seen.items.length && !seen.snapshots.length;

function expectState(seen: Seen, model: Sandbox, where: string): void {
  expect(seen.created, where).toEqual(model.posts.created);
  expect(seen.items, where).toEqual(model.posts.items);
  expect(seen.updated, where).toEqual(model.posts.updated);
  expect(seen.deleted, where).toEqual(model.posts.deleted);
  expect(seen.total, where).toBe(BASELINE.posts + model.posts.created.length - model.posts.deleted.size);
  expect(seen.snapshots, where).toEqual([...model.snapshots.keys()].sort());
}
