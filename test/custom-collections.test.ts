import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { repoRoot, sandboxClient, useServer } from './helpers/server.js';
import { configuredServers, readFile } from './helpers/configured.js';
import { login, unique, withToken } from './helpers/auth.js';

const server = useServer();
const fresh = () => sandboxClient(server.api);
const configured = configuredServers();
const LOCAL_ID = /^local-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const schema = JSON.parse(readFileSync(join(repoRoot, 'schemas/mockapi-export.schema.json'), 'utf8'));
const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
(addFormats as unknown as (ajv: Ajv2020, formats: string[]) => void)(ajv, ['date-time']);
const validateDocument = ajv.compile(schema);

const invoice = (n: number, extra: Record<string, unknown> = {}) => ({
  number: `INV-${n}`,
  amount: n * 10,
  paid: n % 2 === 0,
  customer: { name: `Customer ${n}`, city: n % 2 ? 'Köln' : 'Berlin' },
  tags: ['a', `t${n}`],
  ...extra,
});

describe('custom collection records', () => {
  it('an unknown collection lists empty; the first POST creates it with a local id, and the client id is ignored', async () => {
    const client = fresh();
    const empty = await client.get('/custom/invoices');
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({
      data: [],
      pagination: { page: 1, limit: 10, total: 0, totalPages: 0, hasNextPage: false, hasPrevPage: false, nextCursor: null },
    });
    expect((await client.get('/custom')).body.data).toEqual([]);

    const created = await client.post('/custom/invoices', { ...invoice(1), id: 99, _sandbox: 'nope' });
    expect(created.status, created.text).toBe(200);
    expect(created.body).toEqual({ id: expect.stringMatching(LOCAL_ID), ...invoice(1), _sandbox: 'created' });
    expect((await client.get(`/custom/invoices/${created.body.id}`)).body).toEqual(created.body);
    expect((await client.get('/custom')).body.data).toEqual([{ name: 'invoices', count: 1, url: '/api/v1/custom/invoices' }]);
  });

  it('PUT replaces the whole record, PATCH merges (null clears), DELETE answers the removed id', async () => {
    const client = fresh();
    const { id } = (await client.post('/custom/invoices', invoice(1))).body;
    const replaced = await client.put(`/custom/invoices/${id}`, { number: 'X', lines: [{ sku: 'a', qty: 2 }] });
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.body).toEqual({ id, number: 'X', lines: [{ sku: 'a', qty: 2 }], _sandbox: 'created' });
    const patched = await client.patch(`/custom/invoices/${id}`, { number: null, note: { text: 'ok' } });
    expect(patched.body).toEqual({ id, lines: [{ sku: 'a', qty: 2 }], note: { text: 'ok' }, _sandbox: 'created' });
    const mismatch = await client.put(`/custom/invoices/${id}`, { id: 'local-00000000-0000-4000-8000-000000000000' });
    expect(mismatch.status).toBe(422);
    const removed = await client.delete(`/custom/invoices/${id}`);
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ id, resource: 'invoices' });
    expect((await client.get(`/custom/invoices/${id}`)).status).toBe(404);
    // A collection exists while it holds records.
    expect((await client.get('/custom')).body.data).toEqual([]);
  });

  it('another sandbox sees nothing of it, by list, id, search, filter or write', async () => {
    const owner = fresh();
    const other = fresh();
    const { id } = (await owner.post('/custom/invoices', invoice(1, { secret: 'zebra' }))).body;
    expect((await other.get('/custom/invoices')).body.data).toEqual([]);
    expect((await other.get('/custom/invoices?q=zebra')).body.data).toEqual([]);
    expect((await other.get('/custom/invoices?secret=zebra')).body.data).toEqual([]);
    expect((await other.get('/custom')).body.data).toEqual([]);
    for (const answer of [
      await other.get(`/custom/invoices/${id}`),
      await other.patch(`/custom/invoices/${id}`, { paid: true }),
      await other.put(`/custom/invoices/${id}`, { paid: true }),
      await other.delete(`/custom/invoices/${id}`),
    ]) {
      expect(answer.status).toBe(404);
      expect(answer.body.code).toBe('NOT_FOUND');
    }
    expect((await owner.get(`/custom/invoices/${id}`)).body.paid).toBe(false);
  });

  it('filters compare values as the JSON type each record holds; search reads every string value, nested too', async () => {
    const client = fresh();
    for (const n of [1, 2, 3, 4]) await client.post('/custom/invoices', invoice(n));
    await client.post('/custom/invoices', { number: 'INV-5', amount: '50', paid: 'true' });
    const numbers = async (query: string) => {
      const answer = await client.get(`/custom/invoices?${query}`);
      expect(answer.status, `${query}: ${answer.text}`).toBe(200);
      return answer.body.data.map((r: { number: string }) => r.number).sort();
    };
    expect(await numbers('amount=20')).toEqual(['INV-2']);
    expect(await numbers('amount=50')).toEqual(['INV-5']); // a string "50" matches the text
    // INV-5 holds the text "50": compared as text, "50" > "25" too.
    expect(await numbers('amount_gt=25')).toEqual(['INV-3', 'INV-4', 'INV-5']);
    expect(await numbers('amount_gt=25&amount_lt=45')).toEqual(['INV-3', 'INV-4']);
    expect(await numbers('paid=true')).toEqual(['INV-2', 'INV-4', 'INV-5']);
    expect(await numbers('paid_ne=true')).toEqual(['INV-1', 'INV-3']);
    expect(await numbers('customer.city=Köln')).toEqual(['INV-1', 'INV-3']);
    expect(await numbers('number_like=inv-1')).toEqual(['INV-1']);
    expect(await numbers('number=INV-1&number=INV-4')).toEqual(['INV-1', 'INV-4']);
    expect(await numbers('q=koln')).toEqual(['INV-1', 'INV-3']);
    expect(await numbers('q=customer 4')).toEqual(['INV-4']);
    expect(await numbers('q=t3')).toEqual(['INV-3']);
    expect(await numbers('q=local')).toEqual([]); // ids are not searched
    expect((await client.get('/custom/invoices?_sort=-amount&amount_lte=40')).body.data.map((r: { amount: number }) => r.amount)).toEqual([40, 30, 20, 10]);
    for (const bad of ['a b=1', 'x[0]=1', '_sort=a..b', 'limit=0']) {
      const answer = await client.get(`/custom/invoices?${bad.replace(' ', '%20')}`);
      expect(answer.status, bad).toBe(400);
      expect(answer.body.code).toBe('INVALID_QUERY');
    }
  });

  it('a bad collection name is 400 INVALID_NAME for every method; an unknown method is 405', async () => {
    const client = fresh();
    for (const path of ['/custom/Invoices', '/custom/1abc', `/custom/${'a'.repeat(65)}`, '/custom/in%20voices', '/custom/a.b']) {
      for (const answer of [await client.get(path), await client.post(path, {}), await client.get(`${path}/x`), await client.delete(`${path}/x`)]) {
        expect(answer.status, path).toBe(400);
        expect(answer.body.code).toBe('INVALID_NAME');
      }
    }
    const wrong = await client.call('PATCH', '/custom/invoices', {});
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toContain('POST');
  });

  it('a record must be a JSON object', async () => {
    const client = fresh();
    for (const body of ['[1]', '"x"', '7', 'null', '{bad']) {
      const answer = await client.post('/custom/invoices', body);
      expect(answer.status, body).toBe(400);
    }
    expect((await client.get('/custom')).body.data).toEqual([]);
  });

  it('their events are custom.<name>.created, .updated and .deleted', async () => {
    const client = fresh();
    const { id } = (await client.post('/custom/invoices', invoice(1))).body;
    await client.patch(`/custom/invoices/${id}`, { paid: true });
    await client.delete(`/custom/invoices/${id}`);
    const events = (await client.get('/events?limit=10')).body.data.map((e: { event: string; data: { id: string } }) => [e.event, e.data.id]);
    expect(events.reverse()).toEqual([
      ['custom.invoices.created', id],
      ['custom.invoices.updated', id],
      ['custom.invoices.deleted', id],
    ]);
  });
});

describe('custom collections in the sandbox', () => {
  it('reset purges them; a snapshot restores them, search included', async () => {
    const client = fresh();
    await client.post('/custom/invoices', invoice(1, { word: 'pelican' }));
    await client.post('/custom/notes', { text: 'hello' });
    expect((await client.post('/sandbox/snapshots', { name: 'one' })).status).toBe(200);
    await client.post('/custom/invoices', invoice(2));

    const reset = await client.post('/sandbox/reset');
    expect(reset.body.purged.custom).toBe(3);
    expect((await client.get('/custom')).body.data).toEqual([]);
    expect((await client.get('/custom/invoices?q=pelican')).body.data).toEqual([]);

    expect((await client.post('/sandbox/snapshots/one/restore')).status).toBe(200);
    expect((await client.get('/custom')).body.data.map((c: { name: string; count: number }) => [c.name, c.count])).toEqual([
      ['invoices', 1],
      ['notes', 1],
    ]);
    const found = await client.get('/custom/invoices?q=pelican');
    expect(found.body.data.map((r: { number: string }) => r.number)).toEqual(['INV-1']);
  });

  it('export then import into another sandbox gives the same document, custom collections and snapshots included', async () => {
    const source = fresh();
    for (const n of [1, 2, 3]) await source.post('/custom/invoices', invoice(n, { text: 'comma, "quote"\nline ✓' }));
    await source.post('/custom/notes', { text: 'a note' });
    await source.post('/sandbox/snapshots', { name: 'before' });
    await source.post('/custom/notes', { text: 'second' });
    const exported = (await source.get('/sandbox/export')).body;
    expect(validateDocument(exported), JSON.stringify(validateDocument.errors)).toBe(true);
    const collections = exported.sandboxes[0].collections;
    expect(Object.keys(collections)).toEqual(['users', 'posts', 'comments', 'todos', 'custom.invoices', 'custom.notes']);
    expect(collections['custom.invoices'].created.map((r: { number: string }) => r.number)).toEqual(['INV-3', 'INV-2', 'INV-1']);
    expect(Object.keys(exported.sandboxes[0].snapshots[0].collections)).toContain('custom.notes');

    const target = fresh();
    await target.post('/custom/other', { x: 1 }); // replaced by the import
    const imported = await target.post('/sandbox/import', exported);
    expect(imported.status, imported.text).toBe(200);
    const again = (await target.get('/sandbox/export')).body;
    const overlay = (document: any) => ({ collections: document.sandboxes[0].collections, snapshots: document.sandboxes[0].snapshots });
    expect(overlay(again)).toEqual(overlay(exported));
    expect((await target.get('/custom')).body.data.map((c: { name: string }) => c.name)).toEqual(['invoices', 'notes']);
    // Search works on the imported records.
    expect((await target.get('/custom/invoices?q=quote')).body.pagination.total).toBe(3);
  });

  it('an import is checked: bad names, updated or deleted rows in a custom collection, caps', async () => {
    const client = fresh();
    const document = (collections: Record<string, unknown>) => ({
      format: 'mockapi-export',
      version: 1,
      exportedAt: new Date().toISOString(),
      sandboxes: [{ id: 'x', createdAt: null, lastActiveAt: null, collections }],
    });
    const pathsOf = async (collections: Record<string, unknown>) => {
      const answer = await client.post('/sandbox/import', document(collections));
      expect(answer.status, answer.text).toBe(422);
      return answer.body.errors.map((e: { path: string }) => e.path);
    };
    expect(await pathsOf({ 'custom.Bad': { created: [] } })).toEqual(['/sandboxes/0/collections/custom.Bad']);
    expect(await pathsOf({ 'custom.invoices': { created: [], updated: [{ id: 1, a: 1 }], deleted: [2] } })).toEqual([
      '/sandboxes/0/collections/custom.invoices/updated/0/id',
      '/sandboxes/0/collections/custom.invoices/deleted/0',
    ]);
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`custom.c${i}`, { created: [{ id: `local-${crypto.randomUUID()}`, i }] }]));
    expect(await pathsOf(many)).toEqual(['/sandboxes/0/collections/custom.c20']);
    const tooMany = { created: Array.from({ length: 1001 }, () => ({ id: `local-${crypto.randomUUID()}` })) };
    expect(await pathsOf({ 'custom.big': tooMany })).toEqual(['/sandboxes/0/collections/custom.big/created']);
    expect((await client.get('/custom')).body.data).toEqual([]);
  });

  it('GET /sandbox shows the custom collections against their limits', async () => {
    const client = fresh();
    await client.post('/custom/invoices', invoice(1));
    await client.post('/custom/invoices', invoice(2));
    const info = (await client.get('/sandbox')).body;
    expect(info.quotas.custom).toEqual({ collections: { used: 1, limit: 20 }, records: { invoices: { created: 2, limit: 1000 } } });
  });
});

describe('custom collection limits', () => {
  it('limits.customRecords and limits.customCollections: 403 QUOTA_EXCEEDED naming the limit, nothing written', async () => {
    const limited = await configured.serve({ limits: { customRecords: 2, customCollections: 2, bodyBytes: 2048 } });
    const client = sandboxClient(limited.api);
    await client.post('/custom/a', { n: 1 });
    await client.post('/custom/a', { n: 2 });
    const third = await client.post('/custom/a', { n: 3 });
    expect(third.status).toBe(403);
    expect(third.body.code).toBe('QUOTA_EXCEEDED');
    expect(third.body.detail).toContain('limits.customRecords');
    await client.post('/custom/b', { n: 1 });
    const another = await client.post('/custom/c', { n: 1 });
    expect(another.status).toBe(403);
    expect(another.body.detail).toContain('limits.customCollections');
    expect((await client.get('/custom')).body.data.map((c: { name: string }) => c.name)).toEqual(['a', 'b']);
    // Emptying one frees its place.
    const [only] = (await client.get('/custom/b')).body.data;
    await client.delete(`/custom/b/${only.id}`);
    expect((await client.post('/custom/c', { n: 1 })).status).toBe(200);
    // A body over limits.bodyBytes is 413, as everywhere.
    const big = await client.post('/custom/c', { text: 'x'.repeat(4000) });
    expect(big.status).toBe(413);
    expect((await client.get('/custom/c')).body.pagination.total).toBe(1);
  });

  it('a sandbox holding only custom records counts toward maxSandboxes, and eviction takes its collections', async () => {
    const limited = await configured.serve({ limits: { maxSandboxes: 1 } });
    const first = sandboxClient(limited.api);
    await first.post('/custom/invoices', { n: 1 });
    const second = sandboxClient(limited.api);
    await second.post('/custom/invoices', { n: 2 });
    expect((await first.get('/custom')).body.data).toEqual([]);
    expect((await second.get('/custom')).body.data).toHaveLength(1);
    const rows = readFile(limited.db, (db) => db.prepare('SELECT s.key FROM custom_collections c JOIN sandboxes s USING (sid)').pluck().all());
    expect(rows).toEqual([second.id]);
  });
});

describe('custom collection scopes', () => {
  it('a token needs <name>:<action> or custom:<action>', async () => {
    const scoped = await configured.serve({
      auth: {
        personas: {
          reader: { role: 'viewer', scopes: 'invoices:read' },
          writer: { role: 'viewer', scopes: 'custom:*' },
          viewer: { role: 'viewer' },
        },
      },
    });
    const sandbox = `scopes-${unique()}`;
    const owner = sandboxClient(scoped.api, sandbox);
    const { id } = (await owner.post('/custom/invoices', { n: 1 })).body;
    const token = async (name: string) => (await login(scoped.api, name, { sandbox })).access_token;
    const reader = await token('reader');
    const writer = await token('writer');
    const viewer = await token('viewer');
    expect((await withToken(scoped.api, 'GET', '/custom/invoices', reader)).status).toBe(200);
    expect((await withToken(scoped.api, 'GET', '/custom/notes', reader)).status).toBe(403);
    expect((await withToken(scoped.api, 'POST', '/custom/invoices', reader, { n: 2 })).status).toBe(403);
    expect((await withToken(scoped.api, 'POST', '/custom/notes', writer, { n: 2 })).status).toBe(200);
    expect((await withToken(scoped.api, 'DELETE', `/custom/invoices/${id}`, writer)).status).toBe(200);
    expect((await withToken(scoped.api, 'GET', '/custom', viewer)).status).toBe(200);
    const refused = await withToken(scoped.api, 'POST', '/custom/invoices', viewer, { n: 3 });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toContain('invoices:write or custom:write');
  });
});
