import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configuredServers, readFile } from './helpers/configured.js';
import { refusedServe } from './helpers/cli-in-process.js';
import { eventually, fromHere, sandboxClient, startServer, type CliServer, type RunningServer } from './helpers/server.js';
import { startReceiver } from './helpers/receiver.js';
import { expectProblem, LOCAL_ID, newRecord } from './helpers/problems.js';

/**
 * Config-declared collections (contract sections 2 and 10): a collection named in the config's
 * `collections`, with its own fixture file, is served at /api/v1/{name} like the core ones.
 */

const servers = configuredServers();

const customers = ['Acme Corp', 'Globex', 'Initech', 'Umbrella', 'Stark', 'Wayne', 'Hooli', 'Vehement', 'Massive', 'Soylent', 'Cyberdyne', 'Tyrell'];
/** 12 invoices; invoice 2's note says "urgent", a word of no searched field. */
const invoices = customers.map((customer, i) => ({
  id: i + 1,
  number: `INV-${String(i + 1).padStart(3, '0')}`,
  customer,
  amount: 50 * (i + 1),
  paid: (i + 1) % 3 === 0,
  note: i === 1 ? 'urgent' : 'net 30',
  user_id: (i % 4) + 1,
}));

const invoiceSchema = {
  type: 'object',
  properties: {
    number: { type: 'string', minLength: 1 },
    customer: { type: 'string' },
    amount: { type: 'number', minimum: 0 },
    paid: { type: 'boolean' },
    note: { type: 'string' },
    user_id: { type: 'integer' },
  },
  required: ['number', 'amount'],
  additionalProperties: false,
};

const declared = (extra: Record<string, unknown> = {}) => ({
  invoices: {
    fixture: './invoices.json',
    schema: invoiceSchema,
    search: ['number', 'customer'],
    relations: { user: { belongsTo: 'users', key: 'user_id' } },
    ...extra,
  },
});

interface Project<Server = RunningServer> {
  dir: string;
  configFile: string;
  server: Server;
}

/** A folder with a config and `invoices.json` beside it (the fixture path is relative to the config). */
function writeProject(
  collections: Record<string, unknown>,
  files: Record<string, unknown> = { 'invoices.json': invoices },
  config: Record<string, unknown> = {},
  defer = servers.defer,
): { dir: string; configFile: string } {
  const dir = mkdtempSync(join(tmpdir(), 'mockapi-declared-'));
  defer(() => rmSync(dir, { recursive: true, force: true }));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  const configFile = join(dir, 'mockapi.config.json');
  writeFileSync(configFile, JSON.stringify({ ...config, collections }));
  return { dir, configFile };
}

async function serveProject(
  collections: Record<string, unknown> = declared(),
  options: { db?: string; files?: Record<string, unknown>; config?: Record<string, unknown> } = {},
): Promise<Project> {
  const { dir, configFile } = writeProject(collections, options.files, options.config);
  const server = await startServer({ args: ['--config', configFile], cwd: dir, db: options.db });
  servers.defer(() => server.cleanup());
  return { dir, configFile, server };
}

/** The project served by the CLI with `--watch`. */
async function watchProject(collections: Record<string, unknown>, config?: Record<string, unknown>, defer = servers.defer): Promise<Project<CliServer>> {
  const { dir, configFile } = writeProject(collections, undefined, config, defer);
  const server = await startServer({ cli: true, args: ['--watch', '--config', configFile], cwd: dir });
  defer(() => server.cleanup());
  return { dir, configFile, server };
}

/**
 * One `--watch` project for the tests that each start from `declared()` (a spawned server costs
 * about a second of CPU): the first test gets it as started, each next one with the config and
 * the invoices fixture written back and reloaded (a swap like the ones the tests make), and every
 * test sees the server's output from its own start.
 */
function sharedWatchProject(): () => Promise<Project<CliServer>> {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });
  let project: Project<CliServer> | undefined;
  return async () => {
    if (!project) project = await watchProject(declared(), undefined, (cleanup) => cleanups.push(cleanup));
    else {
      const { server, configFile, dir } = project;
      const from = server.stdout().length;
      const fixture = join(dir, 'invoices.json');
      if (readFileSync(fixture, 'utf8') !== JSON.stringify(invoices, null, 2)) writeFileSync(fixture, JSON.stringify(invoices, null, 2));
      writeFileSync(configFile, JSON.stringify({ collections: declared() }));
      await eventually('the config written back', () => /reloaded config .*\n/.test(server.stdout().slice(from)));
      const client = sandboxClient(server.api);
      await eventually('the invoices written back', async () => (await client.get('/invoices?limit=1')).body?.pagination?.total === invoices.length);
    }
    return { ...project, server: fromHere(project.server) };
  };
}

// For the --watch tests below but the webhooks one; the last one stops it.
const shared = sharedWatchProject();

describe('a config-declared collection', () => {
  it('lists with the envelope, paging, cursors, filters, sort and search over its fixture', async () => {
    const { server } = await serveProject();
    const client = sandboxClient(server.api);

    const first = await client.get('/invoices?limit=5');
    expect(first.status, first.text).toBe(200);
    expect(first.body.data.map((r: any) => r.id)).toEqual([1, 2, 3, 4, 5]);
    expect(first.body.pagination).toMatchObject({ page: 1, limit: 5, total: 12, totalPages: 3, hasNextPage: true, hasPrevPage: false });
    expect((await client.get('/invoices?limit=5&page=3')).body.data.map((r: any) => r.id)).toEqual([11, 12]);

    const walked: number[] = [];
    let cursor: string | null = null;
    do {
      const page: any = (await client.get(`/invoices?limit=5${cursor ? `&cursor=${cursor}` : ''}`)).body;
      walked.push(...page.data.map((r: any) => r.id));
      cursor = page.pagination.nextCursor;
    } while (cursor);
    expect(walked).toEqual(invoices.map((i) => i.id));

    expect((await client.get('/invoices?paid=true')).body.data.map((r: any) => r.id)).toEqual([3, 6, 9, 12]);
    expect((await client.get('/invoices?amount_gte=500&user_id=2')).body.data.map((r: any) => r.id)).toEqual([10]);
    expect((await client.get('/invoices?amount_gte=400&user_id=1')).body.data.map((r: any) => r.id)).toEqual([9]);
    expect((await client.get('/invoices?customer_like=CORP')).body.data.map((r: any) => r.id)).toEqual([1]);
    expect((await client.get('/invoices?_sort=-amount&limit=3')).body.data.map((r: any) => r.id)).toEqual([12, 11, 10]);
    expectProblem(await client.get('/invoices?colour=red'), 400, 'INVALID_QUERY');

    // `search` names the fields of `q`: number and customer, not note.
    expect((await client.get('/invoices?q=globex')).body.data.map((r: any) => r.id)).toEqual([2]);
    expect((await client.get('/invoices?q=INV-011')).body.data.map((r: any) => r.id)).toEqual([11]);
    expect((await client.get('/invoices?q=urgent')).body.pagination.total).toBe(0);

    expect((await client.get('/invoices/4')).body).toEqual(invoices[3]);
    expectProblem(await client.get('/invoices/99'), 404, 'NOT_FOUND');
  });

  it('writes in the sandbox only, validates with its schema and foreign key, and logs invoice.* events', async () => {
    const { server } = await serveProject();
    const a = sandboxClient(server.api);
    const b = sandboxClient(server.api);

    const bad = await a.post('/invoices', { number: 'X-1', amount: -5, colour: 'red' });
    expectProblem(bad, 422, 'VALIDATION_FAILED');
    expect(bad.body.errors.map((e: any) => e.path).sort()).toEqual(['/amount', '/colour']);
    expectProblem(await a.post('/invoices', { customer: 'no number', amount: 1 }), 422, 'VALIDATION_FAILED');

    // A user only sandbox b can see is no user for sandbox a.
    const bUser = await b.post('/users', { name: 'Bea', username: 'bea', email: 'bea@example.org' });
    expect(bUser.status).toBe(200);
    const foreign = await a.post('/invoices', { number: 'X-2', amount: 10, user_id: bUser.body.id });
    expectProblem(foreign, 422, 'VALIDATION_FAILED');
    expect(foreign.body.errors[0].path).toBe('/user_id');
    expectProblem(await a.post('/invoices', { number: 'X-2', amount: 10, user_id: 999 }), 422, 'VALIDATION_FAILED');
    const bInvoice = await b.post('/invoices', { number: 'B-1', amount: 10, user_id: bUser.body.id });
    expect(bInvoice.status, bInvoice.text).toBe(200);

    // `id` and `_sandbox` in a body are the server's, ignored as on core collections.
    const created = await a.post('/invoices', { id: 77, _sandbox: 'x', number: 'A-1', customer: 'Zenith', amount: 10, user_id: '1' });
    expect(created.status, created.text).toBe(200);
    expect(created.body).toMatchObject({ number: 'A-1', user_id: 1, _sandbox: 'created' });
    expect(created.body.id).toMatch(LOCAL_ID);
    const patched = await a.patch(`/invoices/${created.body.id}`, { paid: true });
    expect(patched.body).toMatchObject({ paid: true, _sandbox: 'created' });
    expect((await a.patch('/invoices/1', { amount: 1 })).body).toMatchObject({ amount: 1, _sandbox: 'updated' });
    expect((await a.delete('/invoices/2')).body).toEqual({ message: 'invoice 2 deleted', id: 2, resource: 'invoices' });

    expect((await a.get('/invoices?q=zenith')).body.data.map((r: any) => r.id)).toEqual([created.body.id]);
    expect((await a.get('/invoices')).body.pagination.total).toBe(12);
    expect((await a.get('/invoices/1')).body.amount).toBe(1);
    expectProblem(await a.get('/invoices/2'), 404, 'NOT_FOUND');
    // Sandbox b sees the baseline and its own invoice, nothing of a's.
    expect((await b.get('/invoices')).body.pagination.total).toBe(13);
    expect((await b.get('/invoices/1')).body.amount).toBe(50);
    expect((await b.get('/invoices/2')).status).toBe(200);
    expectProblem(await b.get(`/invoices/${created.body.id}`), 404, 'NOT_FOUND');
    expect((await b.get('/invoices?q=zenith')).body.pagination.total).toBe(0);

    const events = (await a.get('/events?limit=50')).body.data.map((e: any) => e.event);
    expect(events).toEqual(expect.arrayContaining(['invoice.created', 'invoice.updated', 'invoice.deleted']));
    expect(events).toHaveLength(4);
  });

  it('serves the belongsTo relation both ways: /invoices/1/user, _expand=user, /users/1/invoices, _embed=invoices', async () => {
    const { server } = await serveProject();
    const client = sandboxClient(server.api);
    const user1 = (await client.get('/users/1')).body;

    expect((await client.get('/invoices/5/user')).body).toEqual(user1);
    const expanded = await client.get('/invoices/5?_expand=user');
    expect(expanded.body).toEqual({ ...invoices[4], user: user1 });
    const listed = await client.get('/invoices?limit=4&_expand=user');
    expect(listed.body.data.map((r: any) => r.user.id)).toEqual([1, 2, 3, 4]);

    const mine = invoices.filter((i) => i.user_id === 1).map((i) => i.id);
    expect((await client.get('/users/1/invoices')).body.data.map((r: any) => r.id)).toEqual(mine);
    expect((await client.get('/users/1/invoices?paid=true')).body.data.map((r: any) => r.id)).toEqual([9]);
    expect((await client.get('/users/1?_embed=invoices')).body.invoices.map((r: any) => r.id)).toEqual(mine);
    const embedded = await client.get('/users?limit=2&_embed=invoices,posts');
    expect(embedded.body.data[1].invoices.map((r: any) => r.id)).toEqual(invoices.filter((i) => i.user_id === 2).map((i) => i.id));
    expect(embedded.body.data[1].posts.length).toBeGreaterThan(0);

    // The inverse follows the sandbox: a created invoice of user 1 shows there, for its sandbox only.
    const created = (await client.post('/invoices', { number: 'N-1', amount: 1, user_id: 1 })).body;
    expect((await client.get('/users/1/invoices')).body.data.map((r: any) => r.id)).toEqual([created.id, ...mine]);
    expect((await sandboxClient(server.api).get('/users/1/invoices')).body.data.map((r: any) => r.id)).toEqual(mine);
    expectProblem(await client.get('/invoices/1/customer'), 404, 'NOT_FOUND');
    expectProblem(await client.get('/posts?_embed=invoices'), 400, 'INVALID_QUERY');
  });

  it('appears in GraphQL with its relation and the inverse on users', async () => {
    const { server } = await serveProject();
    const client = sandboxClient(server.api);
    const query = `{ invoices(limit: 2, paid: true) { data { number amount user { id invoices { number } } } pagination { total } }
      invoice(id: 1) { customer } user(id: 4) { invoices(limit: 1) { number } } }`;
    const answer = await client.post('/graphql', { query });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.data.invoices.pagination.total).toBe(4);
    expect(answer.body.data.invoices.data[0]).toEqual({ number: 'INV-003', amount: 150, user: { id: '3', invoices: [{ number: 'INV-003' }, { number: 'INV-007' }, { number: 'INV-011' }] } });
    expect(answer.body.data.invoice).toEqual({ customer: 'Acme Corp' });
    expect(answer.body.data.user.invoices).toEqual([{ number: 'INV-004' }]);
  });

  it('takes part in reset, export and import of the sandbox', async () => {
    const { server } = await serveProject();
    const client = sandboxClient(server.api);
    const created = (await client.post('/invoices', { number: 'R-1', amount: 3, user_id: 2 })).body;
    await client.delete('/invoices/5');
    const document = (await client.get('/sandbox/export')).body;
    expect(document.sandboxes[0].collections.invoices).toEqual({ created: [created], updated: [], deleted: [5] });

    const reset = await client.post('/sandbox/reset');
    expect(reset.body.purged).toMatchObject({ invoices: 2, users: 0 });
    expectProblem(await client.get(`/invoices/${created.id}`), 404, 'NOT_FOUND');
    expect((await client.get('/invoices/5')).status).toBe(200);

    const imported = await client.post('/sandbox/import', document);
    expect(imported.status, imported.text).toBe(200);
    expect((await client.get(`/invoices/${created.id}`)).body).toEqual(created);
    expectProblem(await client.get('/invoices/5'), 404, 'NOT_FOUND');
    expect((await client.get('/sandbox/export')).body.sandboxes[0].collections).toEqual(document.sandboxes[0].collections);
  });

  it('keeps its collection number by name: a reordered config never shows its rows in another collection', async () => {
    const receipts = { fixture: './receipts.json' };
    const files = { 'invoices.json': invoices, 'receipts.json': [{ id: 1, total: 5 }] };
    const dbDir = mkdtempSync(join(tmpdir(), 'mockapi-declared-db-'));
    servers.defer(() => rmSync(dbDir, { recursive: true, force: true }));
    const kept = join(dbDir, 'kept.db');
    const first = await serveProject(declared(), { files, db: kept });
    const client = sandboxClient(first.server.api);
    const created = (await client.post('/invoices', { number: 'K-1', amount: 1 })).body;
    expect(await first.server.stop()).toBe(0);

    // receipts now comes first: numbered in config order it would take invoices' number.
    const second = await serveProject({ receipts, ...declared() }, { files, db: kept });
    const again = sandboxClient(second.server.api, client.id);
    expect((await again.get(`/invoices/${created.id}`)).body).toEqual(created);
    expect((await again.get('/receipts')).body.data).toEqual([{ id: 1, total: 5 }]);
    expect((await again.get('/receipts')).body.pagination.total).toBe(1);
  });

  it('without a schema takes any object and searches every top-level string field of its fixture', async () => {
    const { server } = await serveProject({ notes: { fixture: './notes.json' } }, { files: { 'notes.json': [{ id: 1, title: 'Shopping', body: 'milk and eggs', stars: 3 }] } });
    const client = sandboxClient(server.api);
    expect((await client.get('/notes?q=eggs')).body.data.map((r: any) => r.id)).toEqual([1]);
    expect((await client.get('/notes?q=shopping')).body.data.map((r: any) => r.id)).toEqual([1]);
    expect((await client.get('/notes?stars_gte=3')).body.pagination.total).toBe(1);
    const created = await client.post('/notes', { anything: { nested: [1, 2] }, title: 'Free form' });
    expect(created.status, created.text).toBe(200);
    expect((await client.get('/notes?q=free')).body.data.map((r: any) => r.id)).toEqual([created.body.id]);
    // Events use the singular: notes → note.
    expect((await client.get('/events')).body.data[0].event).toBe('note.created');
  });

  it('reloads its fixture file under --watch', async () => {
    const { dir, configFile, server } = await shared();
    const client = sandboxClient(server.api);
    expect((await client.get('/invoices/1')).body.customer).toBe('Acme Corp');
    writeFileSync(join(dir, 'invoices.json'), JSON.stringify([{ ...invoices[0], customer: 'Renamed Ltd' }, invoices[1]]));
    await eventually('the invoices fixture to reload', async () => (await client.get('/invoices/1')).body.customer === 'Renamed Ltd');
    expect((await client.get('/invoices')).body.pagination.total).toBe(2);
    expect((await client.get('/invoices?q=renamed')).body.data.map((r: any) => r.id)).toEqual([1]);
    expect(server.stdout()).toMatch(/reloaded fixtures: invoices \(2 records\)/);

    // A change of the declared collections themselves applies too (a new runtime is swapped in).
    writeFileSync(configFile, JSON.stringify({ collections: declared({ search: ['customer'] }) }));
    await eventually('the new search fields', async () => (await client.get('/invoices?q=INV-001')).body.pagination.total === 0);
    expect((await client.get('/invoices?q=renamed')).body.data.map((r: any) => r.id)).toEqual([1]);
    await eventually('the reload line', () => /reloaded config mockapi\.config\.json \(collections: invoices changed\)/.test(server.stdout()));
    expect(server.stderr()).not.toMatch(/restart mockapi/);
  });
});

describe('a change of the collections key under --watch', () => {
  const receipts = [
    { id: 1, total: 5, user_id: 2 },
    { id: 2, total: 7, user_id: 3 },
  ];
  /** `receipts` with its fixture in a folder not watched before it is declared. */
  const withReceipts = (dir: string, records: unknown = receipts) => {
    mkdirSync(join(dir, 'data'), { recursive: true });
    writeFileSync(join(dir, 'data', 'receipts.json'), typeof records === 'string' ? records : JSON.stringify(records));
    return { ...declared(), receipts: { fixture: './data/receipts.json', relations: { user: { belongsTo: 'users', key: 'user_id' } } } };
  };
  const ids = (answer: { body: any }) => answer.body.data.map((r: any) => r.id);

  it('lets the replaced runtime answer its requests in flight and ends its event streams', async () => {
    const { dir, configFile, server } = await shared();
    const client = sandboxClient(server.api);
    const stream = await fetch(`${server.api}/events/stream`, { headers: { cookie: `svc_identity=${client.id}` } });
    expect(stream.status).toBe(200);
    // Delayed before it reads the database: it reaches the old runtime's after the swap.
    const slow = client.get('/invoices?_delay=2s&limit=3');
    await new Promise((wait) => setTimeout(wait, 200));
    writeFileSync(configFile, JSON.stringify({ collections: withReceipts(dir) }));
    await eventually('the reload line', () => /\(collections: receipts added\)/.test(server.stdout()));
    expect((await client.get('/receipts')).status).toBe(200);
    const answer = await slow;
    expect(answer.status, answer.text).toBe(200);
    expect(ids(answer)).toEqual([1, 2, 3]);
    // The old stream ends (its client reconnects to the new runtime) instead of hanging.
    await stream.text();
    expect(server.stderr()).toBe('');
  });

  it('keeps delivering the sandbox\'s webhooks after the swap', async () => {
    const receiver = await startReceiver();
    servers.defer(() => receiver.close());
    const webhooks = { timeoutMs: 2000, attempts: 3, backoffMs: 20 };
    const { dir, configFile, server } = await watchProject(declared(), { webhooks });
    const client = sandboxClient(server.api);
    const subscribed = await client.post('/webhooks', { url: `${receiver.url}/hook`, events: ['*'] });
    expect(subscribed.status, subscribed.text).toBe(200);
    const hook = subscribed.body.id;
    await client.post('/invoices', { number: 'W-1', amount: 1 });
    await receiver.waitFor(1);

    writeFileSync(configFile, JSON.stringify({ webhooks, collections: withReceipts(dir) }));
    await eventually('/receipts to be served', async () => (await client.get('/receipts')).status === 200);
    await client.post('/receipts', { total: 3 });
    await receiver.waitFor(2);
    await eventually('both deliveries to be settled', async () => {
      const deliveries = (await client.get(`/webhooks/${hook}/deliveries`)).body.data as { status: string }[];
      return deliveries.length === 2 && deliveries.every((d) => d.status === 'succeeded');
    });
    expect(receiver.bodies().map((b) => b.type ?? b.event)).toEqual(['invoice.created', 'receipt.created']);
  });

  it('applies a changed schema and a removal', async () => {
    const { configFile, server } = await shared();
    const client = sandboxClient(server.api);
    const before = (await client.post('/invoices', { number: 'A-1', amount: 20 })).body;

    // Every fixture record has a customer; the write above had none.
    const strict = { ...invoiceSchema, required: ['number', 'amount', 'customer'] };
    writeFileSync(configFile, JSON.stringify({ collections: declared({ schema: strict }), limits: { maxPageSize: 7 } }));
    await eventually('the config to reload', () => /reloaded config .*\(collections: invoices changed\)/.test(server.stdout()));
    const refused = await client.post('/invoices', { number: 'A-2', amount: 20 });
    expectProblem(refused, 422, 'VALIDATION_FAILED');
    expect((await client.post('/invoices', { number: 'A-3', amount: 5, customer: 'Initech' })).status).toBe(200);
    // The sandbox's record written under the old schema stays.
    expect((await client.get(`/invoices/${before.id}`)).body).toEqual(before);
    expect((await client.get('/invoices')).body.pagination.total).toBe(invoices.length + 2);
    // The rest of the config came with it.
    expectProblem(await client.get('/invoices?limit=8'), 400, 'INVALID_QUERY');

    writeFileSync(configFile, JSON.stringify({}));
    await eventually('/invoices to be gone', async () => (await client.get('/invoices')).status === 404);
    expectProblem(await client.get('/invoices/1'), 404, 'NOT_FOUND');
    expectProblem(await client.get('/users/1/invoices'), 404, 'NOT_FOUND');
    await eventually('the reload line', () => /\(collections: invoices removed\)/.test(server.stdout()));
    expect((await client.get('/users?limit=8')).status).toBe(200);
  });

  it('keeps the served collections when the new ones do not load, and tries again when the fixture is fixed', async () => {
    const { dir, configFile, server } = await shared();
    const client = sandboxClient(server.api);
    // The search fields of invoices change too: the attempt must not leave the old runtime with an index built for them.
    const broken = { ...withReceipts(dir, [{ id: 'one', total: 5 }]), invoices: declared({ search: ['customer'] }).invoices };
    writeFileSync(configFile, JSON.stringify({ collections: broken }));
    await eventually('the error line', () => /receipts\.json/.test(server.stderr()));
    const lines = server.stderr().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^mockapi: config not reloaded, keeping the last good one: .*receipts\.json record #1 \(index 0\): "id" must be an integer/);
    expect(ids(await client.get('/invoices?limit=2'))).toEqual([1, 2]);
    expectProblem(await client.get('/receipts'), 404, 'NOT_FOUND');
    expect(ids(await client.get('/invoices?q=INV-003'))).toEqual([3]);

    writeFileSync(join(dir, 'data', 'receipts.json'), JSON.stringify(receipts));
    await eventually('/receipts to be served', async () => (await client.get('/receipts')).status === 200);
    expect(ids(await client.get('/receipts'))).toEqual([1, 2]);
    await eventually('the reload line', () => /\(collections: invoices changed, receipts added\)|\(collections: receipts added, invoices changed\)/.test(server.stdout()));
    expect((await client.get('/invoices?q=INV-003')).body.pagination.total).toBe(0);
    expect(ids(await client.get('/invoices?q=initech'))).toEqual([3]);
  });

  it('serves a newly declared collection with its fixture, keeping the sandboxes\' writes', async () => {
    const { dir, configFile, server } = await shared();
    const client = sandboxClient(server.api);
    const post = (await client.post('/posts', newRecord('posts', { title: 'kept across the swap' }))).body;
    expect((await client.patch('/users/2', { name: 'Patched Name' })).status).toBe(200);
    const invoice = (await client.post('/invoices', { number: 'K-1', amount: 1 })).body;
    expectProblem(await client.get('/receipts'), 404, 'NOT_FOUND');
    const uptime = async () => (await (await fetch(`${server.url}/health`)).json()).uptime as number;
    const before = await uptime();

    writeFileSync(configFile, JSON.stringify({ collections: withReceipts(dir) }));
    await eventually('/receipts to be served', async () => (await client.get('/receipts')).status === 200);
    // A swap is not a restart.
    expect(await uptime()).toBeGreaterThanOrEqual(before);
    expect(ids(await client.get('/receipts'))).toEqual([1, 2]);
    expect(ids(await client.get('/users/2/receipts'))).toEqual([1]);
    await eventually('the reload line', () => /reloaded config mockapi\.config\.json \(collections: receipts added\)/.test(server.stdout()));
    // GraphQL's schema is built anew with it.
    const graphql = await client.post('/graphql', { query: '{ receipts { data { total user { id } } } user(id: 3) { receipts { id } } }' });
    expect(graphql.body, graphql.text).toEqual({ data: { receipts: { data: [{ total: 5, user: { id: '2' } }, { total: 7, user: { id: '3' } }] }, user: { receipts: [{ id: '2' }] } } });

    expect((await client.get(`/posts/${post.id}`)).body).toEqual(post);
    expect((await client.get('/users/2')).body.name).toBe('Patched Name');
    expect((await client.get(`/invoices/${invoice.id}`)).body).toEqual(invoice);
    expect((await client.post('/receipts', { total: 9 })).status).toBe(200);
    expect((await client.get('/receipts')).body.pagination.total).toBe(3);

    // The fixture of the new collection is watched from now on.
    writeFileSync(join(dir, 'data', 'receipts.json'), JSON.stringify([{ id: 1, total: 50, user_id: 2 }]));
    await eventually('the receipts fixture to reload', async () => (await client.get('/receipts/1')).body.total === 50);
    expect(server.stdout()).toMatch(/reloaded fixtures: receipts \(1 record\)/);
    expect(server.stderr()).toBe('');

    // SIGTERM stops the runtime served now: its stop saves the last-seen time that reads keep in memory.
    await new Promise((wait) => setTimeout(wait, 20));
    const readAt = Date.now();
    expect((await client.get('/receipts')).status).toBe(200);
    expect(await server.stop()).toBe(0);
    const lastActive = readFile(server.db, (db) => db.prepare('SELECT last_active_at FROM sandboxes WHERE key = ?').pluck().get(client.id) as number);
    expect(lastActive).toBeGreaterThanOrEqual(readAt);
  });
});

describe('config errors of declared collections', () => {
  const serveFails = async (collections: Record<string, unknown>, files?: Record<string, unknown>) => {
    const { dir, configFile } = writeProject(collections, files);
    const run = await refusedServe(['--port', '0', '--db', join(dir, 'x.db'), '--config', configFile], dir);
    expect(run.code).toBe(1);
    return run.stderr.trim();
  };

  it('refuses a name taken by a core collection or another route, naming the key', async () => {
    expect(await serveFails({ users: { fixture: './invoices.json' } })).toMatch(/^mockapi: .*collections: "users" is not a collection name .*other than users, posts/);
    expect(await serveFails({ auth: { fixture: './invoices.json' } })).toMatch(/collections: "auth" is not a collection name/);
    expect(await serveFails({ custom: { fixture: './invoices.json' } })).toMatch(/collections: "custom" is not/);
  });

  it('refuses a relation to no collection, naming the key', async () => {
    expect(await serveFails(declared({ relations: { owner: { belongsTo: 'owners', key: 'owner_id' } } }))).toMatch(
      /collections\.invoices\.relations\.owner\.belongsTo: "owners" is no collection/,
    );
  });

  it('names the fixture file and the record of a bad fixture', async () => {
    const badId = [...invoices.slice(0, 2), { ...invoices[2], id: 'three' }];
    expect(await serveFails(declared(), { 'invoices.json': badId })).toMatch(/invoices\.json record #3 \(index 2\): "id" must be an integer/);
    const badAmount = [invoices[0], { ...invoices[1], amount: 'lots' }];
    expect(await serveFails(declared(), { 'invoices.json': badAmount })).toMatch(/invoices\.json record #2 \(index 1, id 2\): \/amount must be number/);
    const noUser = [{ ...invoices[0], user_id: 999 }];
    expect(await serveFails(declared(), { 'invoices.json': noUser })).toMatch(/invoices\.json record #1 \(index 0, id 1\): user_id 999 names no record of users/);
    expect(await serveFails(declared({ fixture: './missing.json' }))).toMatch(/missing\.json: fixture file of collection invoices not found/);
  });
});
