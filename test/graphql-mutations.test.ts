import { describe, expect, it } from 'vitest';
import { sandboxClient, startServer, useServer } from './helpers/server.js';

// Mutations go through the engine (contract section 9): the same validation, caps and roles as REST.
const server = useServer();
const fresh = () => sandboxClient(server.api);
type Client = ReturnType<typeof fresh>;
const gql = (client: Client, query: string, variables?: Record<string, unknown>, headers?: Record<string, string>) =>
  client.post('/graphql', { query, variables }, headers);

describe('GraphQL mutations', () => {
  it('create, update and delete write the sandbox as REST sees it', async () => {
    const client = fresh();
    const created = await gql(client, 'mutation($in: CreatePostInput!) { createPost(input: $in) { id _sandbox title user { id } } }', {
      in: { user_id: '2', title: 'from GraphQL', body: 'text' },
    });
    expect(created.body.errors).toBeUndefined();
    const post = created.body.data.createPost;
    expect(post).toMatchObject({ _sandbox: 'created', title: 'from GraphQL', user: { id: '2' } });
    expect((await client.get(`/posts/${post.id}`)).body).toMatchObject({ id: post.id, user_id: 2, title: 'from GraphQL', body: 'text' });

    const updated = await gql(client, `mutation { updatePost(id: "${post.id}", input: { title: "renamed" }) { title body } updateUser(id: 1, input: { website: null, address: { city: "Paris" } }) { website address { city street } } }`);
    expect(updated.body.errors).toBeUndefined();
    expect(updated.body.data.updatePost).toEqual({ title: 'renamed', body: 'text' });
    // A JSON merge patch: null clears, a nested object merges.
    expect(updated.body.data.updateUser.website).toBeNull();
    expect(updated.body.data.updateUser.address.city).toBe('Paris');
    expect(updated.body.data.updateUser.address.street).toBe((await fresh().get('/users/1')).body.address.street);
    expect((await client.get('/users/1')).body.website).toBeUndefined();

    const deleted = await gql(client, `mutation { deletePost(id: "${post.id}") { id title } deleteComment(id: 1) { id _sandbox } }`);
    expect(deleted.body.data).toEqual({ deletePost: { id: post.id, title: 'renamed' }, deleteComment: { id: '1', _sandbox: null } });
    expect((await client.get(`/posts/${post.id}`)).status).toBe(404);
    expect((await client.get('/comments/1')).status).toBe(404);
    // Another sandbox is untouched.
    expect((await fresh().get('/comments/1')).status).toBe(200);
  });

  it('reads after a write in the same request see the write', async () => {
    const client = fresh();
    const answer = await gql(client, 'mutation { before: updatePost(id: 5, input: { title: "one" }) { title } after: updatePost(id: 5, input: { body: "two" }) { title body } }');
    expect(answer.body.data.after).toEqual({ title: 'one', body: 'two' });
  });

  it('gives validation errors with their field paths and codes', async () => {
    const client = fresh();
    const invalid = await gql(client, 'mutation { createUser(input: { name: "x", username: "bad name", email: "nope" }) { id } }');
    expect(invalid.status).toBe(200);
    expect(invalid.body.data).toBeNull();
    expect(invalid.body.errors[0]).toMatchObject({ path: ['createUser'], extensions: { code: 'VALIDATION_FAILED', status: 422 } });
    expect(invalid.body.errors[0].extensions.errors.map((e: { path: string }) => e.path).sort()).toEqual(['/email', '/username']);
    const dangling = await gql(client, 'mutation { createPost(input: { user_id: 999999, title: "t", body: "b" }) { id } }');
    expect(dangling.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ path: '/user_id' }] });
    const taken = await gql(client, `mutation { createUser(input: { name: "x", username: "${(await client.get('/users/1')).body.username}", email: "new@example.com" }) { id } }`);
    expect(taken.body.errors[0].extensions.code).toBe('CONFLICT');
    const missing = await gql(client, 'mutation { updatePost(id: 999999, input: { title: "x" }) { id } deletePost(id: "nope") { id } }');
    expect(missing.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const required = await gql(client, 'mutation { createPost(input: { title: "t" }) { id } }');
    expect(required.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it('counts against the same cap as REST', async () => {
    const client = fresh();
    for (let i = 0; i < 29; i++) expect((await client.post('/todos', { user_id: 1, title: `t${i}`, completed: false })).status).toBe(200);
    const mutation = 'mutation { a: createTodo(input: { user_id: 1, title: "last", completed: true }) { id } }';
    expect((await gql(client, mutation)).body.errors).toBeUndefined();
    expect((await gql(client, mutation)).body.errors[0].extensions).toMatchObject({ code: 'QUOTA_EXCEEDED', status: 403 });
  });

  it('refuses mutations over GET', async () => {
    const client = fresh();
    const answer = await client.get(`/graphql?query=${encodeURIComponent('mutation { deleteTodo(id: 1) { id } }')}`);
    expect(answer.status).toBe(405);
    expect((await client.get('/todos/1')).status).toBe(200);
    // HEAD is GET without a body, as elsewhere.
    const head = await client.call('HEAD', `/graphql?query=${encodeURIComponent('{ todo(id: 1) { id } }')}`);
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
  });

  it('keeps REST roles: a viewer reads but cannot mutate, an editor cannot delete', async () => {
    const login = async (username: string) => {
      const answer = await fresh().post('/auth/login', { username, password: 'password' });
      return { authorization: `Bearer ${answer.body.access_token}` };
    };
    const client = fresh();
    const viewer = await login('viewer');
    expect((await gql(client, '{ posts(limit: 1) { data { id user { id } } } }', undefined, viewer)).body.errors).toBeUndefined();
    const write = await gql(client, 'mutation { createPost(input: { user_id: 1, title: "t", body: "b" }) { id } }', undefined, viewer);
    expect(write.body.errors[0].extensions).toMatchObject({ code: 'FORBIDDEN', status: 403 });
    expect(write.body.errors[0].message).toContain('posts:write');
    const editor = await login('editor');
    expect((await gql(client, 'mutation { updateTodo(id: 1, input: { completed: true }) { completed } }', undefined, editor)).body.data.updateTodo.completed).toBe(true);
    expect((await gql(client, 'mutation { deleteTodo(id: 1) { id } }', undefined, editor)).body.errors[0].extensions.code).toBe('FORBIDDEN');
    const admin = await login('admin');
    expect((await gql(client, 'mutation { deleteTodo(id: 2) { id } }', undefined, admin)).body.data.deleteTodo.id).toBe('2');
  });

  it('lets a guest read but not write when tokens are required', async () => {
    const guarded = await startServer({ args: ['--auth-required'] });
    try {
      const guest = sandboxClient(guarded.api);
      const read = await gql(guest, '{ posts(limit: 1) { data { id user { name } } } }');
      expect(read.body.errors).toBeUndefined();
      const write = await gql(guest, 'mutation { createPost(input: { user_id: 1, title: "t", body: "b" }) { id } }');
      expect(write.body.errors[0].extensions).toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
    } finally {
      await guarded.cleanup();
    }
  });
});
