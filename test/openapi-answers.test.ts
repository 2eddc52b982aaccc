import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerChecker, startDiscoveryServer, type AnswerChecker, type DiscoveryServer } from './helpers/openapi.js';

let server: DiscoveryServer;
let check: AnswerChecker;

beforeAll(async () => {
  server = await startDiscoveryServer();
  check = answerChecker(await (await server.call('GET', '/api/v1/openapi.json')).json());
});
afterAll(() => server.close());

interface Sample {
  method: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  status: number;
}

const json = { 'content-type': 'application/json' };
const post = (path: string, body: unknown, status = 200, headers: Record<string, string> = {}): Sample => ({ method: 'POST', path, body, status, headers: { ...json, ...headers } });
const get = (path: string, status = 200, headers?: Record<string, string>): Sample => ({ method: 'GET', path, status, headers });

/** Requests of every family of routes, success and error answers (GraphQL's in test/openapi-cli.test.ts: graphql-js needs one module realm, a spawned server). */
function samples(ids: { token: string; refresh: string; webhook: string; created: string; username: string }): Sample[] {
  const bearer = { authorization: `Bearer ${ids.token}` };
  return [
    get('/api/v1/posts?limit=3'),
    get('/api/v1/posts?_embed=comments&_expand=user&limit=2'),
    get('/api/v1/users?q=leanne&_sort=-id,name'),
    get('/api/v1/users/1?_embed=posts,todos,invoices'),
    get('/api/v1/todos?completed=true&user_id=1'),
    get('/api/v1/posts?cursor=nonsense', 400),
    get('/api/v1/posts?nofield=1', 400),
    get('/api/v1/posts/999999', 404),
    get(`/api/v1/posts/${ids.created}`),
    { method: 'PATCH', path: `/api/v1/posts/${ids.created}`, body: { title: 'patched' }, headers: { 'content-type': 'application/merge-patch+json' }, status: 200 },
    { method: 'PUT', path: '/api/v1/posts/2', body: { user_id: 1, title: 'replaced', body: 'text' }, headers: json, status: 200 },
    post('/api/v1/posts', { title: 1 }, 422),
    post('/api/v1/posts', '{', 400),
    { method: 'POST', path: '/api/v1/posts', body: 'x', headers: { 'content-type': 'text/plain' }, status: 415 },
    post('/api/v1/users', { name: 'Dup', username: ids.username, email: 'dup@example.com' }, 409),
    { method: 'DELETE', path: '/api/v1/todos/3', status: 200 },
    get('/api/v1/users/1/posts?limit=2'),
    get('/api/v1/users/1/comments'),
    get('/api/v1/comments/1/post'),
    get('/api/v1/invoices'),
    get('/api/v1/invoices/1/user'),
    get('/api/v1/users/1/invoices'),
    post('/api/v1/invoices', { number: 'A-2', customer: 'Bob', total: 3, paid: true, user_id: 1 }),
    post('/api/v1/orders', { item: { sku: 'Y-2' }, status: 'closed' }),
    post('/api/v1/orders', { item: {} }, 422),
    get('/api/v1/orders?_sort=-id'),
    get('/api/v1/orders?status=open', 400),
    post('/api/v1/custom/notes', { text: 'hello', tags: ['a'] }),
    get('/api/v1/custom'),
    get('/api/v1/custom/notes?text_like=hel'),
    get('/api/v1/custom/Bad!', 400),
    { method: 'POST', path: '/api/v1/custom/notes/import', body: 'text,n\nfrom csv,2\n', headers: { 'content-type': 'text/csv' }, status: 200 },
    { method: 'POST', path: '/api/v1/custom/notes/import', body: 'x', headers: { 'content-type': 'text/plain' }, status: 415 },
    get('/api/v1/sandbox'),
    get('/api/v1/sandbox/activity'),
    post('/api/v1/sandbox/snapshots', { name: 'snap' }),
    post('/api/v1/sandbox/snapshots', { name: '' }, 422),
    get('/api/v1/sandbox/snapshots'),
    get('/api/v1/sandbox/snapshots/snap'),
    get('/api/v1/sandbox/snapshots/missing', 404),
    post('/api/v1/sandbox/snapshots/snap/restore', undefined),
    get('/api/v1/sandbox/export'),
    post('/api/v1/sandbox/import', { format: 'nope' }, 422),
    { method: 'DELETE', path: '/api/v1/sandbox/snapshots/snap', status: 200 },
    post('/api/v1/auth/login', { username: 'admin', password: 'wrong' }, 401),
    post('/api/v1/auth/register', { name: 'New', username: 'newcomer', email: 'new@example.com', password: 'pw' }),
    post('/api/v1/auth/refresh', { refresh_token: ids.refresh }),
    get('/api/v1/auth/me', 200, bearer),
    { method: 'PATCH', path: '/api/v1/auth/me', body: { bio: 'hi' }, headers: { ...json, ...bearer }, status: 200 },
    get('/api/v1/auth/me', 401, { authorization: 'Bearer broken' }),
    get('/api/v1/auth/roles'),
    get('/api/v1/auth/permissions'),
    post('/api/v1/auth/forgot-password', { email: 'Sincere@april.biz' }),
    post('/api/v1/auth/reset-password', { token: 'unknown', password: 'x' }, 400),
    get('/api/v1/inbox/messages'),
    get('/api/v1/webhooks'),
    get(`/api/v1/webhooks/${ids.webhook}`),
    { method: 'PATCH', path: `/api/v1/webhooks/${ids.webhook}`, body: { events: ['*'] }, headers: json, status: 200 },
    post(`/api/v1/webhooks/${ids.webhook}/ping`, undefined),
    get(`/api/v1/webhooks/${ids.webhook}/deliveries`),
    post('/api/v1/webhooks/deliveries/del_missing/retry', undefined, 404),
    post('/api/v1/webhooks', { url: 'ftp://x', events: [] }, 422),
    get('/api/v1/events?events=post.*'),
    get('/api/v1/events?since=nope', 400),
    get('/api/v1/users/featured'),
    get('/api/v1/stats/daily'),
    get('/api/v1/posts', 418, { 'x-simulate-status': '418' }),
    get('/api/v1/posts', 400, { 'x-simulate-latency': 'soon' }),
    get('/api/v1/posts', 400, { 'x-sandbox': 'bad id!' }),
    { method: 'POST', path: '/api/v1/sandbox/reset', headers: { authorization: `Bearer ${ids.token}` }, status: 403 },
    post('/api/v1/sandbox/reset', undefined),
    { method: 'DELETE', path: `/api/v1/webhooks/${ids.webhook}`, status: 200 },
    get('/health'),
  ];
}

describe('real answers against the documented schemas', () => {
  it('every answer of a sample of each family of routes validates against its operation’s schema', async () => {
    const sandbox = `answers-${Date.now()}`;
    const send = async (sample: Pick<Sample, 'method' | 'path' | 'body' | 'headers'>) => {
      const body = sample.body === undefined ? undefined : typeof sample.body === 'string' ? sample.body : JSON.stringify(sample.body);
      return server.call(sample.method, sample.path, { headers: { 'x-sandbox': sandbox, ...sample.headers }, body });
    };
    const created = (await (await send(post('/api/v1/posts', { user_id: 1, title: 'Mine', body: 'text' }))).json()) as { id: string };
    const login = (await (await send(post('/api/v1/auth/login', { username: 'editor', password: 'password' }))).json()) as { access_token: string; refresh_token: string };
    const { username } = (await (await send({ method: 'GET', path: '/api/v1/users/1' })).json()) as { username: string };
    const webhook = (await (await send(post('/api/v1/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['post.*'] }))).json()) as { id: string };

    const problems: string[] = [];
    for (const sample of samples({ token: login.access_token, refresh: login.refresh_token, webhook: webhook.id, created: created.id, username })) {
      const answer = await send(sample);
      const text = await answer.text();
      const label = `${sample.method} ${sample.path} → ${answer.status}`;
      if (answer.status !== sample.status) problems.push(`${label}, expected ${sample.status}: ${text}`);
      const type = (answer.headers.get('content-type') ?? '').split(';')[0]!;
      let schema: object | undefined;
      try {
        schema = check.schemaOf(sample.method, sample.path, answer.status, type);
      } catch (error) {
        problems.push(`${label}: ${(error as Error).message}`);
        continue;
      }
      if (!schema || !type.endsWith('json')) continue;
      for (const problem of check.validate(schema, JSON.parse(text))) problems.push(`${label}: ${problem}`);
    }
    expect(problems).toEqual([]);
  });

  it('the spreadsheet export, the event stream and /metrics answer in their documented media types', async () => {
    const headers = { 'x-sandbox': `media-${Date.now()}`, 'content-type': 'application/json' };
    await server.call('POST', '/api/v1/custom/notes', { headers, body: JSON.stringify({ text: 'a' }) });
    for (const [path, type] of [
      ['/api/v1/custom/notes/export?format=csv', 'text/csv'],
      ['/api/v1/custom/notes/export?format=xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
      ['/metrics', 'text/plain'],
      ['/docs', 'text/html'],
    ] as const) {
      const answer = await server.call('GET', path, { headers });
      expect(answer.status, path).toBe(200);
      expect(answer.headers.get('content-type')?.split(';')[0]).toBe(type);
      expect(check.schemaOf('GET', path, 200, type), path).toBeDefined();
      await answer.arrayBuffer();
    }
    const controller = new AbortController();
    const stream = await server.app.fetch(new Request('http://mock.test/api/v1/events/stream', { headers, signal: controller.signal }));
    expect(stream.headers.get('content-type')?.split(';')[0]).toBe('text/event-stream');
    expect(check.schemaOf('GET', '/api/v1/events/stream', 200, 'text/event-stream')).toBeDefined();
    controller.abort();
    await stream.body?.cancel();
  });
});
