import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxClient, useServer } from './helpers/server.js';
import { BASELINE, COLLECTIONS, create, listAll, newRecord, totals, type Client } from './helpers/problems.js';
import { runCli, type Run } from './helpers/cli.js';
import { runInProcess } from './helpers/cli-in-process.js';

/**
 * The CLI run in this worker (its parser, commands, report and exit code); the real binary
 * (`spawned`) runs the round trip, the resets, one usage error, one failure and one help, showing
 * the process does the same (its exit codes, its stdout and stderr).
 */
const run = (args: string[], cwd = dir) => runInProcess(args, cwd);
const spawned = (args: string[], cwd = dir) => runCli(args, cwd);

function expectOneLineError(result: Run, code: number): void {
  expect(result.code, result.stderr).toBe(code);
  const lines = result.stderr.trim().split('\n');
  expect(lines, result.stderr).toHaveLength(1);
  expect(result.stderr).toMatch(/^mockapi: /);
  expect(result.stderr).not.toMatch(/\n\s+at /);
}

const server = useServer();
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mockapi-ops-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

let counter = 0;
const file = (name: string) => join(dir, `${++counter}-${name}`);
const fresh = () => sandboxClient(server.api);
const withoutTime = (document: any) => ({ ...document, exportedAt: undefined });
const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();

async function everything(client: Client): Promise<Record<string, unknown[]>> {
  const all: Record<string, unknown[]> = {};
  for (const collection of COLLECTIONS) all[collection] = await listAll(client, collection);
  return all;
}

async function dirty(client: Client) {
  const user = await create(client, 'users');
  const post = await create(client, 'posts', { user_id: user.id });
  expect((await client.patch('/users/2', { name: 'Changed by ops test' })).status).toBe(200);
  expect((await client.delete('/todos/9')).status).toBe(200);
  return { user, post };
}

async function exportAll(db: string, runner = run): Promise<any> {
  const result = await runner(['export', '--all', '--db', db]);
  expect(result.code, result.stderr).toBe(0);
  expect(result.stderr).toBe('');
  return JSON.parse(result.stdout);
}

describe('export', () => {
  it('--all writes every sandbox that holds data, sorted by id; readers and other files are left out', async () => {
    const a = sandboxClient(server.api, `ops-a-${crypto.randomUUID()}`);
    const b = sandboxClient(server.api, `ops-b-${crypto.randomUUID()}`);
    const reader = fresh();
    await dirty(a);
    await dirty(b);
    expect((await reader.get('/users')).status).toBe(200);
    const document = await exportAll(server.db);
    expect(document).toMatchObject({ format: 'mockapi-export', version: 1, exportedAt: expect.any(String) });
    const ids = document.sandboxes.map((s: any) => s.id);
    expect(ids).toEqual([...ids].sort());
    expect(ids).toEqual(expect.arrayContaining([a.id, b.id]));
    expect(ids).not.toContain(reader.id);
  });

  it('--sandbox gives the same document as GET /sandbox/export; -o writes a file and says so on stderr', async () => {
    const client = fresh();
    await dirty(client);
    const out = file('one.json');
    const result = await run(['export', '--sandbox', client.id, '-o', out, '--db', server.db]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('exported 1 sandbox');
    const fromCli = JSON.parse(readFileSync(out, 'utf8'));
    expect(withoutTime(fromCli)).toEqual(withoutTime((await client.get('/sandbox/export')).body));
  });

  it('a sandbox that holds no data: an empty overlay', async () => {
    const result = await run(['export', '--sandbox', 'never-wrote', '--db', server.db]);
    expect(result.code, result.stderr).toBe(0);
    const [sandbox] = JSON.parse(result.stdout).sandboxes;
    expect(sandbox).toEqual({
      id: 'never-wrote',
      createdAt: null,
      lastActiveAt: null,
      collections: Object.fromEntries(COLLECTIONS.map((c) => [c, { created: [], updated: [], deleted: [] }])),
    });
  });

  it('reads the database file named by the config', async () => {
    const client = fresh();
    await create(client, 'todos');
    const config = file('mockapi.config.mjs');
    writeFileSync(config, `export default { db: ${JSON.stringify(server.db)} };\n`);
    const result = await run(['export', '--sandbox', client.id, '--config', config]);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).sandboxes[0].collections.todos.created).toHaveLength(1);
  });
});

describe('round trip', () => {
  it('export → import into an empty database → export gives the same document (the real binary)', async () => {
    const a = fresh();
    const b = fresh();
    await dirty(a);
    await dirty(b);
    const first = file('first.json');
    expect((await spawned(['export', '--all', '-o', first, '--db', server.db])).code).toBe(0);

    const empty = file('empty.db');
    const imported = await spawned(['import', first, '--db', empty]);
    expect(imported.code, imported.stderr).toBe(0);
    const count = JSON.parse(readFileSync(first, 'utf8')).sandboxes.length;
    expect(imported.stderr).toContain(`imported ${count} sandboxes`);
    expect(withoutTime(await exportAll(empty, spawned))).toEqual(withoutTime(JSON.parse(readFileSync(first, 'utf8'))));
  });

  it('with snapshots, times and every kind of overlay row', async () => {
    const client = fresh();
    await dirty(client);
    // The document to import, from the API (the CLI's export gives the same: see above).
    const [sandbox] = (await client.get('/sandbox/export')).body.sandboxes;
    const document = {
      format: 'mockapi-export',
      version: 1,
      exportedAt: new Date().toISOString(),
      sandboxes: [
        {
          ...sandbox,
          snapshots: [
            { name: 'a-first', createdAt: '2026-01-02T03:04:05.678Z', collections: sandbox.collections },
            { name: 'b.second', createdAt: '2026-01-02T03:04:05.678Z', collections: { ...sandbox.collections, todos: { created: [], updated: [], deleted: [1, 2, 3] } } },
          ],
        },
        // Times are kept exactly (within limits.sandboxTtl, 7 days by default).
        { ...sandbox, id: 'copy-with-other-times', createdAt: daysAgo(300), lastActiveAt: daysAgo(6) },
      ],
    };
    const source = file('snapshots.json');
    writeFileSync(source, JSON.stringify(document));
    const once = file('once.db');
    expect((await run(['import', source, '--db', once])).code).toBe(0);
    const exported = await exportAll(once);
    expect(withoutTime(exported)).toEqual(withoutTime({ ...document, sandboxes: [...document.sandboxes].sort((x, y) => (x.id < y.id ? -1 : 1)) }));
    // And once more, from the re-export.
    const again = file('again.json');
    writeFileSync(again, JSON.stringify(exported));
    const twice = file('twice.db');
    expect((await run(['import', again, '--db', twice])).code).toBe(0);
    expect(withoutTime(await exportAll(twice))).toEqual(withoutTime(exported));
  });
});

describe('against the file a running server uses', () => {
  it('import replaces the named sandboxes only, and the server sees it on its next request', async () => {
    const target = fresh();
    const bystander = fresh();
    await dirty(target);
    await dirty(bystander);
    const bystanderBefore = await everything(bystander);
    const targetBefore = await everything(target);

    const [sandbox] = (await target.get('/sandbox/export')).body.sandboxes;
    const id = `local-${crypto.randomUUID()}`;
    sandbox.collections.todos.created.unshift({ id, ...newRecord('todos', { title: 'from the command line' }), _sandbox: 'created' });
    sandbox.collections.users.updated = [];
    const source = file('edit.json');
    writeFileSync(source, JSON.stringify({ format: 'mockapi-export', version: 1, exportedAt: new Date().toISOString(), sandboxes: [sandbox] }));
    const result = await run(['import', source, '--db', server.db]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('imported 1 sandbox');

    expect((await target.get(`/todos/${id}`)).body).toMatchObject({ title: 'from the command line', _sandbox: 'created' });
    expect((await target.get('/todos?limit=1')).body.data[0].id).toBe(id);
    expect((await target.get('/users/2')).body).toMatchObject({ id: 2 });
    expect((await target.get('/users/2')).body).not.toHaveProperty('_sandbox');
    expect(await everything(target)).not.toEqual(targetBefore);
    expect(await everything(bystander)).toEqual(bystanderBefore);
  });

  it('a sandbox whose last activity is older than the TTL counts as active at import, so it is not purged at once', async () => {
    const client = fresh();
    const todo = await create(client, 'todos');
    // The document to import, from the API (the CLI's export gives the same: see above).
    const [sandbox] = (await client.get('/sandbox/export')).body.sandboxes;
    // A sandbox id the server has never seen, so only the file can say it is active.
    const old = { ...sandbox, id: `old-${crypto.randomUUID()}`, createdAt: daysAgo(40), lastActiveAt: daysAgo(30) };
    const source = file('old.json');
    writeFileSync(source, JSON.stringify({ format: 'mockapi-export', version: 1, exportedAt: daysAgo(30), sandboxes: [old] }));
    const started = Date.now();
    expect((await run(['import', source, '--db', server.db])).code).toBe(0);
    const [after] = JSON.parse((await run(['export', '--sandbox', old.id, '--db', server.db])).stdout).sandboxes;
    expect(after.createdAt).toBe(old.createdAt);
    expect(Date.parse(after.lastActiveAt)).toBeGreaterThanOrEqual(started - 1000);
    expect((await sandboxClient(server.api, old.id).get(`/todos/${todo.id}`)).body).toEqual(todo);
  });

  it('reset --sandbox and reset --all, seen by the server at once (the real binary)', async () => {
    const a = fresh();
    const b = fresh();
    await dirty(a);
    await dirty(b);
    expect(await totals(a)).not.toEqual(BASELINE);

    const one = await spawned(['reset', '--sandbox', a.id, '--db', server.db]);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toBe('');
    expect(one.stderr.trim().split('\n')).toHaveLength(1);
    expect(one.stderr).toContain('reset 1 sandbox (4 overlay rows purged)');
    expect(await totals(a)).toEqual(BASELINE);
    expect((await a.get('/users/2')).body).toMatchObject({ id: 2 });
    expect((await a.get('/users/2')).body).not.toHaveProperty('_sandbox');
    expect(await totals(b)).toEqual({ ...BASELINE, users: BASELINE.users + 1, posts: BASELINE.posts + 1, todos: BASELINE.todos - 1 });

    const all = await spawned(['reset', '--all', '--db', server.db]);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stderr).toMatch(/reset \d+ sandboxes/);
    expect(await totals(b)).toEqual(BASELINE);
    expect((await exportAll(server.db)).sandboxes.filter((s: any) => Object.values(s.collections).some((c: any) => c.created.length))).toEqual([]);
    // The sandbox writes on as before.
    await create(b, 'posts');
  });

  it('--dry-run checks and writes nothing', async () => {
    const client = fresh();
    await dirty(client);
    const before = await everything(client);
    const source = file('dry.json');
    writeFileSync(
      source,
      JSON.stringify({ format: 'mockapi-export', version: 1, exportedAt: new Date().toISOString(), sandboxes: [{ id: client.id, collections: {} }] }),
    );
    const result = await run(['import', source, '--dry-run', '--db', server.db]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('dry run');
    expect(await everything(client)).toEqual(before);
    // Into a file that does not exist: checked against the baseline, the file is not created.
    const missing = file('missing.db');
    expect((await run(['import', source, '--dry-run', '--db', missing])).code).toBe(0);
    expect(existsSync(missing)).toBe(false);
    // An invalid document fails a dry run too.
    writeFileSync(source, JSON.stringify({ format: 'mockapi-export', version: 1, exportedAt: 'now', sandboxes: [] }));
    expectOneLineError(await run(['import', source, '--dry-run', '--db', server.db]), 1);
  });

  it('a failed import into a file that did not exist leaves no file behind; an existing file stays', async () => {
    const source = file('invalid-fresh.json');
    writeFileSync(source, JSON.stringify({ format: 'mockapi-export', version: 1, exportedAt: 'now', sandboxes: [] }));
    const fresh = file('fresh.db');
    expectOneLineError(await run(['import', source, '--db', fresh]), 1);
    for (const suffix of ['', '-wal', '-shm']) expect(existsSync(`${fresh}${suffix}`), `${fresh}${suffix}`).toBe(false);
    expectOneLineError(await run(['import', source, '--db', server.db]), 1);
    expect(existsSync(server.db)).toBe(true);
  });
});

describe('failures exit 1, bad usage 2, each in one line', () => {
  it('an invalid document names its first problems with their paths, and nothing is written', async () => {
    const client = fresh();
    await dirty(client);
    const before = await everything(client);
    const source = file('invalid.json');
    const bad = { id: `local-${crypto.randomUUID()}`, ...newRecord('posts', { user_id: 99999 }) };
    writeFileSync(
      source,
      JSON.stringify({
        format: 'mockapi-export',
        version: 1,
        exportedAt: new Date().toISOString(),
        sandboxes: [
          { id: client.id, collections: {} },
          { id: 'second', collections: { posts: { created: [bad] }, todos: { deleted: [999] } } },
        ],
      }),
    );
    const result = await run(['import', source, '--db', server.db]);
    expectOneLineError(result, 1);
    expect(result.stderr).toContain('/sandboxes/1/collections/posts/created/0/user_id');
    expect(result.stderr).toContain('/sandboxes/1/collections/todos/deleted/0');
    expect(await everything(client)).toEqual(before);
    expect((await sandboxClient(server.api, 'second').get('/posts?limit=1')).body.pagination.total).toBe(BASELINE.posts);
  });

  it.each([
    ['truncated JSON', '{"format": "mockapi-export", "vers', /not valid JSON/],
    ['an empty file', '', /empty/],
    ['another version', JSON.stringify({ format: 'mockapi-export', version: 2, exportedAt: '2026-01-01T00:00:00Z', sandboxes: [] }), /\/version/],
    ['not an export', JSON.stringify([1, 2]), /export document/],
    [
      'the same sandbox twice',
      JSON.stringify({ format: 'mockapi-export', version: 1, exportedAt: '2026-01-01T00:00:00Z', sandboxes: [{ id: 'x', collections: {} }, { id: 'x', collections: {} }] }),
      /\/sandboxes\/1\/id/,
    ],
  ])('%s', async (_name, text, message) => {
    const source = file('broken.json');
    writeFileSync(source, text);
    const result = await run(['import', source, '--db', server.db]);
    expectOneLineError(result, 1);
    expect(result.stderr).toMatch(message);
  });

  it('a missing file, or a database that does not exist', async () => {
    const missing = await spawned(['import', file('nope.json'), '--db', server.db]);
    expectOneLineError(missing, 1);
    expect(missing.stderr).toContain('nope.json');
    const nodb = file('none.db');
    for (const args of [['export', '--all'], ['reset', '--all']]) {
      const result = await run([...args, '--db', nodb]);
      expectOneLineError(result, 1);
      expect(result.stderr).toContain('none.db');
    }
    expect(existsSync(nodb)).toBe(false);
  });

  it.each([
    [['reset']],
    [['reset', '--all', '--sandbox', 'x']],
    [['export']],
    [['export', '--all', '--sandbox', 'x']],
    [['export', '--sandbox', 'not valid!']],
    [['reset', '--sandbox']],
    [['import']],
    [['import', 'a.json', '--bogus']],
    [['export', '--all', 'extra']],
  ])('mockapi %j → 2', async (args) => {
    expectOneLineError(await run([...args, '--db', server.db]), 2);
  });

  it('the real binary: bad usage exits 2 with one line', async () => {
    expectOneLineError(await spawned(['export', '--all', '--sandbox', 'x', '--db', server.db]), 2);
  });

  it.each(['reset', 'export', 'import', 'init'])('mockapi %s --help', async (command) => {
    // The real binary once; the same help in this worker for the others.
    const result = await (command === 'import' ? spawned : run)([command, '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Usage: mockapi ${command}`);
    if (command !== 'init') for (const flag of ['--db <file>', '--config <file>']) expect(result.stdout).toContain(flag);
  });
});
