import { describe, expect, it } from 'vitest';
import { sandboxClient, useServer } from './helpers/server.js';

/** GraphQL mutations fire the same events as REST writes, in the same sandbox's log (contract sections 8, 9, 15). */
const server = useServer();

describe('GraphQL mutations in the change log', () => {
  it('create, update and delete log post.created, post.updated and post.deleted with the record', async () => {
    const client = sandboxClient(server.api);
    const gql = async (query: string, variables: Record<string, unknown> = {}) => {
      const answer = await client.post('/graphql', { query, variables });
      expect(answer.body.errors, answer.text).toBeUndefined();
      return answer.body.data;
    };
    const { createPost } = await gql('mutation($i: CreatePostInput!) { createPost(input: $i) { id title } }', { i: { user_id: 1, title: 'via gql', body: 'b' } });
    await gql('mutation($id: ID!) { updatePost(id: $id, input: {title: "changed"}) { id } }', { id: createPost.id });
    await gql('mutation($id: ID!) { deletePost(id: $id) { id } }', { id: createPost.id });

    const events = (await client.get('/events?limit=10')).body.data as { event: string; data: { id: string; title: string } }[];
    expect(events.map((e) => e.event)).toEqual(['post.deleted', 'post.updated', 'post.created']);
    expect(events.map((e) => e.data.title)).toEqual(['changed', 'changed', 'via gql']);
    expect(new Set(events.map((e) => e.data.id))).toEqual(new Set([createPost.id]));
    expect((await sandboxClient(server.api).get('/events')).body.data).toEqual([]);
  });
});
