import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { cpSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, fromHere, repoRoot, sandboxClient, startServer, type CliServer } from './helpers/server.js';
import { COLLECTIONS, create, expectProblem, newRecord } from './helpers/problems.js';

/**
 * `serve --watch`, end to end: a real server over a temporary copy of the fixtures, edited on
 * disk while clients keep asking. The repo's own fixtures/ are only ever read.
 */

let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});
let sharedCleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const cleanup of sharedCleanups.reverse()) await cleanup();
  sharedCleanups = [];
});

interface Project {
  dir: string;
  fixtures: string;
  config: string;
  server: CliServer;
}

type ProjectOptions = { ext?: ConfigKind; limits?: Record<string, unknown> };

/** A folder with a copy of the fixtures and a config pointing at it, served with `--watch` until the file's tests end. */
async function watchedProject(config: ProjectOptions): Promise<Project> {
  const dir = mkdtempSync(join(tmpdir(), 'mockapi-watch-'));
  sharedCleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const fixtures = join(dir, 'fixtures');
  for (const name of COLLECTIONS) cpSync(join(repoRoot, 'fixtures', `${name}.json`), join(fixtures, `${name}.json`));
  const kind = config.ext ?? 'json';
  const file = join(dir, `mockapi.config.${kind.replace(' importing mockapi', '')}`);
  if (kind.endsWith('importing mockapi')) importsMockapi.add(file);
  writeConfig(file, { fixtures: 'fixtures', limits: config.limits ?? {} });
  // The database inside the watched folder: its writes (and -wal, -shm) must not count as edits.
  const server = await startServer({ cli: true, args: ['--watch', '--config', file], cwd: dir, db: join(fixtures, 'mockapi.db') });
  sharedCleanups.push(() => server.cleanup());
  return { dir, fixtures, config: file, server };
}

/**
 * One watched project for the tests that follow each other on it (each spawned server costs
 * about a second of CPU): each test starts from what the one before left loaded, and reads the
 * server's output from where it began (the first from the server's start, the others `fromHere`).
 */
function sharedProject(config: ProjectOptions = {}): () => Promise<Project> {
  let started: Project | undefined;
  return async () => {
    if (!started) return (started = await watchedProject(config));
    return { ...started, server: fromHere(started.server) };
  };
}

type ConfigKind = 'json' | 'mjs' | 'mjs importing mockapi' | 'ts';
const importsMockapi = new Set<string>();

function writeConfig(file: string, config: Record<string, unknown>): void {
  const json = JSON.stringify(config, null, 2);
  // .ts the way `mockapi init` writes it, importing `mockapi` (not installed in the temp folder).
  if (file.endsWith('.ts') || importsMockapi.has(file)) writeFileSync(file, `import { defineConfig } from 'mockapi';\nexport default defineConfig(${json});\n`);
  else if (file.endsWith('.mjs')) writeFileSync(file, `export default ${json};\n`);
  else writeFileSync(file, json);
}

function readUsers(project: Project): Record<string, any>[] {
  return JSON.parse(readFileSync(join(project.fixtures, 'users.json'), 'utf8'));
}

/** Writes users.json with the first user's name changed, as an editor that writes in place would. */
function renameFirstUser(project: Project, name: string): void {
  const users = readUsers(project);
  users[0].name = name;
  writeFileSync(join(project.fixtures, 'users.json'), JSON.stringify(users, null, 2));
}

/** Lines the server wrote to stderr as `mockapi: ...` (each watcher problem is one of them). */
const errorLines = (server: CliServer) => server.stderr().split('\n').filter((line) => line.startsWith('mockapi: '));

const sleep = (ms: number) => new Promise((wait) => setTimeout(wait, ms));

/** Waits a little longer than the watcher's debounce, to be sure nothing more is coming. */
const settle = () => new Promise((wait) => setTimeout(wait, 600));

/** Clients that keep reading a record and a list until stopped, recording every outcome. */
function keepReading(api: string, paths: string[]) {
  const outcomes: string[] = [];
  let running = true;
  const loops = paths.map(async (path) => {
    const client = sandboxClient(api);
    while (running) {
      try {
        const answer = await client.get(path);
        outcomes.push(answer.status === 200 ? 'ok' : `${path}: ${answer.status} ${answer.text.slice(0, 200)}`);
      } catch (error) {
        outcomes.push(`${path}: ${(error as Error).message}`);
      }
    }
  });
  return {
    outcomes,
    stop: async () => {
      running = false;
      await Promise.all(loops);
      return outcomes;
    },
  };
}

// The plain fixtures, for the tests of the next two describes: edits that each leave the files loadable.
const fixturesProject = sharedProject();

describe('serve --watch: fixtures', () => {
  it('serves an edited fixture without a restart, fails no request meanwhile, and keeps sandboxes', async () => {
    const project = await fixturesProject();
    const { server } = project;
    await eventually('the watching line', () => server.stdout().includes(`watching ${project.fixtures} and ${project.config}`));

    const visitor = sandboxClient(server.api);
    const created = { body: await create(visitor, 'users') };
    const changed = await visitor.patch('/users/2', { name: 'Changed In The Sandbox' });
    expect(changed.status, changed.text).toBe(200);
    const originalName = readUsers(project)[0].name;

    const readers = keepReading(server.api, ['/users/1', '/users?limit=50', '/users/1', '/posts?limit=20']);
    await new Promise((wait) => setTimeout(wait, 300));
    renameFirstUser(project, 'Renamed On Disk');
    const fresh = sandboxClient(server.api);
    await eventually('the edited name', async () => (await fresh.get('/users/1')).body?.name === 'Renamed On Disk');

    // An editor that saves by writing a temporary file and renaming it over the old one.
    const users = readUsers(project);
    users[0].name = 'Saved Atomically';
    const temporary = join(project.fixtures, 'users.json.tmp-save');
    writeFileSync(temporary, JSON.stringify(users));
    renameSync(temporary, join(project.fixtures, 'users.json'));
    await eventually('the atomically saved name', async () => (await fresh.get('/users/1')).body?.name === 'Saved Atomically');
    await new Promise((wait) => setTimeout(wait, 200));

    const outcomes = await readers.stop();
    expect(outcomes.filter((outcome) => outcome !== 'ok')).toEqual([]);
    expect(outcomes.length).toBeGreaterThan(40);

    // The list shows the new baseline too, and the visitor's own records survived both reloads.
    const list = await fresh.get('/users?limit=5');
    expect(list.body.data[0]).toMatchObject({ id: 1, name: 'Saved Atomically' });
    expect(list.body.data.map((user: { name: string }) => user.name)).not.toContain(originalName);
    const own = await visitor.get(`/users/${created.body.id}`);
    expect(own.status, own.text).toBe(200);
    expect(own.body).toEqual(created.body);
    expect((await visitor.get('/users/2')).body.name).toBe('Changed In The Sandbox');
    expect((await visitor.get('/users/1')).body.name).toBe('Saved Atomically');
    expect((await fresh.get('/users/2')).body.name).toBe(readUsers(project)[1].name);

    expect(server.stdout().match(/reloaded fixtures: users \(25 records\)\n/g)).toHaveLength(2);
    expect(server.stdout().match(/reloaded/g)).toHaveLength(2);
    expect(errorLines(server)).toEqual([]);
  });

  it('keeps the last good baseline while a fixture is broken, says so in one line, and picks up the fix', async () => {
    const project = await fixturesProject();
    const { server } = project;
    const client = sandboxClient(server.api);
    const before = (await client.get('/users/1')).body;
    const beforeList = (await client.get('/users?limit=30')).body;
    const usersFile = join(project.fixtures, 'users.json');
    const good = readFileSync(usersFile, 'utf8');

    writeFileSync(usersFile, good.slice(0, good.length / 2));
    await eventually('an error line', () => errorLines(server).length >= 1);
    await settle();
    expect(errorLines(server)).toHaveLength(1);
    expect(errorLines(server)[0]).toMatch(/^mockapi: fixtures not reloaded.*users\.json: not valid JSON/);
    expect((await client.get('/users/1')).body).toEqual(before);
    expect((await client.get('/users?limit=30')).body).toEqual(beforeList);

    const users = JSON.parse(good);
    users[2].email = 'not an email';
    users[2].name = 'Invalid Record';
    writeFileSync(usersFile, JSON.stringify(users));
    await eventually('a second error line', () => errorLines(server).length >= 2);
    await settle();
    expect(errorLines(server)).toHaveLength(2);
    expect(errorLines(server)[1]).toMatch(/users\.json record #3 \(index 2, id 3\): .*email/);
    expect((await client.get('/users/3')).body.name).toBe(JSON.parse(good)[2].name);
    expect((await client.get('/users?limit=30')).body).toEqual(beforeList);

    // A post naming a user that does not exist: every file is valid alone, the set is not.
    const posts = JSON.parse(readFileSync(join(project.fixtures, 'posts.json'), 'utf8'));
    writeFileSync(usersFile, good);
    const userOfFirstPost = posts[0].user_id;
    posts[0].user_id = 9999;
    writeFileSync(join(project.fixtures, 'posts.json'), JSON.stringify(posts));
    await eventually('a third error line', () => errorLines(server).length >= 3);
    expect(errorLines(server)[2]).toMatch(/posts\.json record #1 \(index 0, id 1\): user_id 9999/);
    expect((await client.get('/posts/1')).body.user_id).toBe(userOfFirstPost);

    posts[0].user_id = 1;
    posts[0].title = 'Fixed Title';
    writeFileSync(join(project.fixtures, 'posts.json'), JSON.stringify(posts));
    await eventually('the fixed post', async () => (await client.get('/posts/1')).body?.title === 'Fixed Title');
    expect((await client.get('/posts/1')).body.user_id).toBe(1);
    expect((await client.get('/users/1')).body).toEqual(before);
    expect(server.stdout()).toMatch(/reloaded fixtures: .*posts/);
    await settle();
    expect(errorLines(server)).toHaveLength(3);
  });

  it('keeps a collection whose file disappears, and reloads once it is back', async () => {
    const project = await fixturesProject();
    const { server } = project;
    const client = sandboxClient(server.api);
    const todosFile = join(project.fixtures, 'todos.json');
    const todos = readFileSync(todosFile, 'utf8');

    rmSync(todosFile);
    await eventually('an error line', () => errorLines(server).length >= 1);
    expect(errorLines(server)[0]).toMatch(/todos\.json missing/);
    expect((await client.get('/todos?limit=1')).body.data).toHaveLength(1);

    const edited = JSON.parse(todos);
    edited[0].title = 'Back Again';
    writeFileSync(todosFile, JSON.stringify(edited));
    await eventually('the restored todos', async () => (await client.get('/todos/1')).body?.title === 'Back Again');
    await eventually('its reload line', () => server.stdout().includes('reloaded fixtures: todos (200 records); every fixture loads again\n'));
  });
});

describe('serve --watch: what a reload prints', () => {
  const reloadLines = (server: CliServer) => server.stdout().split('\n').filter((line) => /fixtures/.test(line) && !line.includes('watching'));

  it('counts the records of each changed file, not of the whole baseline', async () => {
    const project = await fixturesProject();
    const { server } = project;
    const client = sandboxClient(server.api);
    renameFirstUser(project, 'Counted');
    const todos = JSON.parse(readFileSync(join(project.fixtures, 'todos.json'), 'utf8'));
    todos.push({ ...todos[0], id: 201, title: 'One More' });
    writeFileSync(join(project.fixtures, 'todos.json'), JSON.stringify(todos));
    await eventually('the new todo', async () => (await client.get('/todos/201')).body?.title === 'One More');
    await eventually('the reload line', () => reloadLines(server).length > 0);
    await settle();
    const lines = reloadLines(server);
    // Saved within the debounce: one reload naming both; written apart: one line each.
    if (lines.length === 1) expect(lines[0]).toMatch(/reloaded fixtures: users \(25 records\), todos \(201 records\)$/);
    else expect(lines.map((line) => line.replace(/^.*reloaded fixtures: /, '')).sort()).toEqual(['todos (201 records)', 'users (25 records)']);
  });

  it('says so when a broken fixture loads again, even restored to what was served', async () => {
    const project = await fixturesProject();
    const { server } = project;
    const usersFile = join(project.fixtures, 'users.json');
    const good = readFileSync(usersFile, 'utf8');

    writeFileSync(usersFile, good.slice(0, 100));
    await eventually('an error line', () => errorLines(server).length === 1);
    writeFileSync(usersFile, good);
    await eventually('the loads-again line', () => server.stdout().includes('fixtures load again; the baseline is unchanged\n'));

    writeFileSync(usersFile, '[');
    await eventually('a second error line', () => errorLines(server).length === 2);
    const users = JSON.parse(good);
    users[0].name = 'Fixed And Changed';
    writeFileSync(usersFile, JSON.stringify(users));
    await eventually('the reload line', () => /reloaded fixtures: users \(25 records\); every fixture loads again\n/.test(server.stdout()));
    await settle();
    expect(reloadLines(server)).toHaveLength(2);
    expect(errorLines(server)).toHaveLength(2);
    // The last test on this project: a watching server stops on SIGTERM with exit 0, after all the reloads above.
    expect(await server.stop('SIGTERM')).toBe(0);
  });
});

describe('serve --watch: config', () => {
  it('without a config file watches the fixtures folder only, quietly', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mockapi-watch-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const server = await startServer({ cli: true, args: ['--watch'], cwd: dir });
    cleanups.push(() => server.cleanup());
    await eventually('the watching line', () => /watching \S+\n/.test(server.stdout()));
    expect(server.stdout()).toContain(`watching ${join(repoRoot, 'fixtures')}\n`);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    expect(server.stderr()).toBe('');
  });

  // One project per kind of config file, each a real `serve --watch` end to end; the mjs one goes on below.
  const kinds = ['json', 'mjs', 'mjs importing mockapi', 'ts'] as const;
  const kindProjects = Object.fromEntries(kinds.map((ext) => [ext, sharedProject({ ext, limits: { maxPageSize: 20 } })]));
  // Started with createdPerCollection 2, then each test sets the limits it is about.
  const limitsProject = sharedProject({ limits: { createdPerCollection: 2 } });

  it.each(kinds)('applies limits from an edited mockapi.config.%s without a restart', async (ext) => {
    const project = await kindProjects[ext]!();
    const { server } = project;
    const client = sandboxClient(server.api);
    expectProblem(await client.get('/users?limit=25'), 400, 'INVALID_QUERY');

    writeConfig(project.config, { fixtures: 'fixtures', limits: { maxPageSize: 100 } });
    await eventually('the larger page size', async () => (await client.get('/users?limit=25')).status === 200);
    expect((await client.get('/users?limit=25')).body.data).toHaveLength(25);
    expect(server.stdout()).toContain('reloaded config');

    // A config that does not load keeps the last good one.
    writeFileSync(project.config, ext === 'json' ? '{"limits": {' : 'export default {limits: {');
    await eventually('an error line', () => errorLines(server).length >= 1);
    await settle();
    expect(errorLines(server)).toHaveLength(1);
    expect(errorLines(server)[0]).toMatch(/^mockapi: config not reloaded/);
    expect((await client.get('/users?limit=25')).status).toBe(200);
    expectProblem(await client.get('/users?limit=101'), 400, 'INVALID_QUERY');

    // So does one that loads but is not valid.
    writeConfig(project.config, { fixtures: 'fixtures', limits: { maxPageSize: -1 } });
    await eventually('a second error line', () => errorLines(server).length >= 2);
    expect(errorLines(server)[1]).toMatch(/maxPageSize/);
    expect((await client.get('/users?limit=25')).status).toBe(200);

    // What is bound at start only warns; the rest still applies.
    writeConfig(project.config, { fixtures: 'fixtures', host: '0.0.0.0', limits: { maxPageSize: 10 } });
    await eventually('the smaller page size', async () => (await client.get('/users?limit=25')).status === 400);
    await eventually('the restart warning', () => errorLines(server).length >= 3);
    expect(errorLines(server)[2]).toMatch(/host changed .*restart/);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  });

  // Routes read maxPageSize per request; these limits are the engine's, read deep inside its stores.
  it('applies a new limits.createdPerCollection to the engine without a restart, raised and lowered', async () => {
    const project = await limitsProject();
    const { server } = project;
    const reloads = () => server.stdout().split('reloaded config').length - 1;
    const client = sandboxClient(server.api);
    await create(client, 'todos');
    await create(client, 'todos');
    expectProblem(await client.post('/todos', newRecord('todos')), 403, 'QUOTA_EXCEEDED');

    writeConfig(project.config, { fixtures: 'fixtures', limits: { createdPerCollection: 4 } });
    await eventually('the reload', () => reloads() === 1);
    await create(client, 'todos');
    await create(client, 'todos');
    expectProblem(await client.post('/todos', newRecord('todos')), 403, 'QUOTA_EXCEEDED');
    expect((await client.get('/sandbox')).body.quotas.todos).toEqual({ created: 4, limit: 4 });

    // Lowered under what the sandbox holds: its records stay, no more are created.
    writeConfig(project.config, { fixtures: 'fixtures', limits: { createdPerCollection: 1 } });
    await eventually('the second reload', () => reloads() === 2);
    expectProblem(await client.post('/todos', newRecord('todos')), 403, 'QUOTA_EXCEEDED');
    expect((await client.get('/todos?limit=200')).body.pagination.total).toBe(204);
    await create(sandboxClient(server.api), 'todos');
  });

  it('applies a new limits.sandboxTtl to the engine without a restart, set and then lifted', async () => {
    // The 7-day default before (the config the last test left names no TTL).
    const project = await limitsProject();
    const { server } = project;
    const reloads = () => server.stdout().split('reloaded config').length - 1;
    const client = sandboxClient(server.api);
    const early = await create(client, 'posts');

    writeConfig(project.config, { fixtures: 'fixtures', limits: { sandboxTtl: 1 } });
    await eventually('the reload', () => reloads() === 1);
    const late = await create(client, 'posts');
    await sleep(1_300);
    // Idle past the new TTL: purged (by the sweep or by this very request), both posts gone.
    expectProblem(await client.get(`/posts/${late.id}`), 404, 'NOT_FOUND');
    expectProblem(await client.get(`/posts/${early.id}`), 404, 'NOT_FOUND');

    writeConfig(project.config, { fixtures: 'fixtures', limits: { sandboxTtl: 0 } });
    await eventually('the second reload', () => reloads() === 2);
    const kept = await create(client, 'posts');
    await sleep(1_300);
    expect((await client.get(`/posts/${kept.id}`)).status).toBe(200);
  });

  it('reloads a config the way it was first loaded, $<NODE_ENV> overrides included', async () => {
    // vitest runs with NODE_ENV=test, and the server inherits it: c12 applies `$test`.
    // After the test above: maxPageSize 10 is served.
    const project = await kindProjects.mjs!();
    const client = sandboxClient(project.server.api);
    writeConfig(project.config, { fixtures: 'fixtures', limits: { maxPageSize: 20 }, $test: { limits: { maxPageSize: 30 } } });
    await eventually('the $test page size', async () => (await client.get('/users?limit=25')).status === 200);
    expectProblem(await client.get('/users?limit=31'), 400, 'INVALID_QUERY');
  });

  it('follows the config to another fixtures folder', async () => {
    const project = await limitsProject();
    const { server } = project;
    const other = join(project.dir, 'other-fixtures');
    cpSync(project.fixtures, other, { recursive: true });
    const users = JSON.parse(readFileSync(join(other, 'users.json'), 'utf8'));
    users[0].name = 'From The Other Folder';
    writeFileSync(join(other, 'users.json'), JSON.stringify(users));

    writeConfig(project.config, { fixtures: 'other-fixtures' });
    const client = sandboxClient(server.api);
    await eventually('the other folder', async () => (await client.get('/users/1')).body?.name === 'From The Other Folder');

    // The new folder is the one watched now.
    users[0].name = 'Edited In The Other Folder';
    writeFileSync(join(other, 'users.json'), JSON.stringify(users));
    await eventually('the edit', async () => (await client.get('/users/1')).body?.name === 'Edited In The Other Folder');
    await settle();
    expect((await client.get('/users/1')).body.name).toBe('Edited In The Other Folder');
    expect(errorLines(server)).toEqual([]);
  });
});
