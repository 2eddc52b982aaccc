import { GraphQLClient, ClientError, gql } from 'graphql-request';
import { describe, expect, it } from 'vitest';
import { useServer } from './helpers/server.js';

// A real GraphQL client from npm (graphql-request) against the running server.
const server = useServer();
const clientFor = (sandbox: string) => new GraphQLClient(`${server.api}/graphql`, { headers: { cookie: `svc_identity=${sandbox}` } });

describe('graphql-request', () => {
  it('queries and mutates in its sandbox, with variables', async () => {
    const sandbox = `client-${crypto.randomUUID()}`;
    const client = clientFor(sandbox);
    const created = await client.request<{ createTodo: { id: string; title: string; completed: boolean } }>(
      gql`mutation Add($input: CreateTodoInput!) { createTodo(input: $input) { id title completed } }`,
      { input: { user_id: 1, title: 'from graphql-request', completed: false } },
    );
    expect(created.createTodo).toMatchObject({ title: 'from graphql-request', completed: false });
    const listed = await client.request<{ todos: { data: { id: string }[]; pagination: { total: number } } }>(
      gql`query Mine($limit: Int, $userId: [ID!]) { todos(limit: $limit, userId: $userId) { data { id } pagination { total } } }`,
      { limit: 1, userId: ['1'] },
    );
    expect(listed.todos.data[0]!.id).toBe(created.createTodo.id);
    const rest = await fetch(`${server.api}/todos?user_id=1&limit=1`, { headers: { cookie: `svc_identity=${sandbox}` } });
    expect(listed.todos.pagination.total).toBe(((await rest.json()) as { pagination: { total: number } }).pagination.total);
    const other = await clientFor(`client-${crypto.randomUUID()}`).request<{ todo: null }>(gql`query($id: ID!) { todo(id: $id) { id } }`, { id: created.createTodo.id });
    expect(other.todo).toBeNull();
  });

  it('surfaces errors with their codes as a ClientError', async () => {
    const client = clientFor('client-errors');
    const error = await client.request(gql`{ posts(limit: 500) { data { id } } }`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClientError);
    expect((error as ClientError).response.errors?.[0]?.extensions?.code).toBe('INVALID_QUERY');
  });
});
