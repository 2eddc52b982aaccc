import { describe, expect, it } from 'vitest';
import { expectProblem } from './helpers/problems.js';
import { sandboxClient, useServer, type Answer } from './helpers/server.js';

// Sub-resources and embeds (contract section 5): generic over the definitions' relations.
const server = useServer();
const fresh = () => sandboxClient(server.api);
const ids = (answer: Answer) => answer.body.data.map((r: { id: unknown }) => r.id);

describe('sub-resources', () => {
  it.each([
    ['/users/1/posts', '/posts?user_id=1'],
    ['/users/1/todos', '/todos?user_id=1'],
    ['/posts/1/comments', '/comments?post_id=1'],
  ])('%s lists the same records as %s', async (sub, filtered) => {
    const client = fresh();
    const a = await client.get(`${sub}?limit=200`);
    expect(a.status).toBe(200);
    expect(a.body.data.length).toBeGreaterThan(0);
    expect(a.body).toEqual((await client.get(`${filtered}&limit=200`)).body);
  });

  it('lists a user comments by email, with every list parameter', async () => {
    const client = fresh();
    const user = (await client.get('/users/3')).body;
    const comments = await client.get('/users/3/comments?limit=200');
    expect(comments.body.pagination.total).toBe(4);
    expect(comments.body.data).toHaveLength(4);
    for (const comment of comments.body.data) expect(comment.email).toBe(user.email);
    const sorted = await client.get('/users/3/comments?_sort=-id&limit=2');
    expect(ids(sorted)).toEqual(ids(comments).sort((a: number, b: number) => b - a).slice(0, 2));
    const next = await client.get(`/users/3/comments?_sort=-id&limit=2&cursor=${sorted.body.pagination.nextCursor}`);
    expect(ids(next)).toEqual(ids(comments).sort((a: number, b: number) => b - a).slice(2, 4));
    expectProblem(await client.get('/users/3/comments?nope=1'), 400, 'INVALID_QUERY');
  });

  it.each([
    ['/posts/1/user', 'users', 'user_id', '/posts/1'],
    ['/todos/5/user', 'users', 'user_id', '/todos/5'],
    ['/comments/7/post', 'posts', 'post_id', '/comments/7'],
  ])('%s is the parent record', async (path, collection, field, child) => {
    const client = fresh();
    const parentId = (await client.get(child)).body[field];
    const answer = await client.get(path);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual((await client.get(`/${collection}/${parentId}`)).body);
  });

  it('follows the sandbox: created children and parents, changed foreign keys', async () => {
    const client = fresh();
    const user = await client.post('/users', { name: 'Rel Test', username: 'rel_test', email: 'rel.test@example.com' });
    const post = await client.post('/posts', { user_id: user.body.id, title: 't', body: 'b' });
    const comment = await client.post('/comments', { post_id: post.body.id, name: 'n', email: 'rel.test@example.com', body: 'b' });
    expect(ids(await client.get(`/users/${user.body.id}/posts`))).toEqual([post.body.id]);
    expect(ids(await client.get(`/posts/${post.body.id}/comments`))).toEqual([comment.body.id]);
    expect(ids(await client.get(`/users/${user.body.id}/comments`))).toEqual([comment.body.id]);
    expect((await client.get(`/posts/${post.body.id}/user`)).body.id).toBe(user.body.id);
    await client.patch('/posts/2', { user_id: user.body.id });
    expect(ids(await client.get(`/users/${user.body.id}/posts`))).toEqual([post.body.id, 2]);
    expect((await client.get('/posts/2/user')).body.id).toBe(user.body.id);
    // another sandbox sees none of it
    const other = fresh();
    expectProblem(await other.get(`/users/${user.body.id}/posts`), 404, 'NOT_FOUND');
    const theirs = await other.get('/posts/2/user');
    expect(theirs.status, theirs.text).toBe(200);
    expect(theirs.body.id).toBe((await other.get('/posts/2')).body.user_id);
    expect(theirs.body.id).not.toBe(user.body.id);
  });

  it('is 404 when the parent is not visible, and when the related record is gone', async () => {
    const client = fresh();
    await client.delete('/users/4');
    expectProblem(await client.get('/users/4/posts'), 404, 'NOT_FOUND');
    expectProblem(await client.get('/users/4/comments'), 404, 'NOT_FOUND');
    const postOfFour = (await fresh().get('/posts?user_id=4&limit=1')).body.data[0].id;
    expectProblem(await client.get(`/posts/${postOfFour}/user`), 404, 'NOT_FOUND');
    expectProblem(await client.get('/users/9999/posts'), 404, 'NOT_FOUND');
    expectProblem(await client.get('/users/abc/todos'), 404, 'NOT_FOUND');
    expectProblem(await client.get('/users/local-00000000-0000-4000-8000-000000000000/todos'), 404, 'NOT_FOUND');
    expectProblem(await client.get('/users/1/nothing'), 404, 'NOT_FOUND');
    expectProblem(await client.get('/todos/1/posts'), 404, 'NOT_FOUND');
    expectProblem(await client.get('/nope/1/posts'), 404, 'NOT_FOUND');
  });

  it('is read-only: other methods are 405 with Allow', async () => {
    const answer = await fresh().post('/users/1/posts', { title: 'x' });
    expectProblem(answer, 405, 'METHOD_NOT_ALLOWED');
    expect(answer.headers.get('allow')).toContain('GET');
  });
});

describe('_embed and _expand', () => {
  it('embeds children on a list page and on a single record', async () => {
    const client = fresh();
    const posts = await client.get('/posts?limit=5&_embed=comments');
    expect(posts.body.data).toHaveLength(5);
    for (const post of posts.body.data) {
      // Every baseline post has 5 comments.
      expect(post.comments).toHaveLength(5);
      expect(post.comments).toEqual((await client.get(`/posts/${post.id}/comments?limit=200`)).body.data);
    }
    const user = await client.get('/users/2?_embed=posts,todos&_embed=comments');
    expect(user.body.posts).toHaveLength(4);
    expect(user.body.posts.map((p: any) => p.id)).toEqual(ids(await client.get('/users/2/posts?limit=200')));
    expect(user.body.todos).toHaveLength(8);
    expect(user.body.todos.map((t: any) => t.id)).toEqual(ids(await client.get('/users/2/todos?limit=200')));
    expect(user.body.comments).toHaveLength(4);
  });

  it('expands the parent on lists and single records; a deleted parent is null', async () => {
    const client = fresh();
    const comments = await client.get('/comments?limit=10&_expand=post');
    expect(comments.body.data).toHaveLength(10);
    for (const comment of comments.body.data) expect(comment.post).toEqual((await client.get(`/posts/${comment.post_id}`)).body);
    await client.delete('/users/6');
    const todos = await client.get('/todos?user_id=6&_expand=user');
    expect(todos.body.data.length).toBeGreaterThan(0);
    for (const todo of todos.body.data) expect(todo.user).toBeNull();
    expect((await client.get('/todos/1?_expand=user')).body.user.id).toBe((await client.get('/todos/1')).body.user_id);
  });

  it('embeds what the sandbox sees: its created children, not deleted ones, not another sandbox', async () => {
    const client = fresh();
    const comment = await client.post('/comments', { post_id: 1, name: 'mine', email: 'm@example.com', body: 'b' });
    const firstBaseline = (await client.get('/posts/1/comments')).body.data.find((c: any) => c.id !== comment.body.id).id;
    await client.delete(`/comments/${firstBaseline}`);
    const post = (await client.get('/posts/1?_embed=comments')).body;
    expect(post.comments[0].id).toBe(comment.body.id);
    expect(post.comments.map((c: any) => c.id)).not.toContain(firstBaseline);
    const theirs = (await fresh().get('/posts/1?_embed=comments')).body;
    expect(theirs.comments.map((c: any) => c.id)).toContain(firstBaseline);
    expect(theirs.comments.map((c: any) => c.id)).not.toContain(comment.body.id);
  });

  it.each([
    ['/posts?_embed=user', '_embed'],
    ['/posts?_expand=comments', '_expand'],
    ['/todos?_embed=comments', '_embed'],
    ['/posts/1?_embed=nope', '_embed'],
    ['/comments/1?_expand=user', '_expand'],
  ])('%s is 400 INVALID_QUERY naming %s', async (path, parameter) => {
    const answer = await fresh().get(path);
    expectProblem(answer, 400, 'INVALID_QUERY');
    expect(answer.body.detail).toContain(`"${parameter}"`);
  });

  it('combines with search, filters and cursors', async () => {
    const client = fresh();
    const first = await client.get('/posts?q=sunt&limit=1&_expand=user&_embed=comments');
    const post = first.body.data[0];
    expect(post.user.id).toBe(post.user_id);
    expect(post.comments).toHaveLength(5);
    expect(post.comments).toEqual((await client.get(`/posts/${post.id}/comments?limit=200`)).body.data);
    const next = await client.get(`/posts?q=sunt&limit=1&_expand=user&_embed=comments&cursor=${first.body.pagination.nextCursor}`);
    expect(next.status).toBe(200);
    // The cursor's page is the second record of the same search, expanded and embedded alike.
    const two = await client.get('/posts?q=sunt&limit=2&_expand=user&_embed=comments');
    expect(two.body.data).toHaveLength(2);
    expect(two.body.data[0]).toEqual(post);
    expect(next.body.data).toEqual(two.body.data.slice(1));
  });
});
