import { describe, it, expect } from 'vitest';
import { sandboxClient, useServer } from './helpers/server.js';
import { create, expectProblem, request } from './helpers/problems.js';

/** `X-Sandbox` names the sandbox for pages on another site, where the cookie does not travel (contract section 11). */
const server = useServer();

describe('X-Sandbox', () => {
  it('names the sandbox; it wins over a cookie; no cookie is minted for it', async () => {
    const owner = sandboxClient(server.api, 'header-box');
    const post = await create(owner, 'posts');
    const viaHeader = await request(`${server.api}/posts/${post.id}`, { headers: { 'x-sandbox': 'header-box', cookie: 'svc_identity=other-box' } });
    expect(viaHeader.status).toBe(200);
    expect(viaHeader.headers.get('set-cookie')).toBeNull();
    expectProblem(await sandboxClient(server.api, 'other-box').get(`/posts/${post.id}`), 404, 'NOT_FOUND');
  });

  it.each(['', 'has space', 'x'.repeat(129), 'semi;colon'])('%j is 400 INVALID_IDENTITY and changes nothing', async (value) => {
    const answer = await request(`${server.api}/posts`, {
      method: 'POST',
      headers: { 'x-sandbox': value, 'content-type': 'application/json' },
      body: JSON.stringify({ user_id: 1, title: 't', body: 'b' }),
    });
    expectProblem(answer, 400, 'INVALID_IDENTITY');
    expect(answer.headers.get('set-cookie')).toBeNull();
  });
});
