import { describe, expect, it } from 'vitest';
import { parseListQuery } from '../../src/engine/list-query.js';
import { ApiError } from '../../src/errors.js';

const parse = (query: string) => parseListQuery(new URLSearchParams(query), 200);

describe('parseListQuery', () => {
  it('defaults to page 1 of 10', () => {
    expect(parse('')).toEqual({ page: 1, limit: 10 });
  });

  it.each([
    ['page=3&limit=25', { page: 3, limit: 25 }],
    ['_page=2&_limit=5', { page: 2, limit: 5 }],
    ['_per_page=200', { page: 1, limit: 200 }],
    ['limit=7&_limit=9', { page: 1, limit: 7 }],
  ])('reads %s', (query, expected) => {
    expect(parse(query)).toEqual(expected);
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
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).code).toBe('INVALID_QUERY');
      expect((error as ApiError).message).toContain(`"${parameter}"`);
    }
  });
});
