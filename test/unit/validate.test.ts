import { describe, expect, it } from 'vitest';
import { coreCollections } from '../../src/collections/registry.js';
import { customDefinition } from '../../src/engine/custom-collections.js';
import { createRecordValidator, maxRecordDepth } from '../../src/engine/validate.js';

const validatorOf = (name: string) => createRecordValidator(coreCollections.find((c) => c.name === name)!);
const users = validatorOf('users');
const posts = validatorOf('posts');
const todos = validatorOf('todos');

describe('record validation', () => {
  it('accepts a complete user', () => {
    expect(users({ name: 'Ada', username: 'ada', email: 'ada@example.com', address: { geo: { lat: 1, lng: 2 } } })).toEqual([]);
  });

  it('reports one problem per field with JSON Pointer paths', () => {
    expect(users({ username: 5, email: 'nope', extra: 1, address: { geo: { lat: 'north' } } })).toEqual([
      { path: '/name', message: 'is required' },
      { path: '/extra', message: 'is not a field of this collection' },
      { path: '/username', message: expect.stringContaining('string') },
      { path: '/email', message: 'must be an email address' },
      { path: '/address/geo/lat', message: expect.stringContaining('number') },
    ]);
  });

  it('escapes odd field names in pointers', () => {
    expect(posts({ user_id: 1, title: 't', body: 'b', 'a/b~c': 1 })).toEqual([{ path: '/a~1b~0c', message: 'is not a field of this collection' }]);
  });

  it.each([1, '1', 'local-00000000-0000-4000-8000-000000000000'])('accepts %j as a foreign key', (value) => {
    expect(todos({ user_id: value, title: 't', completed: false })).toEqual([]);
  });

  it.each([0, 1.5, 'abc', null, true, [1]])('rejects %j as a foreign key with one problem', (value) => {
    const problems = todos({ user_id: value, title: 't', completed: false });
    expect(problems).toHaveLength(1);
    expect(problems[0].path).toBe('/user_id');
  });

  it('requires booleans to be booleans', () => {
    expect(todos({ user_id: 1, title: 't', completed: 'true' })).toEqual([{ path: '/completed', message: 'must be boolean' }]);
  });

  it('checks created_at as a date-time', () => {
    expect(posts({ user_id: 1, title: 't', body: 'b', created_at: 'yesterday' })[0].path).toBe('/created_at');
  });

  describe('nesting: one bound for every collection, whichever way the record came in', () => {
    const custom = createRecordValidator(customDefinition('things'));
    /** A value nesting `levels` levels (objects and arrays in turn); a scalar is 0 levels. */
    const nested = (levels: number): unknown => {
      let value: unknown = 'leaf';
      for (let i = 0; i < levels; i++) value = i % 2 ? [value] : { v: value };
      return value;
    };

    it('takes a record of exactly maxRecordDepth levels (the record itself is level 1)', () => {
      expect(custom({ a: nested(maxRecordDepth - 1) })).toEqual([]);
    });

    it.each([maxRecordDepth, 2_000, 100_000])('refuses a field nesting %i levels, naming the field, without recursing', (levels) => {
      expect(custom({ ok: 1, 'a/b': nested(levels) })).toEqual([{ path: '/a~1b', message: expect.stringContaining(`deeper than ${maxRecordDepth} levels`) }]);
    });

    it('holds for schema collections before their schema is checked', () => {
      expect(users({ name: 'Ada', username: 'ada', email: 'ada@example.com', address: nested(5_000) as never })).toEqual([
        { path: '/address', message: expect.stringContaining('deeper than') },
      ]);
    });
  });
});

