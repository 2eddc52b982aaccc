import { describe, expect, it } from 'vitest';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { refusedServe } from './helpers/cli-in-process.js';
import { repoRoot, sandboxClient, startServer } from './helpers/server.js';

// The baseline reloads at start when the fixture files changed (hash), and only then is checked.
describe('loading fixtures', () => {
  it('reloads an edited fixture on restart and refuses a broken one with one line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mockapi-fixtures-'));
    try {
      cpSync(join(repoRoot, 'fixtures'), join(dir, 'fixtures'), { recursive: true, filter: (src) => !src.endsWith('.mjs') });
      writeFileSync(join(dir, 'mockapi.config.json'), JSON.stringify({ fixtures: './fixtures' }));
      const db = join(dir, 'shared.db');

      const first = await startServer({ cwd: dir, db });
      const before = (await sandboxClient(first.api).get('/users/1')).body.name;
      await first.stop();

      const users = JSON.parse(readFileSync(join(dir, 'fixtures/users.json'), 'utf8'));
      users[0].name = 'Renamed In Fixture';
      writeFileSync(join(dir, 'fixtures/users.json'), JSON.stringify(users));
      const second = await startServer({ cwd: dir, db });
      expect((await sandboxClient(second.api).get('/users/1')).body.name).toBe('Renamed In Fixture');
      expect(before).not.toBe('Renamed In Fixture');
      await second.stop();

      // A foreign key written as text names the same record, and is served as the API stores it.
      const posts = JSON.parse(readFileSync(join(dir, 'fixtures/posts.json'), 'utf8'));
      posts[0].user_id = String(posts[0].user_id);
      writeFileSync(join(dir, 'fixtures/posts.json'), JSON.stringify(posts));
      const third = await startServer({ cwd: dir, db });
      const client = sandboxClient(third.api);
      expect((await client.get(`/posts/${posts[0].id}`)).body.user_id).toBe(Number(posts[0].user_id));
      expect((await client.get(`/posts?user_id=${posts[0].user_id}&limit=200`)).body.data.map((p: { id: number }) => p.id)).toContain(posts[0].id);
      expect((await client.get(`/users/${posts[0].user_id}/posts?limit=200`)).body.data.map((p: { id: number }) => p.id)).toContain(posts[0].id);
      await third.stop();

      // Each broken shape of a fixture file: exit 1 with one line naming the file.
      const original = readFileSync(join(dir, 'fixtures/todos.json'), 'utf8');
      const todos = JSON.parse(original);
      for (const [broken, says] of [
        [JSON.stringify({ todos }), 'must be a JSON array'],
        [JSON.stringify([{ ...todos[0], id: 'x' }, ...todos.slice(1)]), '"id" must be an integer'],
        [JSON.stringify([{ ...todos[0], id: 1.5 }, ...todos.slice(1)]), '"id" must be an integer'],
        [JSON.stringify([todos[0], { ...todos[1], id: todos[0].id }, ...todos.slice(2)]), `duplicate id ${todos[0].id}`],
      ]) {
        writeFileSync(join(dir, 'fixtures/todos.json'), broken);
        const refused = await refusedServe(['--port', '0', '--db', db], dir);
        expect(refused.code).toBe(1);
        expect(refused.stderr).toContain('todos.json');
        expect(refused.stderr).toContain(says);
        expect(refused.stderr.trim().split('\n')).toHaveLength(1);
      }
      writeFileSync(join(dir, 'fixtures/todos.json'), original);

      users[1].email = 'not an address';
      writeFileSync(join(dir, 'fixtures/users.json'), JSON.stringify(users));
      const broken = await refusedServe(['--port', '0', '--db', db], dir);
      expect(broken.code).toBe(1);
      expect(broken.stderr).toContain('users.json');
      expect(broken.stderr).toContain('/email');
      expect(broken.stderr.trim().split('\n')).toHaveLength(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names a broken record by its place counted from 1 and its id, a dangling foreign key by file, record and key, and warns of a folder with no collection file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mockapi-fixtures-'));
    const serve = () => refusedServe(['--port', '0', '--db', ':memory:'], dir);
    try {
      cpSync(join(repoRoot, 'fixtures'), join(dir, 'fixtures'), { recursive: true, filter: (src) => !src.endsWith('.mjs') });
      writeFileSync(join(dir, 'mockapi.config.json'), JSON.stringify({ fixtures: './fixtures' }));
      const todos = JSON.parse(readFileSync(join(dir, 'fixtures/todos.json'), 'utf8'));
      writeFileSync(join(dir, 'fixtures/todos.json'), JSON.stringify([todos[0], { ...todos[1], completed: 'yes' }, ...todos.slice(2)]));
      const invalid = await serve();
      expect(invalid.code).toBe(1);
      expect(invalid.stderr.trim()).toMatch(new RegExp(`todos\\.json record #2 \\(index 1, id ${todos[1].id}\\): /completed `));
      writeFileSync(join(dir, 'fixtures/todos.json'), JSON.stringify(todos));

      const posts = JSON.parse(readFileSync(join(dir, 'fixtures/posts.json'), 'utf8'));
      posts[3].user_id = 999;
      writeFileSync(join(dir, 'fixtures/posts.json'), JSON.stringify(posts));
      const dangling = await serve();
      expect(dangling.code).toBe(1);
      expect(dangling.stderr.trim()).toBe(`mockapi: ${join(dir, 'fixtures/posts.json')} record #4 (index 3, id ${posts[3].id}): user_id 999 names no record of users`);

      // A folder without any <collection>.json (a typo'd file name, the wrong folder): it serves, empty, and says so.
      mkdirSync(join(dir, 'empty'));
      writeFileSync(join(dir, 'empty/user.json'), '[]');
      writeFileSync(join(dir, 'empty.config.json'), JSON.stringify({ fixtures: './empty' }));
      const empty = await startServer({ cwd: dir, args: ['--config', join(dir, 'empty.config.json')], cli: true });
      try {
        expect((await sandboxClient(empty.api).get('/users')).body.data).toEqual([]);
        expect(empty.stderr()).toContain(`${join(dir, 'empty')} holds no collection file (users.json, posts.json, comments.json, todos.json): they start empty`);
      } finally {
        await empty.cleanup();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
