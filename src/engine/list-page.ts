import type { AnchorValue, KeyValue, ListShape } from '../db/list-sql.js';
import { orderKeyCount } from '../db/list-sql.js';
import { invalidCursor } from './errors.js';
import type { Json, StoreContext } from './collection-store.js';
import { decodeCursor, encodeCursor, queryFingerprint, valueHash, type CursorValue } from './cursor.js';
import type { CollectionDefinition } from './definition.js';
import type { ListQuery } from './list-query.js';
import { paginationOf, type Pagination } from './pagination.js';
import { attachRelations } from './relations.js';

export type { Pagination } from './pagination.js';

export interface Page {
  /** The page's records as one JSON array text, straight from SQLite (parsed only to embed). */
  json: string;
  pagination: Pagination;
}

interface Rows {
  json: string;
  total: number;
  /** Records from the page's first onwards, when the page starts after a cursor. */
  remaining?: number;
  /** The order key of the page's last row, for `nextCursor`. */
  last?: KeyValue[];
}

/** One page of a collection as a sandbox sees it: by page number or after a cursor. */
export function listPage(context: StoreContext, definition: CollectionDefinition, sid: number, query: ListQuery): Page {
  const { limit } = query;
  const offset = (query.page - 1) * limit;
  const shape: ListShape = { filters: query.filters, sort: query.sort, match: query.match ?? undefined };
  const fingerprint = queryFingerprint(definition.name, shape);
  const decoded = query.cursor === undefined ? undefined : decodeCursor(query.cursor, fingerprint, orderKeyCount(shape));
  const anchor = decoded && resolveAnchor(context, definition.cid, sid, shape, decoded);

  const rows: Rows =
    query.match === null
      ? { json: '[]', total: 0, remaining: anchor && 0 }
      : !shape.filters.length && !shape.sort.length && shape.match === undefined
        ? defaultOrderRows(context, definition.cid, sid, limit, offset, anchor)
        : compiledRows(context, definition.cid, sid, shape, limit, offset, anchor);

  const before = rows.remaining === undefined ? offset : rows.total - rows.remaining;
  const hasNextPage = rows.remaining === undefined ? offset + limit < rows.total : rows.remaining > limit;
  const pagination: Pagination = paginationOf(before, limit, rows.total, {
    hasNextPage,
    cursor: hasNextPage && rows.last ? encodeCursor(fingerprint, rows.last) : null,
  });
  let json = rows.json;
  const relations = [...query.embed, ...query.expand];
  if (relations.length && json !== '[]') {
    const records = JSON.parse(json) as Json[];
    attachRelations(context, definition, sid, records, relations);
    json = JSON.stringify(records);
  }
  return { json, pagination };
}

/**
 * A cursor's key with its shortened values made whole again from the anchor record (the key's last
 * value is its id) when the record still holds the value the cursor was made from (same hash);
 * otherwise they stay prefix bounds, which the compiler turns into a condition that repeats
 * rather than skips. Only sort fields can be shortened: id, k and rank are never long.
 */
function resolveAnchor(context: StoreContext, cid: number, sid: number, shape: ListShape, key: CursorValue[]): AnchorValue[] {
  if (!key.some((v) => v !== null && typeof v === 'object')) return key as KeyValue[];
  const id = key[key.length - 1];
  if (!shape.sort.length || id === null || typeof id === 'object') throw invalidCursor('is not a cursor');
  let doc: unknown;
  const found = context.view.get.get({ sid, cid, id }) as { doc: string | null } | undefined;
  if (found?.doc) doc = JSON.parse(found.doc);
  return key.map((value, i) => {
    if (value === null || typeof value !== 'object') return value;
    const now = fieldOf(doc, shape.sort[i]!.field);
    return typeof now === 'string' && now.startsWith(value.prefix) && valueHash(now) === value.hash ? now : { prefix: value.prefix };
  });
}

function fieldOf(doc: unknown, path: string): unknown {
  let value = doc;
  for (const part of path.split('.')) value = value && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined;
  return value;
}

/** No filter, search or sort: the merged view's own statements, each arm walking its index. */
function defaultOrderRows(context: StoreContext, cid: number, sid: number, limit: number, offset: number, anchor?: AnchorValue[]): Rows {
  const { view } = context;
  const baseCount = context.baseline.get(`count ${cid}`, () => view.baseCount.get(cid) as number);
  let row: { json: string; last: number | null; total: number; remaining?: number };
  if (anchor) {
    const after = anchor[0];
    if (typeof after !== 'number') throw invalidCursor('is not a cursor');
    row = view.pageAfter.get({ sid, cid, limit, after, baseCount }) as typeof row;
  } else {
    row = view.page.get({ sid, cid, limit, offset, baseCount }) as typeof row;
  }
  const { total, remaining } = row;
  return { json: row.json, total, remaining, last: row.last === null ? undefined : [row.last] };
}

function compiledRows(context: StoreContext, cid: number, sid: number, shape: ListShape, limit: number, offset: number, anchor?: AnchorValue[]): Rows {
  const compiled = context.compileList(shape, anchor);
  const bind = { ...compiled.bind, sid, cid };
  const row = compiled.page.get({ ...bind, limit, offset: anchor ? 0 : offset }) as { json: string; keys: string | null; total: number; remaining?: number };
  const { total, remaining } = row;
  const last = row.keys === null ? undefined : (JSON.parse(row.keys.slice(row.keys.lastIndexOf('\x1e') + 1)) as KeyValue[]);
  return { json: row.json, total, remaining, last };
}
