import type { Operator } from '../db/list-sql.js';
import { searchWords, toMatchQuery } from '../db/search-index.js';
import { invalidQuery } from './errors.js';
import type { CollectionDefinition, JsonSchema } from './definition.js';
import { parseRecordId } from './record-id.js';

/** `any`: a field of an open (custom) collection, compared as the JSON type each record holds there. */
export type FieldKind = 'string' | 'number' | 'integer' | 'boolean' | 'id' | 'any';
export type { Operator };

export interface Filter {
  /** Dotted field path (`user_id`, `address.city`) or `id`. */
  field: string;
  op: Operator;
  /** Typed values, ready to bind (booleans as 1/0). */
  values: (string | number)[];
  /** The values are client text, coerced per record to the JSON type it holds (open collections). */
  coerce?: boolean;
}

export interface SortKey {
  field: string;
  descending: boolean;
  /** An open collection's field: objects and arrays there sort as missing values. */
  scalar?: boolean;
}

export interface ListQuery {
  page: number;
  limit: number;
  filters: Filter[];
  sort: SortKey[];
  /** `q` as a safe FTS5 query; null when `q` holds no word at all (nothing can match). */
  match?: string | null;
  /** `cursor`, still encoded: the engine checks it against the query. */
  cursor?: string;
  /** Relations to add to each record: `_embed` (many) and `_expand` (one). */
  embed: string[];
  expand: string[];
  /** The query string it was parsed from (REST's adapter): the answer cache's key of it. */
  source?: string;
}

/** Parameters with aliases, first name wins (json-server's `_page`, `_limit`, `_per_page`). */
const aliases = { page: ['page', '_page'], limit: ['limit', '_limit', '_per_page'] } as const;
/** Read by other layers (cursors, search, embeds) or harmless (`_` is jQuery's cache buster). */
const reserved = new Set(['page', '_page', 'limit', '_limit', '_per_page', 'cursor', 'q', '_sort', '_order', '_embed', '_expand', '_']);
export const operators: Operator[] = ['ne', 'gte', 'gt', 'lte', 'lt', 'like'];
/** Bounds the SQL a single request can make. */
export const maxValuesPerField = 50;
/** All filters together: SQLite refuses an expression tree past about 1,000 terms. */
export const maxFilterValues = 200;
export const maxSortKeys = 8;
/** Every word of `q` must match, so a longer query is a mistake, not a search. */
export const maxSearchWords = 64;

/** `_embed` and `_expand` of one request, parsed once: the guard checks their scopes, the engine adds them. */
export interface Relations {
  embed: string[];
  expand: string[];
}

/** A read that adds nothing to its records (frozen: shared by every such read). */
export const noRelations: Relations = Object.freeze({ embed: Object.freeze([]) as unknown as string[], expand: Object.freeze([]) as unknown as string[] });

/**
 * Parses a list's query string; a bad value is 400 INVALID_QUERY naming the parameter.
 * `relations`: `_embed`/`_expand` as the guard already parsed them, so they are read once.
 */
export function parseListQuery(params: ParamSource, maxPageSize: number, definition?: CollectionDefinition, relations?: Relations): ListQuery {
  const fields: FieldLookup = definition ? queryableFields(definition) : new Map<string, FieldKind>();
  const limit = readInteger(params, aliases.limit, 10, 1, maxPageSize);
  return {
    // Bounded so the row offset, (page - 1) × limit, stays an exact integer for SQLite.
    page: readInteger(params, aliases.page, 1, 1, Math.floor(Number.MAX_SAFE_INTEGER / limit)),
    limit,
    filters: definition ? readFilters(params, fields) : [],
    sort: definition ? sortFrom(params.get('_sort'), params.get('_order'), fields) : [],
    match: searchFrom(params.get('q')),
    cursor: params.get('cursor') ?? undefined,
    ...(relations ?? (definition ? parseRelations(params, definition) : { embed: [], expand: [] })),
  };
}

/** Per collection: the queries parsed under one page-size limit, by their text. */
const parsedByDefinition = new WeakMap<CollectionDefinition, { maxPageSize: number; queries: Map<string, ListQuery> }>();
/** Distinct query strings kept per collection; a client cycling through more only parses again. */
const maxParsedPerCollection = 256;

/**
 * REST's adapter in front of the engine: a list's query string (`event.url.search`) as the typed
 * `ListQuery`, parsed once per distinct text and shared between the requests that send it (so
 * nothing may change it), so a cached read costs a map lookup, not a parse.
 */
export function listQueryOf(search: string, maxPageSize: number, definition: CollectionDefinition): ListQuery {
  let parsed = parsedByDefinition.get(definition);
  if (!parsed || parsed.maxPageSize !== maxPageSize) parsedByDefinition.set(definition, (parsed = { maxPageSize, queries: new Map() }));
  const known = parsed.queries.get(search);
  if (known) return known;
  const query = parseListQuery(new URLSearchParams(search), maxPageSize, definition);
  query.source = search;
  if (parsed.queries.size >= maxParsedPerCollection) parsed.queries.clear();
  parsed.queries.set(search, query);
  return query;
}

/** `_embed` and `_expand` alone: what a read adds to its records, and what the guard checks scopes for. */
export function parseRelations(params: ParamSource, definition: CollectionDefinition): Relations {
  return { embed: readRelations(params, '_embed', definition, 'many'), expand: readRelations(params, '_expand', definition, 'one') };
}

/** `_embed` and `_expand` alone, as one list, for single-record GETs. */
export function parseRelationsQuery(params: ParamSource, definition: CollectionDefinition, relations = parseRelations(params, definition)): string[] {
  return [...relations.embed, ...relations.expand];
}

function searchFrom(raw: string | null): string | null | undefined {
  if (raw === null || raw.trim() === '') return undefined;
  if (searchWords(raw).length > maxSearchWords) throw invalidQuery('q', `has more than ${maxSearchWords} words`);
  return toMatchQuery(raw, maxSearchWords) ?? null;
}

/** `_embed=comments,user` or repeated; each name must be a relation of the right kind. */
function readRelations(params: ParamSource, name: string, definition: CollectionDefinition, kind: 'many' | 'one'): string[] {
  const names = new Set(params.getAll(name).flatMap((v) => v.split(',').map((s) => s.trim()).filter(Boolean)));
  const allowed = definition.relations.filter((r) => r.kind === kind).map((r) => r.name);
  for (const relation of names) {
    if (!allowed.includes(relation)) {
      const choice = allowed.length ? `one of ${allowed.join(', ')}` : 'not available on this collection';
      throw invalidQuery(name, `names no relation ${JSON.stringify(relation)} (${choice})`);
    }
  }
  return [...names];
}

export function readInteger(params: ParamSource, names: readonly string[], fallback: number, min: number, max: number): number {
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

function readFilters(params: ParamSource, fields: FieldLookup): Filter[] {
  const filters: Filter[] = [];
  let total = 0;
  for (const name of new Set(params.keys())) {
    if (reserved.has(name)) continue;
    const op = operators.find((o) => name.endsWith(`_${o}`) && fields.has(name.slice(0, -o.length - 1)));
    const field = op ? name.slice(0, -op.length - 1) : name;
    const kind = fields.get(field);
    if (!kind) throw invalidQuery(name, `names no field of this collection`);
    const raw = params.getAll(name);
    if (raw.length > maxValuesPerField) throw invalidQuery(name, `is repeated more than ${maxValuesPerField} times`);
    total += raw.length;
    if (total > maxFilterValues) throw invalidQuery(name, `brings the filters past ${maxFilterValues} values in all`);
    const operator: Operator = op ?? 'eq';
    if (operator === 'like' && kind !== 'string' && kind !== 'any') throw invalidQuery(name, 'applies to text fields only');
    if (kind === 'boolean' && operator !== 'eq' && operator !== 'ne') throw invalidQuery(name, 'compares booleans with = and _ne only');
    filters.push({ field, op: operator, values: raw.map((value) => typed(name, kind, value)), ...(kind === 'any' ? { coerce: true } : {}) });
  }
  return filters;
}

function typed(name: string, kind: FieldKind, value: string): string | number {
  switch (kind) {
    case 'boolean':
      if (value === 'true') return 1;
      if (value === 'false') return 0;
      throw invalidQuery(name, 'must be true or false');
    case 'integer':
    case 'number': {
      const n = value.trim() === '' ? NaN : Number(value);
      if (!Number.isFinite(n) || (kind === 'integer' && !Number.isInteger(n))) throw invalidQuery(name, `must be ${kind === 'integer' ? 'a whole number' : 'a number'}`);
      return n;
    }
    case 'id': {
      const id = parseRecordId(value);
      if (id === undefined) throw invalidQuery(name, 'must be a record id (a positive integer or local-<uuid>)');
      return id;
    }
    default:
      return value;
  }
}

function sortFrom(raw: string | null, order: string | null, fields: FieldLookup): SortKey[] {
  if (raw === null) {
    if (order !== null) ordersFrom(order, 1);
    return [];
  }
  const names = raw.split(',').map((s) => s.trim());
  if (names.length > maxSortKeys) throw invalidQuery('_sort', `sorts by at most ${maxSortKeys} fields`);
  const orders = ordersFrom(order, names.length);
  return names.map((name, index) => {
    const descending = name.startsWith('-');
    const field = descending ? name.slice(1) : name;
    if (!fields.has(field)) throw invalidQuery('_sort', `names no sortable field: ${JSON.stringify(field)}`);
    return { field, descending: descending !== (orders[index] ?? orders[0]), ...(fields.get(field) === 'any' ? { scalar: true } : {}) };
  });
}

/** `_order=desc` applies to every key; `_order=asc,desc` pairs with `_sort`'s keys. */
function ordersFrom(raw: string | null, count: number): boolean[] {
  if (raw === null) return [false];
  const orders = raw.split(',').map((s) => s.trim().toLowerCase());
  if (orders.length > Math.max(count, 1) || orders.some((o) => o !== 'asc' && o !== 'desc')) {
    throw invalidQuery('_order', 'must be asc or desc (or a comma list matching _sort)');
  }
  return orders.map((o) => o === 'desc');
}

const fieldsByDefinition = new WeakMap<CollectionDefinition, Map<string, FieldKind>>();

/** What filters and sorts may name: a definition's scalar fields, or any plain path of an open collection. */
type FieldLookup = Pick<Map<string, FieldKind>, 'has' | 'get'>;

/**
 * An open collection's fields: any path of up to 8 plain names (letters, digits, `_`, `-`; the
 * bound JSON path must stay a path), each compared as the record holds it; `id` is the record id.
 */
const openFields: FieldLookup = {
  has: (name) => name === 'id' || /^[A-Za-z_][\w-]{0,63}(?:\.[A-Za-z_][\w-]{0,63}){0,7}$/.test(name),
  get: (name) => (name === 'id' ? 'id' : openFields.has(name) ? 'any' : undefined),
};

/** The fields a list query may name in a collection: its scalar fields, or an open collection's any path. */
export function queryableFields(definition: CollectionDefinition): FieldLookup {
  return definition.open ? openFields : scalarFields(definition);
}

/** Every scalar field a filter or sort may name, nested ones as dotted paths, plus `id` (worked out once per definition). */
export function scalarFields(definition: CollectionDefinition): Map<string, FieldKind> {
  const known = fieldsByDefinition.get(definition);
  if (known) return known;
  const out = new Map<string, FieldKind>([['id', 'id']]);
  fieldsByDefinition.set(definition, out);
  const walk = (properties: Record<string, JsonSchema>, prefix: string) => {
    for (const [name, schema] of Object.entries(properties)) {
      const path = prefix + name;
      if (schema['x-record-id']) out.set(path, 'id');
      else if (schema.type === 'object' && schema.properties) walk(schema.properties, `${path}.`);
      else if (typeof schema.type === 'string' && ['string', 'number', 'integer', 'boolean'].includes(schema.type)) out.set(path, schema.type as FieldKind);
    }
  };
  walk(definition.fields, '');
  return out;
}

/** A value of a list parameter given as an object: repeated (an array) for OR, as in `id=1&id=2`. */
export type ListParamValue = string | number | boolean | bigint;
/** The REST list parameters as a plain object (custom routes' `ctx.collection(name).list`): `{user_id: 1, _sort: '-id', limit: 5}`. */
export type ListParams = Record<string, ListParamValue | readonly ListParamValue[] | null | undefined>;

/** What the REST parser reads parameters from: a query string's `URLSearchParams`, or `objectParams`. */
export type ParamSource = Pick<URLSearchParams, 'get' | 'getAll' | 'has' | 'keys'>;

/** The object form read by the REST parser's rules (`null`/`undefined` are left out). */
export function objectParams(params: ListParams = {}): ParamSource {
  const valuesOf = (name: string): string[] => {
    const value = params[name];
    if (value === null || value === undefined) return [];
    return (Array.isArray(value) ? value : [value]).map((one: unknown) => {
      if (!['string', 'number', 'boolean', 'bigint'].includes(typeof one)) throw invalidQuery(name, 'must be a string, number or boolean (or a list of them)');
      return String(one);
    });
  };
  return {
    get: (name) => valuesOf(name)[0] ?? null,
    getAll: valuesOf,
    has: (name) => valuesOf(name).length > 0,
    keys: () => Object.keys(params).filter((name) => valuesOf(name).length > 0)[Symbol.iterator]() as ReturnType<URLSearchParams['keys']>,
  };
}

/** A list query as typed values (GraphQL's arguments): no text to parse but `sort`, `order` and `q`. */
export interface ListArgs {
  page?: number;
  limit?: number;
  sort?: string;
  order?: string;
  q?: string;
  cursor?: string;
  /** Equality filters by field; several values are OR, as a repeated REST parameter. */
  filters?: Record<string, readonly (string | number | boolean)[]>;
}

/** The typed arguments as the engine's `ListQuery`, under the REST parser's rules and errors (no query string between). */
export function listQueryFrom(definition: CollectionDefinition, args: ListArgs, maxPageSize: number): ListQuery {
  const fields = queryableFields(definition);
  const limit = bounded('limit', args.limit, 10, 1, maxPageSize);
  const filters: Filter[] = [];
  let total = 0;
  for (const [field, values] of Object.entries(args.filters ?? {})) {
    const kind = fields.get(field);
    if (!kind) throw invalidQuery(field, 'names no field of this collection');
    if (values.length > maxValuesPerField) throw invalidQuery(field, `is repeated more than ${maxValuesPerField} times`);
    total += values.length;
    if (total > maxFilterValues) throw invalidQuery(field, `brings the filters past ${maxFilterValues} values in all`);
    filters.push({ field, op: 'eq', values: values.map((value) => typedValue(field, kind, value)), ...(kind === 'any' ? { coerce: true } : {}) });
  }
  return {
    page: bounded('page', args.page, 1, 1, Math.floor(Number.MAX_SAFE_INTEGER / limit)),
    limit,
    filters,
    sort: sortFrom(args.sort ?? null, args.order ?? null, fields),
    match: searchFrom(args.q ?? null),
    cursor: args.cursor,
    embed: [],
    expand: [],
  };
}

function bounded(name: string, value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value)) throw invalidQuery(name, `must be a whole number from ${min} to ${max}`);
  if (value < min || value > max) throw invalidQuery(name, `must be from ${min} to ${max}`);
  return value;
}

/** A typed filter value as the store binds it (booleans as 1/0, ids parsed). */
function typedValue(name: string, kind: FieldKind, value: string | number | boolean): string | number {
  if (typeof value === 'boolean') {
    if (kind !== 'boolean' && kind !== 'any') throw invalidQuery(name, `must be ${kind === 'string' ? 'text' : 'a number'}`);
    return value ? 1 : 0;
  }
  if (typeof value === 'string') return typed(name, kind, value);
  if (kind === 'id') return typed(name, kind, String(value));
  if (kind === 'boolean' || kind === 'string') throw invalidQuery(name, kind === 'boolean' ? 'must be true or false' : 'must be text');
  if (!Number.isFinite(value) || (kind === 'integer' && !Number.isInteger(value))) throw invalidQuery(name, `must be ${kind === 'integer' ? 'a whole number' : 'a number'}`);
  return value;
}
