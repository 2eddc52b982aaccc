import { invalidQuery } from '../errors.js';

export interface ListQuery {
  page: number;
  limit: number;
}

/** Parameters with aliases, first name wins (json-server's `_page`, `_limit`, `_per_page`). */
const aliases = { page: ['page', '_page'], limit: ['limit', '_limit', '_per_page'] } as const;

/** Parses a list's query string; a bad value is 400 INVALID_QUERY naming the parameter. */
export function parseListQuery(params: URLSearchParams, maxPageSize: number): ListQuery {
  return {
    page: readInteger(params, aliases.page, 1, 1, Number.MAX_SAFE_INTEGER),
    limit: readInteger(params, aliases.limit, 10, 1, maxPageSize),
  };
}

function readInteger(params: URLSearchParams, names: readonly string[], fallback: number, min: number, max: number): number {
  for (const name of names) {
    const raw = params.get(name);
    if (raw === null) continue;
    if (!/^\d{1,16}$/.test(raw)) throw invalidQuery(name, `must be a whole number from ${min} to ${max}`);
    const value = Number(raw);
    if (value < min || value > max) throw invalidQuery(name, `must be from ${min} to ${max}`);
    return value;
  }
  return fallback;
}
