import { describe, expect, it } from 'vitest';
import { listQueryFrom, objectParams, parseListQuery } from '../../src/engine/list-query.js';
import { DomainError } from '../../src/engine/errors.js';
import { todos } from '../../src/collections/todos.js';
import { users } from '../../src/collections/users.js';

const parse = (query: string) => parseListQuery(new URLSearchParams(query), 200);

describe('parseListQuery', () => {
  it('defaults to page 1 of 10', () => {
    expect(parse('')).toEqual({ page: 1, limit: 10, filters: [], sort: [], match: undefined, cursor: undefined, embed: [], expand: [] });
  });

  it.each([
    ['page=3&limit=25', { page: 3, limit: 25 }],
    ['_page=2&_limit=5', { page: 2, limit: 5 }],
    ['_per_page=200', { page: 1, limit: 200 }],
    ['limit=7&_limit=9', { page: 1, limit: 7 }],
  ])('reads %s', (query, expected) => {
    expect(parse(query)).toMatchObject(expected);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=201', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=', 'limit'],
    ['limit=1.5', 'limit'],
    ['_limit=-3', '_limit'],
    ['page=0', 'page'],
    ['page=-1', 'page'],
    ['_page=x', '_page'],
    ['page=99999999999999999999', 'page'],
  ])('%s is INVALID_QUERY naming %s', (query, parameter) => {
    try {
      parse(query);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(DomainError);
      expect((error as DomainError).code).toBe('INVALID_QUERY');
      expect((error as DomainError).message).toContain(`"${parameter}"`);
    }
  });
});

describe('filters and sort', () => {
  const todoQuery = (query: string) => parseListQuery(new URLSearchParams(query), 200, todos);

  it('types values by field and groups repeats', () => {
    expect(todoQuery('completed=true&user_id=1&user_id=local-00000000-0000-4000-8000-000000000000&id_gte=5').filters).toEqual([
      { field: 'completed', op: 'eq', values: [1] },
      { field: 'user_id', op: 'eq', values: [1, 'local-00000000-0000-4000-8000-000000000000'] },
      { field: 'id', op: 'gte', values: [5] },
    ]);
  });

  it('reads nested fields of users and operator suffixes', () => {
    expect(parseListQuery(new URLSearchParams('address.geo.lat_lt=10&company.name_like=x'), 200, users).filters).toEqual([
      { field: 'address.geo.lat', op: 'lt', values: [10] },
      { field: 'company.name', op: 'like', values: ['x'] },
    ]);
  });

  it('reads _sort with - and _order lists', () => {
    expect(todoQuery('_sort=title,-id').sort).toEqual([{ field: 'title', descending: false }, { field: 'id', descending: true }]);
    expect(todoQuery('_sort=title,id&_order=desc,asc').sort).toEqual([{ field: 'title', descending: true }, { field: 'id', descending: false }]);
    expect(todoQuery('_sort=-title&_order=desc').sort).toEqual([{ field: 'title', descending: false }]);
  });

  it('keeps the reserved parameters out of the filters', () => {
    expect(todoQuery('q=x&cursor=y&_expand=user&_=123').filters).toEqual([]);
  });

  it('reads _embed and _expand as relation names of the right kind', () => {
    const query = parseListQuery(new URLSearchParams('_embed=posts,todos&_embed=posts&_expand='), 200, users);
    expect(query.embed).toEqual(['posts', 'todos']);
    expect(query.expand).toEqual([]);
    expect(() => parseListQuery(new URLSearchParams('_expand=posts'), 200, users)).toThrow(/"_expand" names no relation "posts"/);
    expect(() => todoQuery('_embed=user')).toThrow(/"_embed" names no relation "user" \(not available/);
  });

  it.each([
    ['q=hello', '"hello"*'],
    ['q=%22a%20b%22%20-c%20NEAR(d)%20*', '"a"* "b"* "c"* "NEAR"* "d"*'],
    ['q=%20%20', undefined],
    ['q=%F0%9F%98%80%20!!', null],
    ['q=Caf%C3%A9%27s', '"Café"* "s"*'],
  ])('turns %s into the FTS5 query %s, every word a quoted prefix', (query, match) => {
    expect(todoQuery(query).match).toBe(match);
  });

  it('refuses a q of more than 64 words, and more than 8 sort keys', () => {
    expect(() => todoQuery(`q=${'a '.repeat(65)}`)).toThrow(/"q" has more than 64 words/);
    expect(() => todoQuery(`_sort=${Array(9).fill('title').join(',')}`)).toThrow(/"_sort" sorts by at most 8/);
  });
});

describe('listQueryFrom (typed arguments, no query string between)', () => {
  it('gives the query the REST parser gives for the same list', () => {
    const typed = listQueryFrom(todos, { page: 2, limit: 5, sort: '-id', filters: { completed: [true], user_id: [1, 2] } }, 200);
    const parsed = parseListQuery(new URLSearchParams('page=2&limit=5&_sort=-id&completed=true&user_id=1&user_id=2'), 200, todos);
    expect(typed).toEqual(parsed);
  });

  it.each([
    [{ limit: 201 }, 'limit'],
    [{ page: 0 }, 'page'],
    [{ filters: { nope: [1] } }, 'nope'],
    [{ filters: { completed: [1] } }, 'completed'],
    [{ sort: 'nope' }, '_sort'],
  ])('refuses %j naming %s', (args, parameter) => {
    expect(() => listQueryFrom(todos, args, 200)).toThrow(expect.objectContaining({ code: 'INVALID_QUERY', message: expect.stringContaining(`"${parameter}"`) }));
  });
});

describe('objectParams (custom routes\' object form)', () => {
  it('reads as the query string with the same parameters does', () => {
    const fromObject = parseListQuery(objectParams({ user_id: [1, 2], _sort: '-id', limit: 5, q: undefined }), 200, todos);
    expect(fromObject).toEqual(parseListQuery(new URLSearchParams('user_id=1&user_id=2&_sort=-id&limit=5'), 200, todos));
  });
});
