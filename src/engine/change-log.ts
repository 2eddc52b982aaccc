import type { OpenDatabase } from '../db/open.js';

/** One event of the log, as readers get it. `data` is the stored JSON text (never re-serialised). */
export interface LoggedEvent {
  /** Position in the whole log (all sandboxes); `id` encodes it. */
  n: number;
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
const idDigits = 12;

/** `evt_` and the log position in base 36, zero-padded so that ids sort in log order as strings. */
export function toEventId(n: number): string {
  return idPrefix + n.toString(36).padStart(idDigits, '0');
}

/** The log position an event id names, or undefined for anything that is not one of ours. */
export function fromEventId(id: string): number | undefined {
  if (!id.startsWith(idPrefix) || id.length !== idPrefix.length + idDigits || !/^[0-9a-z]+$/.test(id.slice(idPrefix.length))) return undefined;
  const n = parseInt(id.slice(idPrefix.length), 36);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** The event's JSON envelope, `{id, event, timestamp, data}`, built around the stored data text. */
export function envelopeOf(event: Pick<LoggedEvent, 'id' | 'event' | 'timestamp' | 'data'>): string {
  return `{"id":${JSON.stringify(event.id)},"event":${JSON.stringify(event.event)},"timestamp":"${event.timestamp}","data":${event.data}}`;
}

interface Row {
  n: number;
  sid: number;
  sandbox: string;
  event: string;
  at: number;
  data: string;
}

const toEvent = (row: Row): LoggedEvent => ({
  n: row.n,
  id: toEventId(row.n),
  sid: row.sid,
  sandbox: row.sandbox,
  event: row.event,
  timestamp: new Date(row.at).toISOString(),
  at: row.at,
  data: row.data,
});

/**
 * The change log (STYLE "Where the next layers plug in"): every committed change of a sandbox
 * appends one row in the change's own transaction, whoever made it (this server, another one, a
 * CLI command). Webhooks, the event stream and `webhook tail` read it; nothing runs listeners
 * inside a write: watchers are woken after the write (this process) or when the file's data
 * version moves (another process), never synchronously. Each sandbox's log keeps its last
 * `limits.eventsPerSandbox` events, and at most `limits.sandboxBytes` bytes of their data.
 */
export function createChangeLog(db: OpenDatabase, limits: { eventsPerSandbox?: number; sandboxBytes?: number } = {}) {
  const { sqlite } = db;
  const insert = sqlite.prepare(
    `INSERT INTO events (sid, eseq, upto, event, at, data) VALUES (?,
       coalesce((SELECT max(eseq) FROM events WHERE sid = ?), 0) + 1,
       coalesce((SELECT upto FROM events WHERE sid = ? ORDER BY eseq DESC LIMIT 1), 0) + ?, ?, ?, ?) RETURNING eseq, upto`,
  );
  const trim = sqlite.prepare(`DELETE FROM events WHERE sid = ? AND eseq <= ?`);
  // Bytes before the oldest event kept: `upto` less its own data.
  const oldestUpto = sqlite.prepare(`SELECT upto - length(CAST(data AS BLOB)) FROM events WHERE sid = ? ORDER BY eseq LIMIT 1`).pluck();
  const trimBytes = sqlite.prepare(`DELETE FROM events WHERE sid = ? AND eseq < ? AND upto - length(CAST(data AS BLOB)) < ?`);
  const purge = sqlite.prepare(`DELETE FROM events WHERE sid = ?`);
  const select = `SELECT e.n, e.sid, s.key AS sandbox, e.event, e.at, e.data FROM events e JOIN sandboxes s ON s.sid = e.sid`;
  const after = sqlite.prepare(`${select} WHERE e.n > ? ORDER BY e.n LIMIT (? + 0)`);
  const afterIn = sqlite.prepare(`${select} WHERE e.sid = ? AND e.n > ? ORDER BY e.eseq LIMIT (? + 0)`);
  const names = sqlite.prepare(`SELECT n, event FROM events WHERE sid = ? ORDER BY eseq DESC`);
  const byN = sqlite.prepare(`${select} WHERE e.n IN (SELECT value FROM json_each(?)) ORDER BY e.n DESC`);
  const last = sqlite.prepare(`SELECT coalesce(max(n), 0) FROM events`).pluck();
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
      const { eseq, upto } = insert.get(sid, sid, sid, Buffer.byteLength(json), event, Date.now(), json) as { eseq: number; upto: number };
      const keep = limits.eventsPerSandbox ?? defaultEventsPerSandbox;
      if (eseq > keep) trim.run(sid, eseq - keep);
      // The newest event always stays, however large.
      const maxBytes = limits.sandboxBytes || defaultLogBytes;
      if (upto - ((oldestUpto.get(sid) as number | undefined) ?? upto) > maxBytes) trimBytes.run(sid, eseq, upto - maxBytes);
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

    /** Events of every sandbox after position `n`, oldest first. */
    after(n: number, limit = 500): LoggedEvent[] {
      return (after.all(n, limit) as Row[]).map(toEvent);
    },

    /** The sandbox's events after position `n` (0: all it keeps), oldest first. */
    afterIn(sid: number, n: number, limit = 1000): LoggedEvent[] {
      return sid ? (afterIn.all(sid, n, limit) as Row[]).map(toEvent) : [];
    },

    /** Positions and names of the sandbox's events, newest first: at most `eventsPerSandbox`, so lists filter them here. */
    names(sid: number): { n: number; event: string }[] {
      return sid ? (names.all(sid) as { n: number; event: string }[]) : [];
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
