import { getIntrospectionQuery } from 'graphql';
import { describe, expect, it } from 'vitest';
import { sandboxClient, useServer } from './helpers/server.js';

// One request cannot make the server work for long (issue 22): depth, cost and aliases are refused
// while validating, before any resolver runs; `limit` above 100 is an error.
const server = useServer();
const fresh = () => sandboxClient(server.api);
const gql = (query: string, variables?: Record<string, unknown>, client = fresh()) => client.post('/graphql', { query, variables });

/** `depth` levels of fields: posts > data > user > posts ... > id. */
const nested = (depth: number) => {
  const chain = ['user', 'posts'];
  let inner = 'id';
  for (let level = depth - 3; level > 0; level--) inner = `${chain[(level - 1) % 2]} { ${inner} }`;
  return `{ posts(limit: 1) { data { ${inner} } } }`;
};

describe('GraphQL limits', () => {
  it('runs a query 10 levels deep and refuses 11, before anything runs', async () => {
    const ok = await gql(nested(10));
    expect(ok.body.errors).toBeUndefined();
    const client = fresh();
    const chain = Array.from({ length: 10 }, (_, i) => (i % 2 ? 'posts' : 'user'));
    const selection = chain.reduceRight((inner, field) => `${field} { ${inner} }`, 'id');
    const deep = await gql(`mutation { createPost(input: { user_id: 1, title: "t", body: "b" }) { ${selection} } }`, undefined, client);
    expect(deep.body.errors[0].extensions.code).toBe('QUERY_TOO_DEEP');
    expect(deep.body.data).toBeUndefined();
    // Refused before execution: the mutation did not run.
    expect((await client.get('/posts?limit=1')).body.pagination.total).toBe(100);
    const tooDeep = await client.post('/graphql', { query: nested(11) }, { accept: 'application/graphql-response+json' });
    expect(tooDeep.status).toBe(400);
    expect(tooDeep.body.errors[0]).toMatchObject({ extensions: { code: 'QUERY_TOO_DEEP' }, message: expect.stringContaining('10') });
  });

  it('counts depth through fragments and refuses fragment cycles without hanging', async () => {
    const viaFragments = `query { posts(limit: 1) { ...P } } fragment P on PostPage { data { user { ...U } } } fragment U on User { posts { user { posts { user { posts { user { posts { id } } } } } } } }`;
    expect((await gql(viaFragments)).body.errors[0].extensions.code).toBe('QUERY_TOO_DEEP');
    const cycle = await gql('query { ...A } fragment A on Query { ...B } fragment B on Query { ...A }');
    expect(cycle.body.errors.length).toBeGreaterThan(0);
  });

  it('refuses a query whose cost is too high, and accepts the nested query of the issue', async () => {
    expect((await gql('{ posts(limit: 100) { data { user { todos { id } } comments { id } } } }')).body.errors).toBeUndefined();
    const costly = await gql('{ users(limit: 100) { data { posts { comments { post { user { todos { id } } } } } } } }');
    expect(costly.body.errors[0]).toMatchObject({ extensions: { code: 'QUERY_TOO_COMPLEX' } });
    const viaVariable = await gql('query($n: Int) { users(limit: $n) { data { posts { comments { post { user { todos { id } } } } } } } }', { n: 1 });
    expect(viaVariable.body.errors).toBeUndefined();
    const many = Array.from({ length: 12 }, (_, i) => `p${i}: posts(limit: 100) { data { user { todos { id } } comments { id } } }`).join(' ');
    expect((await gql(`{ ${many} }`)).body.errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
  });

  it('refuses too many aliases', async () => {
    const fields = (n: number) => Array.from({ length: n }, (_, i) => `a${i}: __typename`).join(' ');
    expect((await gql(`{ ${fields(50)} }`)).body.errors).toBeUndefined();
    expect((await gql(`{ ${fields(51)} }`)).body.errors[0].extensions.code).toBe('TOO_MANY_ALIASES');
  });

  it('refuses limit above 100 on lists and relations', async () => {
    for (const query of ['{ posts(limit: 101) { data { id } } }', '{ posts(_limit: 1000) { data { id } } }', '{ user(id: 1) { posts(limit: 101) { id } } }']) {
      expect((await gql(query)).body.errors[0].extensions.code).toBe('INVALID_QUERY');
    }
    expect((await gql('{ posts(limit: 100) { data { id } } }')).body.data.posts.data).toHaveLength(100);
  });

  it('answers the full introspection query (GraphiQL needs it)', async () => {
    const answer = await gql(getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true, schemaDescription: true, specifiedByUrl: true }));
    expect(answer.body.errors).toBeUndefined();
    const names = answer.body.data.__schema.types.map((t: { name: string }) => t.name);
    expect(names).toEqual(expect.arrayContaining(['User', 'Post', 'Comment', 'Todo', 'UserAddress', 'UserAddressGeo', 'UserCompany', 'CreatePostInput', 'UpdatePostInput', 'Pagination']));
  });
});
