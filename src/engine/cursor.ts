import { createHash } from 'node:crypto';
import type { KeyValue, ListShape } from '../db/list-sql.js';
import { invalidCursor } from '../errors.js';

/**
 * Keyset cursors: an opaque base64url text holding the last row's order key and a fingerprint of
 * the query it belongs to (collection, filters, search, sort), so a cursor replayed with other
 * parameters is refused instead of silently walking the wrong list. The page size may change
 * between pages. Values are only ever bound into SQL, so a forged cursor can move the walk but
 * never change the query.
 */

const maxCursorLength = 4096;

/** A short hash of everything that decides a list's membership and order. */
export function queryFingerprint(collection: string, shape: ListShape): string {
  const canonical = JSON.stringify([collection, shape.filters, shape.sort, shape.match ?? null]);
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 16);
}

export function encodeCursor(fingerprint: string, key: KeyValue[]): string {
  return Buffer.from(JSON.stringify([fingerprint, ...key])).toString('base64url');
}

/** The order key a cursor continues after; 400 INVALID_CURSOR when it is not one of this query's. */
export function decodeCursor(raw: string, fingerprint: string, keyCount: number): KeyValue[] {
  if (raw.length === 0 || raw.length > maxCursorLength || !/^[A-Za-z0-9_-]+$/.test(raw)) throw invalidCursor('is not a cursor');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor('is not a cursor');
  }
  if (!Array.isArray(parsed) || typeof parsed[0] !== 'string') throw invalidCursor('is not a cursor');
  if (parsed[0] !== fingerprint) throw invalidCursor('belongs to a list with other filters, search or sort');
  if (parsed.length !== keyCount + 1) throw invalidCursor('is not a cursor');
  const key = parsed.slice(1);
  if (!key.every((v) => v === null || typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)))) {
    throw invalidCursor('is not a cursor');
  }
  return key as KeyValue[];
}
