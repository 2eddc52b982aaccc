import type { OpenDatabase } from '../db/open.js';

/** One event of the log, as readers get it. `data` is the stored JSON text (never re-serialised). */
export interface LoggedEvent {
  /** Position in the whole log (all sandboxes): internal, never shown to clients. */
  n: number;
  /** The event's number in its sandbox's log; `id` encodes it. */
  eseq: number;
  id: string;
  sid: number;
  /** The sandbox's client-visible id. */
  sandbox: string;
  event: string;
  /** ISO 8601 UTC with milliseconds. */
  timestamp: string;
  /** The same time in ms since the epoch. */
  at: number;
  data: string;
}

/** The default of `limits.eventsPerSandbox` (contract section 15). */
export const defaultEventsPerSandbox = 1000;
/** The log's bound in bytes when `limits.sandboxBytes` is 0 (no bound on records): the file must stay bounded all the same. */
const defaultLogBytes = 8 * 1024 * 1024;
/** How often another process's commits are looked for while someone watches the log. */
const pollMs = 200;

const idPrefix = 'evt_';
const idDigits = 13;
/** Ids before issue 28 had 12 digits and named a position in the whole log: a client may still hold one. */
const legacyIdDigits = 12;

/**
 * `evt_` and the event's number in its sandbox's log in base 36, zero-padded so that ids sort in
 * log order as strings. Numbered per sandbox, an id tells nothing of what other sandboxes wrote
 * (a global counter did: contract section 15).
 */
export function toEventId(eseq: number): string {
  return idPrefix + eseq.toString(36).padStart(idDigits, '0');
}

/** What an event id names: an event's number in its sandbox's log, or (an older id) a position in the whole log. */
export type EventRef = { eseq: number } | { n: number };

/** The event an id names, or undefined for anything that is not one of ours. */
export function parseEventId(id: string): EventRef | undefined {
  const digits = id.slice(idPrefix.length);
  if (!id.startsWith(idPrefix) || (digits.length !== idDigits && digits.length !== legacyIdDigits) || !/^[0-9a-z]+$/.test(digits)) return undefined;
  const number = parseInt(digits, 36);
  if (!Number.isSafeInteger(number)) return undefined;
  return digits.length === idDigits ? { eseq: number } : { n: number };
}

/** The event's JSON envelope, `{id, event, timestamp, data}`, built around the stored data text. */
export function envelopeOf(event: Pick<LoggedEvent, 'id' | 'event' | 'timestamp' | 'data'>): string {
  return `{"id":${JSON.stringify(event.id)},"event":${JSON.stringify(event.event)},"timestamp":"${event.timestamp}","data":${event.data}}`;
}

interface Row {
  n: number;
  eseq: number;
  sid: number;
  sandbox: string;
  event: string;
  at: number;
  data: string;
}

const toEvent = (row: Row): LoggedEvent => ({
  n: row.n,
  eseq: row.eseq,
  id: toEventId(row.eseq),
  sid: row.sid,
  sandbox: row.sandbox,
  event: row.event,
  timestamp: new Date(row.at).toISOString(),
  at: row.at,
  data: row.data,
});

/**
 * The change log (STYLE.md "The change log: built as meant"): every committed change of a sandbox
 * appends one row in the change's own transaction, whoever made it (this server, another one, a
 * CLI command). Webhooks, the event stream and `webhook tail` read it; nothing runs listeners
 * inside a write: watchers are woken after the write (this process) or when the file's data
 * version moves (another process), never synchronously. Each sandbox's log keeps its last
 * `limits.eventsPerSandbox` events, and at most `limits.sandboxBytes` bytes of their data.
 */
export function createChangeLog(db: OpenDatabase, limits: { eventsPerSandbox?: number; sandboxBytes?: number } = {}) {
  const { sqlite } = db;
  // The sandbox's event number outlives a reset's purge, so an id is never given twice. A sandbox
  // row that is new (or made again after expiry) starts at its first event's time in µs, after
  // every number its earlier life gave (no log grows by 1,000 events a millisecond).
  const nextEseq = sqlite.prepare(`UPDATE sandboxes SET event_seq = CASE WHEN event_seq = 0 THEN ? ELSE event_seq + 1 END WHERE sid = ? RETURNING event_seq`).pluck();
  const insert = sqlite.prepare(
    `INSERT INTO events (sid, eseq, upto, event, at, data) VALUES (?, ?,
       coalesce((SELECT upto FROM events WHERE sid = ? ORDER BY eseq DESC LIMIT 1), 0) + ?, ?, ?, ?) RETURNING upto`,
  ).pluck();
  const trim = sqlite.prepare(`DELETE FROM events WHERE sid = ? AND eseq <= ?`);
  // Bytes before the oldest event kept: `upto` less its own data.
  const oldestUpto = sqlite.prepare(`SELECT upto - length(CAST(data AS BLOB)) FROM events WHERE sid = ? ORDER BY eseq LIMIT 1`).pluck();
  const trimBytes = sqlite.prepare(`DELETE FROM events WHERE sid = ? AND eseq < ? AND upto - length(CAST(data AS BLOB)) < ?`);
  const purge = sqlite.prepare(`DELETE FROM events WHERE sid = ?`);
  const select = `SELECT e.n, e.eseq, e.sid, s.key AS sandbox, e.event, e.at, e.data FROM events e JOIN sandboxes s ON s.sid = e.sid`;
  const after = sqlite.prepare(`${select} WHERE e.n > ? ORDER BY e.n LIMIT (? + 0)`);
  const afterIn = sqlite.prepare(`${select} WHERE e.sid = ? AND e.n > ? ORDER BY e.eseq LIMIT (? + 0)`);
  const names = sqlite.prepare(`SELECT n, eseq, event FROM events WHERE sid = ? ORDER BY eseq DESC`);
  const upToEseq = sqlite.prepare(`SELECT coalesce(max(n), 0) AS after, coalesce(max(eseq = ?), 0) AS held FROM events WHERE sid = ? AND eseq <= ?`);
  const holdsN = sqlite.prepare(`SELECT count(*) FROM events WHERE sid = ? AND n = ?`).pluck();
  const byN = sqlite.prepare(`${select} WHERE e.n IN (SELECT value FROM json_each(?)) ORDER BY e.n DESC`);
  const last = sqlite.prepare(`SELECT coalesce(max(n), 0) FROM events`).pluck();
  // Newest first: stops at the first older event, so it reads only what was logged since `at`.
  const lastBefore = sqlite.prepare(`SELECT coalesce((SELECT n FROM events WHERE at < ? ORDER BY n DESC LIMIT 1), 0)`).pluck();
  const dataVersion = sqlite.prepare('PRAGMA data_version').pluck();

  const watchers = new Set<() => void>();
  let woken = false;
  let timer: NodeJS.Timeout | undefined;
  let version: unknown;
  const wakeAll = () => {
    woken = false;
    for (const watcher of [...watchers]) watcher();
  };
  /** After the running (synchronous) transaction: a rolled-back write only costs the watchers one empty read. */
  const wakeSoon = () => {
    if (woken || !watchers.size) return;
    woken = true;
    setImmediate(wakeAll);
  };

  return {
    /**
     * Appends an event to the sandbox's log and keeps the log to `limits.eventsPerSandbox`. Call
     * inside the write transaction of the change (`sandboxes.write`), with the sandbox's sid.
     * `json`: `data` as JSON text, when the caller has it already (a record's stored document).
     */
    append(sid: number, event: string, data: unknown, json = JSON.stringify(data) ?? 'null'): void {
      const at = Date.now();
      const eseq = nextEseq.get(at * 1000, sid) as number;
      const upto = insert.get(sid, eseq, sid, Buffer.byteLength(json), event, at, json) as number;
      const keep = limits.eventsPerSandbox ?? defaultEventsPerSandbox;
      if (eseq > keep) trim.run(sid, eseq - keep);
      // The newest event always stays, however large.
      const maxBytes = limits.sandboxBytes || defaultLogBytes;
      // `upto` counts from the log's start: below the bound, what the log keeps is too.
      if (upto > maxBytes && upto - ((oldestUpto.get(sid) as number | undefined) ?? upto) > maxBytes) trimBytes.run(sid, eseq, upto - maxBytes);
      wakeSoon();
    },

    /** Empties the sandbox's log (a reset; call inside its transaction). */
    purge(sid: number): void {
      purge.run(sid);
    },

    /** The newest position of the whole log (0 when empty). */
    latest(): number {
      return last.get() as number;
    },

    /** The position of the newest event logged before `at` (ms since the epoch; 0 when none). */
    lastBefore(at: number): number {
      return lastBefore.get(at) as number;
    },

    /** Events of every sandbox after position `n`, oldest first. */
    after(n: number, limit = 500): LoggedEvent[] {
      return (after.all(n, limit) as Row[]).map(toEvent);
    },

    /** The sandbox's events after position `n` (0: all it keeps), oldest first. */
    afterIn(sid: number, n: number, limit = 1000): LoggedEvent[] {
      return sid ? (afterIn.all(sid, n, limit) as Row[]).map(toEvent) : [];
    },

    /** Positions, numbers and names of the sandbox's events, newest first: at most `eventsPerSandbox`, so lists filter them here. */
    names(sid: number): { n: number; eseq: number; event: string }[] {
      return sid ? (names.all(sid) as { n: number; eseq: number; event: string }[]) : [];
    },

    /**
     * Where an event id stands in the sandbox's log: `after`, the position its successors follow
     * (0: before every event kept), and whether the log still `held`s that very event. Undefined
     * for what is not an event id. An older id (a position in the whole log) still works.
     */
    locate(sid: number, id: string): { after: number; held: boolean } | undefined {
      const ref = parseEventId(id);
      if (!ref) return undefined;
      if ('n' in ref) return { after: ref.n, held: sid > 0 && (holdsN.get(sid, ref.n) as number) > 0 };
      const { after, held } = upToEseq.get(ref.eseq, sid, ref.eseq) as { after: number; held: number };
      return { after, held: held === 1 };
    },

    /** The events at these positions, newest first. */
    at(positions: number[]): LoggedEvent[] {
      return positions.length ? (byN.all(JSON.stringify(positions)) as Row[]).map(toEvent) : [];
    },

    /**
     * Calls `watcher` (soon, never inside a write) whenever the log may have grown: after a write
     * of this process, or within `pollMs` of another process's commit. Returns the unsubscribe.
     */
    watch(watcher: () => void): () => void {
      watchers.add(watcher);
      if (!timer) {
        version = dataVersion.get();
        timer = setInterval(() => {
          try {
            const now = dataVersion.get();
            if (now === version) return;
            version = now;
          } catch {
            return; // closing
          }
          wakeAll();
        }, pollMs);
        timer.unref();
      }
      return () => {
        watchers.delete(watcher);
        if (!watchers.size && timer) {
          clearInterval(timer);
          timer = undefined;
        }
      };
    },
  };
}

export type ChangeLog = ReturnType<typeof createChangeLog>;
