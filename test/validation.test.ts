import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startServer, sandboxClient, type RunningServer } from './helpers/server.js';
import {
  BASELINE,
  COLLECTIONS,
  REQUIRED,
  expectProblem,
  expectValidation,
  newRecord,
  request,
  totalOf,
  type Client,
  type Collection,
} from './helpers/problems.js';

let server: RunningServer;
/** Baseline users/1 as an untouched sandbox sees it. */
let userOne: any;
beforeAll(async () => {
  server = await startServer();
  userOne = (await sandboxClient(server.api).get('/users/1')).body;
});
afterAll(async () => {
  await server?.cleanup();
});

const fresh = () => sandboxClient(server.api);

/** Nothing was written: the collection total is the baseline's and users/1 is untouched. */
async function expectUnchanged(client: Client, collection: Collection = 'users') {
  expect(await totalOf(client, collection)).toBe(BASELINE[collection]);
  expect((await client.get('/users/1')).body).toEqual(userOne);
}

describe('POST with a missing required field names exactly that field', () => {
  const cases = COLLECTIONS.flatMap((collection) => REQUIRED[collection].map((field) => [collection, field] as const));

  it.each(cases)('%s without %s', async (collection, field) => {
    const client = fresh();
    const { [field]: _dropped, ...body } = newRecord(collection);
    expectValidation(await client.post(`/${collection}`, body), [`/${field}`]);
    expect(await totalOf(client, collection)).toBe(BASELINE[collection]);
  });

  it.each(COLLECTIONS)('%s with an empty object names every required field', async (collection) => {
    const client = fresh();
    expectValidation(await client.post(`/${collection}`, {}), REQUIRED[collection].map((f) => `/${f}`));
    expect(await totalOf(client, collection)).toBe(BASELINE[collection]);
  });
});

describe('POST with one ill-typed, malformed or unknown field names its JSON Pointer', () => {
  const cases: Array<[Collection, Record<string, unknown>, string]> = [
    ['users', { name: 42 }, '/name'],
    ['users', { name: null }, '/name'],
    ['users', { username: true }, '/username'],
    ['users', { email: 5 }, '/email'],
    ['users', { phone: 12 }, '/phone'],
    ['users', { website: [] }, '/website'],
    ['users', { address: 'Main Street 1' }, '/address'],
    ['users', { address: { street: 1 } }, '/address/street'],
    ['users', { address: { geo: 'here' } }, '/address/geo'],
    ['users', { address: { geo: { lat: 'north', lng: 1.5 } } }, '/address/geo/lat'],
    ['users', { address: { geo: { lat: 1.5, lng: '2' } } }, '/address/geo/lng'],
    ['users', { company: { name: 1 } }, '/company/name'],
    ['users', { company: [] }, '/company'],
    ['posts', { user_id: true }, '/user_id'],
    ['posts', { user_id: 1.5 }, '/user_id'],
    ['posts', { user_id: null }, '/user_id'],
    ['posts', { title: 1 }, '/title'],
    ['posts', { title: ['a'] }, '/title'],
    ['posts', { body: {} }, '/body'],
    ['comments', { post_id: null }, '/post_id'],
    ['comments', { post_id: [1] }, '/post_id'],
    ['comments', { body: false }, '/body'],
    ['comments', { name: 3 }, '/name'],
    ['todos', { completed: 'yes' }, '/completed'],
    ['todos', { completed: 1 }, '/completed'],
    ['todos', { completed: 'true' }, '/completed'],
    ['todos', { completed: null }, '/completed'],
    ['todos', { title: 7 }, '/title'],
    ['todos', { user_id: {} }, '/user_id'],
    // e-mail addresses
    ['users', { email: 'not-an-email' }, '/email'],
    ['users', { email: 'a@' }, '/email'],
    ['users', { email: '@example.com' }, '/email'],
    ['users', { email: 'two@@example.com' }, '/email'],
    ['users', { email: 'spa ce@example.com' }, '/email'],
    ['users', { email: '' }, '/email'],
    ['comments', { email: 'nope' }, '/email'],
    // unknown fields, top-level and nested, with JSON Pointer escaping (RFC 6901)
    ['users', { foo: 1 }, '/foo'],
    ['users', { address: { planet: 'Mars' } }, '/address/planet'],
    ['users', { address: { geo: { lat: 1, lng: 2, alt: 3 } } }, '/address/geo/alt'],
    ['users', { company: { bs: 'synergy' } }, '/company/bs'],
    ['posts', { Title: 'case matters' }, '/Title'],
    ['todos', { done: true }, '/done'],
    ['comments', { 'a/b': 1 }, '/a~1b'],
    ['comments', { 'm~n': 1 }, '/m~0n'],
  ];

  it.each(cases)('%s %j → %s', async (collection, overrides, path) => {
    const client = fresh();
    expectValidation(await client.post(`/${collection}`, newRecord(collection, overrides)), [path]);
    expect(await totalOf(client, collection)).toBe(BASELINE[collection]);
  });
});

describe('several problems at once give one entry each', () => {
  const cases: Array<[Collection, Record<string, unknown>, string[]]> = [
    ['users', { name: 1, email: 'bad', foo: true }, ['/name', '/email', '/foo', '/username']],
    ['users', { name: 'N', username: 'several_problems', email: 'several@example.test', address: { street: 2, geo: { lat: 'x', lng: 'y' } } }, ['/address/street', '/address/geo/lat', '/address/geo/lng']],
    ['posts', { title: 5, body: null, extra: 1 }, ['/title', '/body', '/extra', '/user_id']],
    ['comments', { name: [], email: 'x', body: 1, post_id: 1, a: 1, b: 2 }, ['/name', '/email', '/body', '/a', '/b']],
    ['todos', { title: false, completed: 'no', user_id: 1 }, ['/title', '/completed']],
  ];

  it.each(cases)('%s %j', async (collection, body, paths) => {
    const client = fresh();
    expectValidation(await client.post(`/${collection}`, body), paths);
    expect(await totalOf(client, collection)).toBe(BASELINE[collection]);
  });
});

describe('PUT and PATCH validate too, and change nothing when they fail', () => {
  const cases: Array<[string, string, string, Record<string, unknown>, string[]]> = [
    ['PATCH', 'users', '1', { email: 'bad' }, ['/email']],
    ['PATCH', 'users', '1', { foo: 1 }, ['/foo']],
    ['PATCH', 'users', '1', { address: { geo: { lat: 'n' } } }, ['/address/geo/lat']],
    ['PATCH', 'users', '1', { name: null, username: null }, ['/name', '/username']],
    ['PATCH', 'posts', '1', { title: 5, body: null }, ['/title', '/body']],
    ['PATCH', 'todos', '1', { completed: 'no' }, ['/completed']],
    ['PUT', 'users', '1', {}, ['/name', '/username', '/email']],
    ['PUT', 'users', '1', { name: 'N', username: 'fresh_name_x', email: 'nope' }, ['/email']],
    ['PUT', 'todos', '1', { user_id: 1, title: 't', completed: 'no' }, ['/completed']],
    ['PUT', 'comments', '1', { post_id: 1, name: 'n', email: 'e@example.test', body: 'b', extra: 1 }, ['/extra']],
  ];

  it.each(cases)('%s /%s/%s %j', async (method, collection, id, body, paths) => {
    const client = fresh();
    const before = (await client.get(`/${collection}/${id}`)).body;
    expectValidation(await client.call(method, `/${collection}/${id}`, body), paths);
    expect((await client.get(`/${collection}/${id}`)).body).toEqual(before);
    expect((await client.get(`/${collection}/${id}`)).body).not.toHaveProperty('_sandbox');
  });
});

/** The three body-carrying operations, aimed at users so `expectUnchanged` can check them. */
const writes = [
  ['POST', '/users'],
  ['PUT', '/users/1'],
  ['PATCH', '/users/1'],
] as const;

describe('bodies that are not a JSON object', () => {
  const malformed = ['{"name": ', '{', "{'name': 'x'}", '{"name":"x",}', 'nul', '{"a":1} {"b":2}', '{"a":1}x', 'undefined', '  \n'];
  const notObjects = ['[]', '[{"name":"x"}]', '"abc"', '42', '-1.5', 'null', 'true', 'false'];

  for (const [method, path] of writes) {
    it.each(malformed)(`${method} ${path} with malformed JSON %j is 400 INVALID_JSON`, async (text) => {
      const client = fresh();
      expectProblem(await client.call(method, path, text), 400, 'INVALID_JSON');
      await expectUnchanged(client);
    });

    it(`${method} ${path} with an empty body is 400 INVALID_JSON`, async () => {
      const client = fresh();
      expectProblem(await client.call(method, path, ''), 400, 'INVALID_JSON');
      await expectUnchanged(client);
    });

    it.each(notObjects)(`${method} ${path} with %s is 400 INVALID_BODY`, async (text) => {
      const client = fresh();
      expectProblem(await client.call(method, path, text), 400, 'INVALID_BODY');
      await expectUnchanged(client);
    });
  }
});

describe('content types', () => {
  const body = () => JSON.stringify(newRecord('users'));
  const rejected = ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'text/json', 'application/jsonx'];

  for (const [method, path] of writes) {
    it.each(rejected)(`${method} ${path} as %s is 415`, async (type) => {
      const client = fresh();
      expectProblem(await client.call(method, path, body(), { 'content-type': type }), 415, 'UNSUPPORTED_MEDIA_TYPE');
      await expectUnchanged(client);
    });

    it(`${method} ${path} without a content type is 415`, async () => {
      const client = fresh();
      const answer = await request(`${server.api}${path}`, {
        method,
        headers: { cookie: `svc_identity=${client.id}` },
        body: new TextEncoder().encode(body()),
      });
      expectProblem(answer, 415, 'UNSUPPORTED_MEDIA_TYPE');
      await expectUnchanged(client);
    });
  }

  it.each(['application/json; charset=utf-8', 'application/json;charset=UTF-8', 'Application/JSON'])('POST as %s is accepted', async (type) => {
    const client = fresh();
    const answer = await client.call('POST', '/users', body(), { 'content-type': type });
    expect(answer.status, answer.text).toBe(200);
    expect(await totalOf(client, 'users')).toBe(BASELINE.users + 1);
  });
});

describe('bodies over 1 MiB', () => {
  const huge = () => JSON.stringify(newRecord('users', { name: 'x'.repeat(Math.ceil(1.1 * 1024 * 1024)) }));

  for (const [method, path] of writes) {
    it(`${method} ${path} with a 1.1 MiB body is 413 PAYLOAD_TOO_LARGE`, async () => {
      const client = fresh();
      const text = huge();
      expect(text.length).toBeGreaterThan(1024 * 1024);
      expectProblem(await client.call(method, path, text), 413, 'PAYLOAD_TOO_LARGE');
      await expectUnchanged(client);
    });
  }

  it('a chunked 1.1 MiB body (no Content-Length) is 413 too', async () => {
    const client = fresh();
    const bytes = new TextEncoder().encode(huge());
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < bytes.length; at += 64 * 1024) controller.enqueue(bytes.subarray(at, at + 64 * 1024));
        controller.close();
      },
    });
    const answer = await request(`${server.api}/users`, {
      method: 'POST',
      headers: { cookie: `svc_identity=${client.id}`, 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expectProblem(answer, 413, 'PAYLOAD_TOO_LARGE');
    // The server stops reading mid-stream; it must survive that and keep answering.
    await new Promise((done) => setTimeout(done, 200));
    expect(server.stderr().slice(0, 1000)).toBe('');
    expect((await request(`${server.url}/health`)).status).toBe(200);
    await expectUnchanged(client);
  });
});
