import { describe, expect, it } from 'vitest';
import { expectProblem } from './helpers/problems.js';
import { sandboxClient, useServer } from './helpers/server.js';

// A user may not take a persona's username or email (issue 28): register refuses it with 409,
// and so do POST, PUT and PATCH /users and GraphQL, or the user would shadow the persona's login.
const server = useServer();
const fresh = () => sandboxClient(server.api);

describe("a persona's username and email", () => {
  it('are refused to users on every way in, case aside, with 409', async () => {
    const client = fresh();
    expectProblem(await client.patch('/users/1', { email: 'admin@mockapi.local' }), 409, 'CONFLICT');
    expectProblem(await client.patch('/users/1', { email: 'Editor@MockAPI.local' }), 409, 'CONFLICT');
    expectProblem(await client.patch('/users/1', { username: 'viewer' }), 409, 'CONFLICT');
    expectProblem(await client.put('/users/2', { name: 'N', username: 'n2', email: 'viewer@mockapi.local' }), 409, 'CONFLICT');
    expectProblem(await client.post('/users', { name: 'N', username: 'admin', email: 'n@example.com' }), 409, 'CONFLICT');
    const viaGraphQL = await client.post('/graphql', { query: 'mutation { updateUser(id: 1, input: { email: "admin@mockapi.local" }) { email } }' });
    expect(viaGraphQL.body.errors[0].extensions).toMatchObject({ code: 'CONFLICT', status: 409 });
    expect((await client.get('/users/1')).body.email).not.toBe('admin@mockapi.local');
    // Register says the same.
    expectProblem(await client.post('/auth/register', { name: 'N', username: 'n3', email: 'admin@mockapi.local', password: 'secret-pass' }), 409, 'CONFLICT');
    // The persona still logs in with its email.
    expect((await client.post('/auth/login', { email: 'admin@mockapi.local', password: 'password' })).status).toBe(200);
  });

  it('leave other writes alone', async () => {
    const client = fresh();
    expect((await client.patch('/users/1', { email: 'admin@example.com', username: 'admin2' })).status).toBe(200);
    expect((await client.patch('/users/1', { name: 'Same email kept' })).status).toBe(200);
  });
});
