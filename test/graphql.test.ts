import { describe, expect, it } from 'vitest';
import { sandboxClient, useServer } from './helpers/server.js';

// GraphQL over the same sandboxes as REST (contract section 9): same data, same sandbox.
const server = useServer();
const fresh = () => sandboxClient(server.api);
type Client = ReturnType<typeof fresh>;

const gql = async (client: Client, query: string, variables?: Record<string, unknown>, headers?: Record<string, string>) => {
  const answer = await client.post('/graphql', { query, variables }, headers);
  return answer;
};
/** GraphQL ids are strings (the ID type); REST's baseline ids are numbers. Everything else is equal. */
const asGraphQL = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(asGraphQL);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === 'id' || k.endsWith('_id') ? String(v) : asGraphQL(v)]));
  }
  return value;
};
const userFields = 'id name username email phone website bio _sandbox address { street suite city zipcode geo { lat lng } } company { name catchPhrase }';
/** REST leaves out fields a record does not have; GraphQL answers them as null. */
const dropNulls = (value: unknown): unknown =>
  Array.isArray(value) ? value.map(dropNulls) : value && typeof value === 'object' ? Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null).map(([k, v]) => [k, dropNulls(v)])) : value;

describe('GraphQL queries', () => {
  it.each([
    ['posts', 'id user_id title body created_at _sandbox', 'limit: 5, page: 2, sort: "-title"', '?limit=5&page=2&_sort=-title'],
    ['posts', 'id user_id title body created_at _sandbox', '_limit: 3, userId: 4', '?_limit=3&user_id=4'],
    ['comments', 'id post_id name email body created_at _sandbox', 'post_id: [1, 2], sort: "email", order: "desc"', '?post_id=1&post_id=2&_sort=email&_order=desc'],
    ['todos', 'id user_id title completed created_at _sandbox', 'completed: false, user_id: 2, limit: 100', '?completed=false&user_id=2&limit=100'],
    ['users', userFields, 'q: "an", limit: 4', '?q=an&limit=4'],
  ])('%s(%s) gives the REST list %s', async (collection, fields, args, query) => {
    const client = fresh();
    await client.post('/posts', { user_id: 4, title: 'a created post', body: 'x' });
    const rest = await client.get(`/${collection}${query.replace(/^\?/, '?')}`);
    const answer = await gql(client, `{ ${collection}(${args}) { data { ${fields} } pagination { page limit total totalPages hasNextPage hasPrevPage nextCursor } } }`);
    expect(answer.status).toBe(200);
    expect(answer.body.errors).toBeUndefined();
    const { data, pagination } = answer.body.data[collection];
    expect({ data: dropNulls(data), pagination }).toEqual(asGraphQL(rest.body));
  });

  it('walks with cursors as REST does', async () => {
    const client = fresh();
    const first = await gql(client, '{ posts(limit: 7, sort: "title") { data { id } pagination { nextCursor } } }');
    const cursor = first.body.data.posts.pagination.nextCursor;
    const next = await gql(client, `query($c: String) { posts(limit: 7, sort: "title", cursor: $c) { data { id } } }`, { c: cursor });
    const rest = await client.get(`/posts?limit=7&_sort=title&cursor=${cursor}`);
    expect(next.body.data.posts.data.map((p: { id: string }) => p.id)).toEqual(rest.body.data.map((p: { id: number }) => String(p.id)));
    const bad = await gql(client, '{ posts(cursor: "nope") { data { id } } }');
    expect(bad.body.errors[0].extensions.code).toBe('INVALID_CURSOR');
  });

  it('reads single records and relations as the sub-resources give them', async () => {
    const client = fresh();
    const answer = await gql(
      client,
      `{ user(id: 3) { ${userFields} posts { id } todos(limit: 2, sort: "-id") { id } comments { id email } }
         post(id: "1") { id user { id } comments { id } } comment(id: 7) { post { id } } todo(id: 5) { user { id } }
         missing: post(id: 999999) { id } }`,
    );
    expect(answer.body.errors).toBeUndefined();
    const { user, post, comment, todo, missing } = answer.body.data;
    expect(dropNulls({ ...user, posts: undefined, todos: undefined, comments: undefined })).toEqual(asGraphQL((await client.get('/users/3')).body));
    expect(user.posts).toEqual(asGraphQL((await client.get('/users/3/posts?limit=200')).body.data.map((p: { id: number }) => ({ id: p.id }))));
    expect(user.todos).toEqual(asGraphQL((await client.get('/users/3/todos?limit=2&_sort=-id')).body.data.map((p: { id: number }) => ({ id: p.id }))));
    expect(user.comments).toEqual(asGraphQL((await client.get('/users/3/comments?limit=200')).body.data.map((c: { id: number; email: string }) => ({ id: c.id, email: c.email }))));
    expect(post.user.id).toBe(String((await client.get('/posts/1/user')).body.id));
    expect(post.comments.map((c: { id: string }) => c.id)).toEqual((await client.get('/posts/1/comments')).body.data.map((c: { id: number }) => String(c.id)));
    expect(comment.post.id).toBe(String((await client.get('/comments/7/post')).body.id));
    expect(todo.user.id).toBe(String((await client.get('/todos/5/user')).body.id));
    expect(missing).toBeNull();
  });

  it('sees the sandbox of the request and no other', async () => {
    const a = fresh();
    const b = fresh();
    const created = (await a.post('/posts', { user_id: 1, title: 'only in a', body: 'x' })).body;
    await a.patch('/posts/2', { title: 'changed in a' });
    await a.delete('/posts/3');
    const query = `{ created: post(id: "${created.id}") { title } two: post(id: 2) { title _sandbox } three: post(id: 3) { id } posts(limit: 1) { pagination { total } } }`;
    const seenByA = (await gql(a, query)).body.data;
    expect(seenByA).toEqual({ created: { title: 'only in a' }, two: { title: 'changed in a', _sandbox: 'updated' }, three: null, posts: { pagination: { total: 100 } } });
    const seenByB = (await gql(b, query)).body.data;
    expect(seenByB.created).toBeNull();
    expect(seenByB.two._sandbox).toBeNull();
    expect(seenByB.three).toEqual({ id: '3' });
    // GET (GraphQL over HTTP) reads the same sandbox.
    const viaGet = await a.get(`/graphql?query=${encodeURIComponent(`{ post(id: "${created.id}") { title } }`)}`);
    expect(viaGet.body.data.post.title).toBe('only in a');
  });

  it('refuses limits above 100 and bad list arguments as GraphQL errors', async () => {
    const client = fresh();
    for (const query of ['{ posts(limit: 101) { data { id } } }', '{ users { data { posts(limit: 500) { id } } } }']) {
      const answer = await gql(client, query);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toContain('application/json');
      expect(answer.body.errors[0]).toMatchObject({ extensions: { code: 'INVALID_QUERY' }, message: expect.stringContaining('limit') });
    }
    expect((await gql(client, '{ posts(sort: "nope") { data { id } } }')).body.errors[0].extensions.code).toBe('INVALID_QUERY');
    expect((await gql(client, '{ posts(nope: 1) { data { id } } }')).body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });
});
