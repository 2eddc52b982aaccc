import { describe, expect, it } from 'vitest';
import { declareCollections, DeclaredCollectionError, inferFields, singularOf } from '../../src/collections/declared.js';
import { coreCollections } from '../../src/collections/registry.js';
import { users } from '../../src/collections/users.js';

const numbers = new Map([
  ['invoices', 16],
  ['customers', 17],
]);
const declare = (declared: Record<string, any>, records?: (file: string) => unknown[] | undefined) =>
  declareCollections(declared, { core: coreCollections, numbers, records });

describe('singularOf', () => {
  it.each([
    ['invoices', 'invoice'],
    ['categories', 'category'],
    ['boxes', 'box'],
    ['addresses', 'address'],
    ['batches', 'batch'],
    ['days', 'day'],
    ['status', 'status'],
    ['data', 'data'],
    ['line-items', 'line-item'],
  ])('%s → %s', (plural, singular) => expect(singularOf(plural)).toBe(singular));
});

describe('declareCollections', () => {
  it('builds a definition with its number, fixture, schema and foreign key, and the inverse on a copy of the target', () => {
    const all = declare({
      invoices: {
        fixture: '/x/invoices.json',
        schema: { type: 'object', properties: { id: { type: 'integer' }, number: { type: 'string' }, total: { type: 'number' }, user_id: { type: 'integer' } }, required: ['id', 'number'] },
        relations: { user: { belongsTo: 'users', key: 'user_id' } },
      },
    });
    expect(all.map((c) => c.name)).toEqual(['users', 'posts', 'comments', 'todos', 'invoices']);
    const invoices = all.at(-1)!;
    expect(invoices).toMatchObject({ name: 'invoices', singular: 'invoice', cid: 16, fixture: '/x/invoices.json', required: ['number'] });
    // `id` is the server's; the key holds any record id (a created user's `local-` one too).
    expect(Object.keys(invoices.fields)).toEqual(['number', 'total', 'user_id']);
    expect(invoices.fields.user_id).toEqual({ 'x-record-id': true });
    expect(invoices.searchable).toEqual(['number']);
    expect(invoices.foreignKeys).toEqual([{ field: 'user_id', references: 'users' }]);
    expect(invoices.relations).toEqual([{ name: 'user', kind: 'one', collection: 'users', field: 'user_id' }]);
    const usersCopy = all[0]!;
    expect(usersCopy.relations.at(-1)).toEqual({ name: 'invoices', kind: 'many', collection: 'invoices', field: 'user_id' });
    // The core definition itself is untouched.
    expect(users.relations.map((r) => r.name)).toEqual(['posts', 'todos', 'comments']);
    expect(coreCollections[0]).toBe(users);
  });

  it('relates declared collections to each other', () => {
    const all = declare({
      invoices: { fixture: 'i.json', relations: { customer: { belongsTo: 'customers', key: 'customer_id' } } },
      customers: { fixture: 'c.json' },
    });
    expect(all.find((c) => c.name === 'customers')!.relations).toEqual([{ name: 'invoices', kind: 'many', collection: 'invoices', field: 'customer_id' }]);
  });

  it('without a schema, reads fields and the searched ones from the fixture', () => {
    const all = declare({ invoices: { fixture: 'i.json', relations: { user: { belongsTo: 'users', key: 'user_id' } } } }, () => [
      { id: 1, number: 'A', total: 1, paid: true, user_id: 1, tags: ['x'] },
      { id: 2, number: 'B', total: 2.5, paid: null, user_id: 2, note: 'n' },
    ]);
    const invoices = all.at(-1)!;
    expect(invoices.fields).toEqual({ number: { type: 'string' }, total: { type: 'number' }, paid: { type: 'boolean' }, note: { type: 'string' }, user_id: { 'x-record-id': true } });
    expect(invoices.searchable).toEqual(['number', 'note']);
    expect(invoices.schema).toEqual({ type: 'object', properties: { user_id: { 'x-record-id': true } }, required: [] });
  });

  it('takes `search` as given', () => {
    expect(declare({ invoices: { fixture: 'i.json', search: ['number', 'customer.name'] } }).at(-1)!.searchable).toEqual(['number', 'customer.name']);
  });

  it.each([
    [{ users: { fixture: 'u.json' } }, /^collections\.users: "users" is taken/],
    [{ user: { fixture: 'u.json' } }, /^collections\.user: "user" is taken/],
    [{ sandbox: { fixture: 'u.json' } }, /^collections\.sandbox: "sandbox" is taken/],
    [{ invoices: { fixture: 'i.json', relations: { owner: { belongsTo: 'owners', key: 'owner_id' } } } }, /^collections\.invoices\.relations\.owner\.belongsTo: "owners" is no collection/],
    [{ invoices: { fixture: 'i.json', relations: { user: { belongsTo: 'users', key: 'id' } } } }, /relations\.user\.key/],
    [{ invoices: { fixture: 'i.json', relations: { user: { belongsTo: 'users', key: "a'b" } } } }, /relations\.user\.key: "a'b" must be a top-level field name/],
    [{ invoices: { fixture: 'i.json', schema: { type: 'array' } } }, /^collections\.invoices\.schema: must describe an object/],
    [{ invoices: { fixture: 'i.json', schema: { properties: { n: { type: 'strin' } } } } }, /^collections\.invoices\.schema: not a usable JSON Schema/],
    [{ invoices: { fixture: 'i.json', search: ["x') --"] } }, /^collections\.invoices\.search: "x'\) --" is not a field name/],
    [{ receipts: { fixture: 'r.json' } }, /^collections\.receipts: has no collection number/],
  ])('refuses %j', (declared, message) => {
    expect(() => declare(declared)).toThrow(DeclaredCollectionError);
    expect(() => declare(declared)).toThrow(message);
  });

  it('refuses two belongsTo of one collection to the same target (their inverses would share a name)', () => {
    expect(() =>
      declare({ invoices: { fixture: 'i.json', relations: { user: { belongsTo: 'users', key: 'user_id' }, approver: { belongsTo: 'users', key: 'approver_id' } } } }),
    ).toThrow(/relations\.approver: users already has a relation named "invoices"/);
  });
});

describe('inferFields', () => {
  it('keeps fields of one scalar type, widening integers to numbers, and drops mixed or nested ones', () => {
    expect(inferFields([{ a: 1, b: 'x', c: { d: 1 }, e: 1, f: true }, { a: 2.5, b: 3, e: null }, 'not a record'])).toEqual({
      a: { type: 'number' },
      e: { type: 'integer' },
      f: { type: 'boolean' },
    });
  });
});
