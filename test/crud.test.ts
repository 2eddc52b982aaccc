import { describe, it, expect } from 'vitest';
import { sandboxClient, useServer } from './helpers/server.js';
import {
  BASELINE,
  COLLECTIONS,
  LOCAL_ID,
  create,
  expectProblem,
  expectValidation,
  newRecord,
  totalOf,
  type Collection,
} from './helpers/problems.js';

const server = useServer();

const fresh = () => sandboxClient(server.api);

/** Per collection: a PUT body (required fields) and a flat PATCH, both derived from the record being changed. */
const changes: Record<Collection, { put: (r: any) => Record<string, unknown>; patch: (r: any) => Record<string, unknown> }> = {
  users: {
    put: (r) => ({ name: `Put ${r.name}`, username: r.username, email: r.email }),
    patch: (r) => ({ name: `Patched ${r.name}` }),
  },
  posts: {
    put: (r) => ({ user_id: r.user_id, title: `Put ${r.title}`, body: 'Put body' }),
    patch: (r) => ({ title: `Patched ${r.title}` }),
  },
  comments: {
    put: (r) => ({ post_id: r.post_id, name: `Put ${r.name}`, email: r.email, body: 'Put body' }),
    patch: (r) => ({ body: `Patched ${r.body}` }),
  },
  todos: {
    put: (r) => ({ user_id: r.user_id, title: `Put ${r.title}`, completed: !r.completed }),
    patch: (r) => ({ completed: !r.completed }),
  },
};

/** A required field per collection, for the "null on a required field" rule. */
const requiredToNull: Record<Collection, string> = { users: 'email', posts: 'title', comments: 'body', todos: 'completed' };

const withoutSandbox = ({ _sandbox, ...rest }: any) => rest;

for (const collection of COLLECTIONS) {
  describe(`/${collection}`, () => {
    const size = BASELINE[collection];

    it('GET list answers the baseline', async () => {
      const answer = await fresh().get(`/${collection}`);
      expect(answer.status).toBe(200);
      expect(answer.body.pagination.total).toBe(size);
      expect(answer.body.data.map((r: any) => r.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    });

    it('GET /{id} answers baseline records with integer ids and no marker', async () => {
      const client = fresh();
      for (const id of [1, 7, size]) {
        const answer = await client.get(`/${collection}/${id}`);
        expect(answer.status, answer.text).toBe(200);
        expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
        expect(answer.body.id).toBe(id);
        expect(answer.body).not.toHaveProperty('_sandbox');
      }
      expectProblem(await client.get(`/${collection}/${size + 1}`), 404, 'NOT_FOUND');
    });

    it('POST creates a local record, marked "created", readable and counted', async () => {
      const client = fresh();
      const body = newRecord(collection);
      const answer = await client.post(`/${collection}`, body);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.id).toMatch(LOCAL_ID);
      expect(answer.body._sandbox).toBe('created');
      expect(answer.body).toMatchObject(body);
      if (collection !== 'users') {
        expect(answer.body.created_at).toBeTypeOf('string');
        const at = Date.parse(answer.body.created_at);
        expect(Math.abs(at - Date.now())).toBeLessThan(5 * 60_000);
        expect(answer.body.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
      }
      const read = await client.get(`/${collection}/${answer.body.id}`);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(answer.body);
      expect(await totalOf(client, collection)).toBe(size + 1);
      expect(await totalOf(fresh(), collection)).toBe(size);
    });

    it('POST gives every record a new local id', async () => {
      const client = fresh();
      const a = await create(client, collection);
      const b = await create(client, collection);
      expect(a.id).not.toBe(b.id);
    });

    it('POST ignores `id` and `_sandbox` in the body', async () => {
      const client = fresh();
      const answer = await client.post(`/${collection}`, newRecord(collection, { id: 999_999, _sandbox: 'updated' }));
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.id).toMatch(LOCAL_ID);
      expect(answer.body._sandbox).toBe('created');
      expectProblem(await client.get(`/${collection}/999999`), 404, 'NOT_FOUND');
      const local = `local-${crypto.randomUUID()}`;
      const again = await client.post(`/${collection}`, newRecord(collection, { id: local }));
      expect(again.status, again.text).toBe(200);
      expect(again.body.id).not.toBe(local);
      expectProblem(await client.get(`/${collection}/${local}`), 404, 'NOT_FOUND');
    });

    it('PUT replaces a baseline record, keeps omitted optional fields, marks "updated"', async () => {
      const client = fresh();
      const original = (await client.get(`/${collection}/1`)).body;
      const body = changes[collection].put(original);
      const answer = await client.put(`/${collection}/1`, body);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body).toEqual({ ...original, ...body, _sandbox: 'updated' });
      expect((await client.get(`/${collection}/1`)).body).toEqual(answer.body);
      expect((await fresh().get(`/${collection}/1`)).body).toEqual(original);
      expect(await totalOf(client, collection)).toBe(size);
    });

    it('PUT accepts an `id` equal to the path (number or numeric string) and rejects another', async () => {
      const client = fresh();
      const original = (await client.get(`/${collection}/7`)).body;
      const body = changes[collection].put(original);
      for (const id of [7, '7']) {
        const answer = await client.put(`/${collection}/7`, { ...body, id });
        expect(answer.status, answer.text).toBe(200);
        expect(answer.body.id).toBe(7);
      }
      expectValidation(await client.put(`/${collection}/7`, { ...body, id: 8 }), ['/id']);
      expectValidation(await client.put(`/${collection}/7`, { ...body, id: `local-${crypto.randomUUID()}` }), ['/id']);
      expect((await client.get(`/${collection}/8`)).body).toEqual((await fresh().get(`/${collection}/8`)).body);
    });

    it('PUT without a required field is 422 and changes nothing', async () => {
      const client = fresh();
      const original = (await client.get(`/${collection}/2`)).body;
      const [missing] = Object.keys(changes[collection].put(original));
      const { [missing]: _dropped, ...body } = changes[collection].put(original);
      expectValidation(await client.put(`/${collection}/2`, body), [`/${missing}`]);
      expect((await client.get(`/${collection}/2`)).body).toEqual(original);
    });

    it('PUT on a created record keeps it "created"', async () => {
      const client = fresh();
      const created = await create(client, collection);
      const body = changes[collection].put(created);
      const answer = await client.put(`/${collection}/${created.id}`, { ...body, id: created.id });
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body).toEqual({ ...created, ...body });
      expect(answer.body._sandbox).toBe('created');
    });

    it('PATCH merges into a baseline record and marks "updated"', async () => {
      const client = fresh();
      const original = (await client.get(`/${collection}/3`)).body;
      const patch = changes[collection].patch(original);
      const answer = await client.patch(`/${collection}/3`, patch);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body).toEqual({ ...original, ...patch, _sandbox: 'updated' });
      expect((await client.get(`/${collection}/3`)).body).toEqual(answer.body);
      expect((await fresh().get(`/${collection}/3`)).body).toEqual(original);
    });

    it('PATCH accepts application/merge-patch+json and an empty patch', async () => {
      const client = fresh();
      const original = (await client.get(`/${collection}/4`)).body;
      const patch = changes[collection].patch(original);
      const answer = await client.patch(`/${collection}/4`, patch, { 'content-type': 'application/merge-patch+json' });
      expect(answer.status, answer.text).toBe(200);
      expect(withoutSandbox(answer.body)).toEqual({ ...original, ...patch });
      const empty = await client.patch(`/${collection}/5`, {});
      expect(empty.status, empty.text).toBe(200);
      expect(withoutSandbox(empty.body)).toEqual((await fresh().get(`/${collection}/5`)).body);
    });

    it('PATCH on a created record keeps it "created"', async () => {
      const client = fresh();
      const created = await create(client, collection);
      const patch = changes[collection].patch(created);
      const answer = await client.patch(`/${collection}/${created.id}`, patch);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body).toEqual({ ...created, ...patch });
    });

    it('PATCH with null on a required field is 422 and changes nothing', async () => {
      const client = fresh();
      const field = requiredToNull[collection];
      const original = (await client.get(`/${collection}/6`)).body;
      expectValidation(await client.patch(`/${collection}/6`, { [field]: null }), [`/${field}`]);
      expect((await client.get(`/${collection}/6`)).body).toEqual(original);
    });

    it('DELETE answers {message, id, resource}; then GET and DELETE are 404, other sandboxes unaffected', async () => {
      const client = fresh();
      const original = (await client.get(`/${collection}/${size}`)).body;
      const answer = await client.delete(`/${collection}/${size}`);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body).toEqual({ message: expect.any(String), id: size, resource: collection });
      expectProblem(await client.get(`/${collection}/${size}`), 404, 'NOT_FOUND');
      expectProblem(await client.delete(`/${collection}/${size}`), 404, 'NOT_FOUND');
      expectProblem(await client.patch(`/${collection}/${size}`, changes[collection].patch(original)), 404, 'NOT_FOUND');
      expectProblem(await client.put(`/${collection}/${size}`, changes[collection].put(original)), 404, 'NOT_FOUND');
      expect(await totalOf(client, collection)).toBe(size - 1);
      expect((await fresh().get(`/${collection}/${size}`)).body).toEqual(original);
    });

    it('DELETE of a created record answers its local id', async () => {
      const client = fresh();
      const created = await create(client, collection);
      const answer = await client.delete(`/${collection}/${created.id}`);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body).toEqual({ message: expect.any(String), id: created.id, resource: collection });
      expectProblem(await client.get(`/${collection}/${created.id}`), 404, 'NOT_FOUND');
      expectProblem(await client.delete(`/${collection}/${created.id}`), 404, 'NOT_FOUND');
      expect(await totalOf(client, collection)).toBe(size);
    });

    it('PUT, PATCH and DELETE of an unknown record are 404 and create nothing', async () => {
      const client = fresh();
      const original = (await client.get(`/${collection}/1`)).body;
      for (const id of [size + 1, 999_999, `local-${crypto.randomUUID()}`]) {
        expectProblem(await client.put(`/${collection}/${id}`, changes[collection].put(original)), 404, 'NOT_FOUND');
        expectProblem(await client.patch(`/${collection}/${id}`, changes[collection].patch(original)), 404, 'NOT_FOUND');
        expectProblem(await client.delete(`/${collection}/${id}`), 404, 'NOT_FOUND');
      }
      expect(await totalOf(client, collection)).toBe(size);
    });
  });
}

describe('"7" and 7 name the same record', () => {
  it('a baseline record is answered with the number id', async () => {
    const answer = await fresh().get('/posts/7');
    expect(answer.status).toBe(200);
    expect(answer.body.id).toBe(7);
  });

  it.each([
    ['posts', 'user_id'],
    ['todos', 'user_id'],
    ['comments', 'post_id'],
  ] as const)('a numeric-string foreign key on %s.%s is accepted and stored as the number', async (collection, key) => {
    const client = fresh();
    const answer = await client.post(`/${collection}`, newRecord(collection, { [key]: '7' }));
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body[key]).toBe(7);
    // "7" and 7 name the same record: the filter and the parent's sub-resource both find it.
    expect((await client.get(`/${collection}?${key}=7&limit=200`)).body.data.map((r: { id: unknown }) => r.id)).toContain(answer.body.id);
    const parent = key === 'user_id' ? 'users' : 'posts';
    expect((await client.get(`/${parent}/7/${collection}?limit=200`)).body.data.map((r: { id: unknown }) => r.id)).toContain(answer.body.id);
  });
});

describe('PUT keeps optional fields; PATCH is a JSON merge patch', () => {
  it('PUT of a user with only the required fields keeps phone, website, address and company', async () => {
    const client = fresh();
    const original = (await client.get('/users/9')).body;
    expect(original).toHaveProperty('address.geo.lat');
    const answer = await client.put('/users/9', { name: 'Renamed', username: original.username, email: original.email });
    expect(answer.status, answer.text).toBe(200);
    for (const key of ['phone', 'website', 'address', 'company']) expect(answer.body[key]).toEqual(original[key]);
  });

  it('PUT of a post without created_at keeps it', async () => {
    const client = fresh();
    const original = (await client.get('/posts/9')).body;
    const answer = await client.put('/posts/9', { user_id: original.user_id, title: 'T', body: 'B' });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.created_at).toBe(original.created_at);
  });

  it('POST keeps a created_at the client gives', async () => {
    const answer = await fresh().post('/todos', newRecord('todos', { created_at: '2024-02-29T12:00:00.000Z' }));
    expect(answer.status, answer.text).toBe(200);
    expect(Date.parse(answer.body.created_at)).toBe(Date.parse('2024-02-29T12:00:00.000Z'));
  });

  it('nested objects merge', async () => {
    const client = fresh();
    const original = (await client.get('/users/10')).body;
    const answer = await client.patch('/users/10', { address: { geo: { lat: 12.5 } }, company: { catchPhrase: 'Merged' } });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.address).toEqual({ ...original.address, geo: { ...original.address.geo, lat: 12.5 } });
    expect(answer.body.company).toEqual({ ...original.company, catchPhrase: 'Merged' });
    expect(answer.body.name).toBe(original.name);
  });

  it('null clears optional fields, top-level and nested', async () => {
    const client = fresh();
    const original = (await client.get('/users/11')).body;
    const answer = await client.patch('/users/11', { phone: null, address: { suite: null } });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).not.toHaveProperty('phone');
    expect(answer.body.address).not.toHaveProperty('suite');
    expect(answer.body.address.street).toBe(original.address.street);
    expect(answer.body.website).toBe(original.website);
    const read = (await client.get('/users/11')).body;
    expect(read).toEqual(answer.body);
    expect(read).not.toHaveProperty('phone');
  });

  it('null clears a whole optional object', async () => {
    const client = fresh();
    const answer = await client.patch('/users/12', { company: null });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).not.toHaveProperty('company');
    expect((await client.get('/users/12')).body).not.toHaveProperty('company');
  });
});

describe('no cascade', () => {
  it('deleting a baseline post leaves its comments', async () => {
    const client = fresh();
    const comment = (await client.get('/comments/1')).body;
    expect((await client.delete(`/posts/${comment.post_id}`)).status).toBe(200);
    const after = await client.get('/comments/1');
    expect(after.status).toBe(200);
    expect(after.body).toEqual(comment);
    expect(await totalOf(client, 'comments')).toBe(BASELINE.comments);
  });

  it('deleting a created user leaves its created post and todo', async () => {
    const client = fresh();
    const user = await create(client, 'users');
    const post = await create(client, 'posts', { user_id: user.id });
    const todo = await create(client, 'todos', { user_id: user.id });
    expect((await client.delete(`/users/${user.id}`)).status).toBe(200);
    expect((await client.get(`/posts/${post.id}`)).body).toEqual(post);
    expect((await client.get(`/todos/${todo.id}`)).body).toEqual(todo);
  });
});

describe('foreign keys must be visible in the sandbox', () => {
  const cases = [
    ['posts', 'user_id', 'users'],
    ['todos', 'user_id', 'users'],
    ['comments', 'post_id', 'posts'],
  ] as const;

  describe.each(cases)('%s.%s → %s', (collection, key, parent) => {
    it('nonexistent ids are 422 at the key, and nothing is written', async () => {
      const client = fresh();
      for (const value of [BASELINE[parent] + 1, 999_999, 0, -1, '999999', `local-${crypto.randomUUID()}`, 'abc', '']) {
        expectValidation(await client.post(`/${collection}`, newRecord(collection, { [key]: value })), [`/${key}`]);
      }
      expect(await totalOf(client, collection)).toBe(BASELINE[collection]);
    });

    it('a parent deleted in this sandbox is 422; another sandbox may still use it', async () => {
      const client = fresh();
      expect((await client.delete(`/${parent}/2`)).status).toBe(200);
      expectValidation(await client.post(`/${collection}`, newRecord(collection, { [key]: 2 })), [`/${key}`]);
      expectValidation(await client.patch(`/${collection}/1`, { [key]: 2 }), [`/${key}`]);
      expect((await fresh().post(`/${collection}`, newRecord(collection, { [key]: 2 }))).status).toBe(200);
    });

    it('a parent created in this sandbox is accepted by its local id', async () => {
      const client = fresh();
      const created = await create(client, parent);
      const child = await create(client, collection, { [key]: created.id });
      expect(child[key]).toBe(created.id);
      const moved = await client.patch(`/${collection}/1`, { [key]: created.id });
      expect(moved.status, moved.text).toBe(200);
      expect(moved.body[key]).toBe(created.id);
    });

    it("another sandbox's local parent is 422", async () => {
      const owner = fresh();
      const created = await create(owner, parent);
      const stranger = fresh();
      expectValidation(await stranger.post(`/${collection}`, newRecord(collection, { [key]: created.id })), [`/${key}`]);
      expectValidation(await stranger.patch(`/${collection}/1`, { [key]: created.id }), [`/${key}`]);
      expect(await totalOf(stranger, collection)).toBe(BASELINE[collection]);
    });

    it('a parent created and then deleted is 422', async () => {
      const client = fresh();
      const created = await create(client, parent);
      expect((await client.delete(`/${parent}/${created.id}`)).status).toBe(200);
      expectValidation(await client.post(`/${collection}`, newRecord(collection, { [key]: created.id })), [`/${key}`]);
    });
  });
});

describe('username and email are unique within the sandbox view', () => {
  const shout = (s: string) => s.toUpperCase();

  it('POST with a baseline username or email (any case) is 409 CONFLICT and writes nothing', async () => {
    const client = fresh();
    const taken = (await client.get('/users/1')).body;
    expectProblem(await client.post('/users', newRecord('users', { username: taken.username })), 409, 'CONFLICT');
    expectProblem(await client.post('/users', newRecord('users', { username: shout(taken.username) })), 409, 'CONFLICT');
    expectProblem(await client.post('/users', newRecord('users', { email: taken.email })), 409, 'CONFLICT');
    expectProblem(await client.post('/users', newRecord('users', { email: shout(taken.email) })), 409, 'CONFLICT');
    expect(await totalOf(client, 'users')).toBe(BASELINE.users);
  });

  it('POST with a created user’s username or email (any case) is 409', async () => {
    const client = fresh();
    const mine = await create(client, 'users');
    expectProblem(await client.post('/users', newRecord('users', { username: shout(mine.username) })), 409, 'CONFLICT');
    expectProblem(await client.post('/users', newRecord('users', { email: shout(mine.email) })), 409, 'CONFLICT');
  });

  it('PUT and PATCH onto another user’s value are 409 and change nothing', async () => {
    const client = fresh();
    const one = (await client.get('/users/1')).body;
    const two = (await client.get('/users/2')).body;
    expectProblem(await client.patch('/users/2', { email: shout(one.email) }), 409, 'CONFLICT');
    expectProblem(await client.patch('/users/2', { username: one.username }), 409, 'CONFLICT');
    expectProblem(await client.put('/users/2', { name: two.name, username: shout(one.username), email: two.email }), 409, 'CONFLICT');
    expect((await client.get('/users/2')).body).toEqual(two);
  });

  it('a user keeping its own username and email is fine', async () => {
    const client = fresh();
    const one = (await client.get('/users/1')).body;
    const put = await client.put('/users/1', { name: 'Same Person', username: one.username, email: one.email });
    expect(put.status, put.text).toBe(200);
    const patch = await client.patch('/users/1', { email: one.email, username: one.username });
    expect(patch.status, patch.text).toBe(200);
  });

  it('values freed in this sandbox (deleted or changed user) can be taken', async () => {
    const client = fresh();
    const three = (await client.get('/users/3')).body;
    const four = (await client.get('/users/4')).body;
    expect((await client.delete('/users/3')).status).toBe(200);
    const reuse = await client.post('/users', newRecord('users', { username: three.username, email: three.email }));
    expect(reuse.status, reuse.text).toBe(200);
    expect((await client.patch('/users/4', { email: 'moved.away@example.test' })).status).toBe(200);
    const take = await client.post('/users', newRecord('users', { email: four.email }));
    expect(take.status, take.text).toBe(200);
  });

  it('another sandbox’s users never conflict', async () => {
    const first = fresh();
    const mine = await create(first, 'users');
    const second = fresh();
    const same = await second.post('/users', newRecord('users', { username: mine.username, email: mine.email }));
    expect(same.status, same.text).toBe(200);
  });
});

describe('ids that are not a canonical positive integer or a live local id are 404', () => {
  const odd = [
    'abc',
    '0',
    '-1',
    '1.5',
    '007',
    '01',
    '1e3',
    '+1',
    '0x10',
    '1%20',
    '%201',
    'Infinity',
    'NaN',
    'null',
    'true',
    'x'.repeat(500),
    '9'.repeat(500),
    '%00',
    '1%00',
    '99999999999999999999',
    '9007199254740993',
    'local-',
    'local-abc',
    'local-1',
    'LOCAL-' + crypto.randomUUID(),
    'local-' + crypto.randomUUID(),
    '%E2%9C%93',
  ];

  it.each(odd)('GET /users/%s', async (id) => {
    expectProblem(await fresh().get(`/users/${id}`), 404, 'NOT_FOUND');
  });

  it.each(odd)('DELETE /todos/%s', async (id) => {
    const client = fresh();
    expectProblem(await client.delete(`/todos/${id}`), 404, 'NOT_FOUND');
    expect(await totalOf(client, 'todos')).toBe(BASELINE.todos);
  });

  it.each(odd)('PATCH /posts/%s', async (id) => {
    expectProblem(await fresh().patch(`/posts/${id}`, { title: 'x' }), 404, 'NOT_FOUND');
  });

  it('an upper-cased local id of an existing record is 404', async () => {
    const client = fresh();
    const created = await create(client, 'users');
    expect((await client.get(`/users/${created.id}`)).status).toBe(200);
    expectProblem(await client.get(`/users/${created.id.toUpperCase()}`), 404, 'NOT_FOUND');
  });
});
