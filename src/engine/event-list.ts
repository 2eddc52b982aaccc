import { paginationOf } from './pagination.js';
import { invalidCursor, invalidQuery } from './errors.js';
import { envelopeOf, parseEventId, type ChangeLog, type EventRef } from './change-log.js';
import { compilePatterns, parsePatternList } from './event-pattern.js';
import type { Page } from './list-page.js';
import { readInteger } from './list-query.js';

/** `GET /events` parameters (contract section 15), read from a query string. */
export interface EventListQuery {
  page: number;
  limit: number;
  cursor?: string;
  patterns: string[];
  /** Only events after this one (exclusive): an event id, resolved in the sandbox's log. */
  since?: string;
}

/** Reads `page`/`limit`/`cursor` (with the collections' aliases), `events` (alias `event`) and `since`. 400 for bad values. */
export function parseEventListQuery(params: URLSearchParams, maxPageSize: number): EventListQuery {
  const limit = readInteger(params, ['limit', '_limit', '_per_page'], 10, 1, maxPageSize);
  const page = readInteger(params, ['page', '_page'], 1, 1, Math.floor(Number.MAX_SAFE_INTEGER / limit));
  return { page, limit, cursor: params.get('cursor') ?? undefined, patterns: readPatterns(params), since: readSince(params.get('since')) };
}

/** `events=post.*,user.created` (alias `event`), 400 naming a malformed pattern. */
export function readPatterns(params: URLSearchParams): string[] {
  const { patterns, invalid } = parsePatternList([...params.getAll('events'), ...params.getAll('event')]);
  if (invalid !== undefined) throw invalidQuery('events', `holds ${JSON.stringify(invalid)}, not an event pattern (post.created, posts.*, *)`);
  return patterns;
}

/** An event id (`evt_...`), checked; absent or empty is undefined (everything). */
export function readSince(raw: string | null, parameter = 'since'): string | undefined {
  if (raw === null || raw === '') return undefined;
  if (!parseEventId(raw)) throw invalidQuery(parameter, 'must be an event id (evt_...)');
  return raw;
}

/**
 * One page of a sandbox's log, newest first. The log keeps at most `eventsPerSandbox` rows per
 * sandbox, so names are filtered here and only the page's rows are read in full. A cursor names
 * the last event of the previous page: events logged meanwhile never shift a walk.
 */
export function listEvents(changes: ChangeLog, sid: number, query: EventListQuery): Page {
  const matches = compilePatterns(query.patterns);
  const since = query.since === undefined ? 0 : (changes.locate(sid, query.since)?.after ?? 0);
  const all = changes.names(sid).filter((row) => row.n > since && matches(row.event));
  const { limit } = query;
  let start = (query.page - 1) * limit;
  if (query.cursor !== undefined) {
    const after = decodeEventCursor(query.cursor);
    start = all.findIndex((row) => ('eseq' in after ? row.eseq < after.eseq : row.n < after.n));
    if (start === -1) start = all.length;
  }
  const rows = all.slice(start, start + limit);
  const events = changes.at(rows.map((row) => row.n));
  const last = rows.at(-1);
  return {
    json: `[${events.map(envelopeOf).join(',')}]`,
    pagination: paginationOf(start, limit, all.length, { cursor: last && Buffer.from(`s:${last.eseq}`).toString('base64url') }),
  };
}

/** A cursor names the previous page's last event by its number in the sandbox (`e:` cursors of older servers: by log position). */
function decodeEventCursor(cursor: string): EventRef {
  const text = Buffer.from(cursor, 'base64url').toString();
  const [, kind, digits] = /^([se]):(\d{1,16})$/.exec(text) ?? [];
  if (digits === undefined || !Number.isSafeInteger(Number(digits))) throw invalidCursor('is not a cursor of this list');
  return kind === 's' ? { eseq: Number(digits) } : { n: Number(digits) };
}
