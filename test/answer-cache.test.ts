import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { coreCollections } from '../src/collections/registry.js';
import { openDatabase } from '../src/db/open.js';
import { createEngine } from '../src/engine/engine.js';
import { loadBaseline } from '../src/engine/baseline.js';
import { sandboxClient, useServer } from './helpers/server.js';

// The server keeps finished answers of reads; these tests make sure it never serves a stale one,
// whether the write came through HTTP or from another process on the same SQLite file.
const server = useServer();
const fresh = (id?: string) => sandboxClient(server.api, id);

describe('answers of reads', () => {
  it('follow the sandbox own writes at once, on every kind of read', async () => {
    const client = fresh();
    const reads = ['/posts', '/posts/1', '/posts?q=quokka', '/users/2/posts', '/posts/1/user', '/posts?_sort=-title&limit=3', '/users/2?_embed=posts'];
    const before = await Promise.all(reads.map((path) => client.get(path)));
    for (const path of reads) expect((await client.get(path)).text, `${path} twice`).toBe(before[reads.indexOf(path)].text);

    await client.patch('/posts/1', { title: 'quokka zz title', user_id: 2 });
    const after = await Promise.all(reads.map((path) => client.get(path)));
    for (const [i, answer] of after.entries()) expect(answer.text, reads[i]).not.toBe(before[i].text);
    expect((await client.get('/posts/1')).body.title).toBe('quokka zz title');
    expect((await client.get('/posts/1/user')).body.id).toBe(2);

    await client.post('/sandbox/reset');
    for (const [i, path] of reads.entries()) expect((await client.get(path)).text, `${path} after reset`).toBe(before[i].text);
  });

  it('follow a write of another collection wherever they embed, expand or nest it, and keep what it does not touch', async () => {
    const client = fresh();
    // A sandbox that holds data keeps answers of its own (its first write drops the baseline's it read).
    expect((await client.post('/todos', { user_id: 1, title: 'hold data', completed: false })).status).toBe(200);
    const author = (await client.get('/posts/1')).body.user_id as number;
    const comment = (await client.get('/comments?post_id=1&limit=1')).body.data[0].id as number;
    const touched = ['/posts?_expand=user&limit=3', '/posts/1?_expand=user', '/posts/1/user', `/users/${author}`, '/users?limit=50', `/users/${author}?_embed=posts`];
    const untouched = ['/todos?limit=3', '/todos/2', `/comments/${comment}`, '/posts?limit=3'];
    const before = new Map<string, string>();
    for (const path of [...touched, ...untouched]) before.set(path, (await client.get(path)).text);

    expect((await client.patch(`/users/${author}`, { name: 'Renamed Person' })).status).toBe(200);
    for (const path of touched) {
      const answer = await client.get(path);
      expect(answer.text, path).not.toBe(before.get(path));
      expect(answer.text, path).toContain('Renamed Person');
    }
    for (const path of untouched) expect((await client.get(path)).text, path).toBe(before.get(path));

    // A comment's expanded post follows the post; so does the author's embedded list.
    const expanded = `/comments?post_id=1&_expand=post&limit=1`;
    expect((await client.get(expanded)).body.data[0].post.title).not.toBe('Retitled post');
    expect((await client.patch('/posts/1', { title: 'Retitled post' })).status).toBe(200);
    expect((await client.get(expanded)).body.data[0].post.title).toBe('Retitled post');
    expect((await client.get(`/users/${author}?_embed=posts`)).body.posts.find((post: { id: number }) => post.id === 1).title).toBe('Retitled post');
    expect((await client.post('/graphql', { query: `{ user(id: ${author}) { name } todo(id: 2) { title } }` })).body.data.user.name).toBe('Renamed Person');
    expect((await client.delete(`/users/${author}`)).status).toBe(200);
    expect((await client.get('/posts/1/user')).status).toBe(404);
    expect((await client.get('/users?limit=50')).body.data.map((user: { id: number }) => user.id)).not.toContain(author);
  });

  it('of GraphQL queries are kept like REST ones and follow the sandbox writes (a mutation is never kept)', async () => {
    const client = fresh();
    const query = { query: 'query($id: ID!) { post(id: $id) { id title } posts(limit: 2) { data { id title } } }', variables: { id: 1 } };
    const before = await client.post('/graphql', query);
    expect(before.body.data.post.id).toBe('1');
    expect((await client.post('/graphql', query)).text).toBe(before.text);
    const rename = { query: 'mutation { updatePost(id: 1, input: { title: "kept?" }) { title } }' };
    expect((await client.post('/graphql', rename)).body.data.updatePost.title).toBe('kept?');
    const after = await client.post('/graphql', query);
    expect(after.body.data.post.title).toBe('kept?');
    await client.patch('/posts/1', { title: 'renamed by REST' });
    expect((await client.post('/graphql', query)).body.data.post.title).toBe('renamed by REST');
    // Same body, another media type asked for: graphql-http's own answer, not the kept one.
    expect((await client.post('/graphql', query, { 'content-type': 'text/plain' })).status).toBe(415);
    expect((await fresh().post('/graphql', query)).body.data.post.title).toBe(before.body.data.post.title);
  });

  it('are never shared between a sandbox that wrote and those that only read', async () => {
    const reader = fresh();
    const writer = fresh();
    const baseline = (await reader.get('/todos/3')).text;
    expect((await writer.get('/todos/3')).text).toBe(baseline);
    await writer.patch('/todos/3', { title: 'mine only' });
    expect((await writer.get('/todos/3')).body.title).toBe('mine only');
    expect((await reader.get('/todos/3')).text).toBe(baseline);
    expect((await fresh().get('/todos/3')).text).toBe(baseline);
  });

  describe('after another process writes the same file', () => {
    const other = () => {
      const db = openDatabase(server.db);
      return { db, engine: createEngine({ db, collections: coreCollections, limits: { createdPerCollection: 30 } }) };
    };
    const opened: { db: ReturnType<typeof openDatabase> }[] = [];
    afterAll(() => opened.forEach(({ db }) => db.close()));

    it('serve the change on the next request (a write, then a reset)', async () => {
      const client = fresh('cache-other-process');
      const first = await client.get('/comments/9');
      expect((await client.get('/comments/9')).text).toBe(first.text);
      await client.get('/comments?q=zzyzx');

      const { db, engine } = other();
      opened.push({ db });
      engine.collection('comments')!.patch('cache-other-process', 9, { body: 'zzyzx from elsewhere' });
      expect((await client.get('/comments/9')).body.body).toBe('zzyzx from elsewhere');
      expect((await client.get('/comments?q=zzyzx')).body.pagination.total).toBe(1);

      engine.reset('cache-other-process');
      expect((await client.get('/comments/9')).text).toBe(first.text);
      expect((await client.get('/comments?q=zzyzx')).body.pagination.total).toBe(0);
    });

    it('serve the baseline it loaded: totals and searches, which the server works out once per baseline', async () => {
      const client = fresh('cache-other-baseline');
      const folder = mkdtempSync(join(tmpdir(), 'mockapi-other-baseline-'));
      const shipped = fileURLToPath(new URL('../fixtures/', import.meta.url));
      for (const name of ['users', 'comments']) copyFileSync(join(shipped, `${name}.json`), join(folder, `${name}.json`));
      const read = (name: string) => JSON.parse(readFileSync(join(shipped, `${name}.json`), 'utf8')) as { id: number; title: string }[];
      writeFileSync(join(folder, 'posts.json'), JSON.stringify(read('posts').map((post) => (post.id === 4 ? { ...post, title: 'wombat wanderings' } : post))));
      writeFileSync(join(folder, 'todos.json'), JSON.stringify(read('todos').slice(0, 4)));
      const asked = ['/todos?limit=2', '/posts?q=wombat', '/comments?limit=2'];
      const before = await Promise.all(asked.map((path) => client.get(path)));
      expect(before.map((answer) => answer.body.pagination.total)).toEqual([200, 0, 500]);

      const { db, engine } = other();
      opened.push({ db });
      try {
        expect(loadBaseline(db, folder, coreCollections, engine)).toBe(true);
        // A fresh query string too: the answers were dropped, and so is what the server worked out from the old baseline.
        for (const suffix of ['', '&_=1']) {
          const after = await Promise.all(asked.map((path) => client.get(`${path}${suffix}`)));
          expect(after.map((answer) => answer.body.pagination.total)).toEqual([4, 1, 500]);
          expect(after[1]!.body.data.map((post: { id: number }) => post.id)).toEqual([4]);
        }
      } finally {
        loadBaseline(db, shipped, coreCollections, engine);
        rmSync(folder, { recursive: true, force: true });
      }
      expect((await client.get('/todos?limit=2')).body.pagination.total).toBe(200);
    });
  });
});
