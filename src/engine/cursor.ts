import { createHash } from 'node:crypto';
import type { KeyValue, ListShape } from '../db/list-sql.js';
import { invalidCursor } from './errors.js';

/**
 * Keyset cursors: an opaque base64url text holding the last row's order key and a fingerprint of
 * the query it belongs to (collection, filters, search, sort), so a cursor replayed with other
 * parameters is refused instead of silently walking the wrong list. The page size may change
 * between pages. Values are only ever bound into SQL, so a forged cursor can move the walk but
 * never change the query.
 *
 * A text value too long to carry whole (a 6,000-character body) travels as `{p, h}`: a bounded
 * prefix and a hash of the whole value. The next page reads the whole value from the anchor
 * record (the key's last value is its id) and uses it when the hash still agrees; otherwise
 * (the record changed or vanished) the prefix gives a bound that sorts at or before it, so the
 * walk may repeat records but never skips one. Every cursor the encoder writes fits the
 * decoder's bound, whatever the key count (at most 8 sort keys and id).
 */

const maxCursorLength = 4096;
/** UTF-8 bytes of JSON all the values of one key may take together; each gets its share. */
const keyBudget = 2400;
const maxValueBytes = 800;
const hashLength = 16;

/** A short hash of everything that decides a list's membership and order. */
export function queryFingerprint(collection: string, shape: ListShape): string {
  const canonical = JSON.stringify([collection, shape.filters, shape.sort, shape.match ?? null]);
  // Every page of a list asks again (a SHA-256 was ~4 % of an uncached page): short shapes recur.
  let fingerprint = fingerprints.get(canonical);
  if (fingerprint === undefined) {
    fingerprint = createHash('sha256').update(canonical).digest('base64url').slice(0, 16);
    if (canonical.length <= maxKeptShape) {
      if (fingerprints.size >= maxFingerprints) fingerprints.clear();
      fingerprints.set(canonical, fingerprint);
    }
  }
  return fingerprint;
}
const fingerprints = new Map<string, string>();
const maxFingerprints = 1_000;
const maxKeptShape = 512;

/** The hash a shortened value carries, to recognise the whole value on the anchor record. */
export function valueHash(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('base64url').slice(0, hashLength);
}

/** A value as a cursor holds it: whole, or (a long text) its prefix and hash. */
export type CursorValue = KeyValue | { prefix: string; hash: string };

export function encodeCursor(fingerprint: string, key: KeyValue[]): string {
  const budget = Math.min(maxValueBytes, Math.floor(keyBudget / Math.max(key.length, 1)));
  const values = key.map((value) => (typeof value === 'string' && jsonBytes(value) > budget ? { p: prefixOf(value, budget), h: valueHash(value) } : value));
  return Buffer.from(JSON.stringify([fingerprint, ...values])).toString('base64url');
}

const jsonBytes = (value: string) => Buffer.byteLength(JSON.stringify(value), 'utf8');

/**
 * The longest prefix whose JSON fits the budget, cut between code points (a lone surrogate would
 * not bind as a prefix) and before any NUL (SQLite's `length` stops there).
 */
function prefixOf(value: string, budget: number): string {
  const nul = value.indexOf('\u0000');
  const chars = Array.from(nul < 0 ? value : value.slice(0, nul));
  let lo = 0;
  let hi = chars.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (jsonBytes(chars.slice(0, mid).join('')) <= budget) lo = mid;
    else hi = mid - 1;
  }
  return chars.slice(0, lo).join('');
}

/** The order key a cursor continues after; 400 INVALID_CURSOR when it is not one of this query's. */
export function decodeCursor(raw: string, fingerprint: string, keyCount: number): CursorValue[] {
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
  return parsed.slice(1).map((v: unknown): CursorValue => {
    if (v === null || typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v))) return v;
    if (isShortened(v)) return { prefix: v.p, hash: v.h };
    throw invalidCursor('is not a cursor');
  });
}

function isShortened(v: unknown): v is { p: string; h: string } {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return false;
  const { p, h, ...rest } = v as Record<string, unknown>;
  return typeof p === 'string' && typeof h === 'string' && h.length === hashLength && !Object.keys(rest).length && !p.includes('\u0000');
}
