import type { ChangeLog, LoggedEvent } from '../engine/change-log.js';

/** One open event stream: its sandbox, its filter, and where it stands in the log. */
export interface LiveStream {
  sandbox: string;
  matches: (name: string) => boolean;
  /** The last log position it was sent (or replayed); older events are never sent again. */
  lastN: number;
  send(event: LoggedEvent): void;
  /** A comment line that keeps proxies from closing an idle stream. */
  keepAlive(): void;
  /** Ends the response (the server is stopping). */
  end(): void;
}

/** Contract section 15: a comment every 15 s. */
export const keepAliveMs = 15_000;

/**
 * Fans the change log out to open streams. One watcher and one keep-alive timer serve every stream,
 * so a thousand idle streams cost nothing per request: the log is read only when it may have grown
 * (a write here, or another process's commit seen by the log's data-version poll), once for all of
 * them, and each row goes only to the streams of its sandbox.
 */
export function createStreamHub(changes: ChangeLog) {
  const bySandbox = new Map<string, Set<LiveStream>>();
  let count = 0;
  let cursor = 0;
  let unwatch: (() => void) | undefined;
  let keepAlive: NodeJS.Timeout | undefined;
  let closed = false;

  const pump = () => {
    for (;;) {
      let rows: LoggedEvent[];
      try {
        rows = changes.after(cursor, 1000);
      } catch {
        return; // the database is closing
      }
      for (const row of rows) {
        cursor = row.n;
        const streams = bySandbox.get(row.sandbox);
        if (!streams) continue;
        for (const stream of streams) {
          if (row.n <= stream.lastN) continue;
          stream.lastN = row.n;
          if (stream.matches(row.event)) stream.send(row);
        }
      }
      if (rows.length < 1000) return;
    }
  };

  return {
    /** Starts sending the sandbox's new events to the stream (it has replayed up to `stream.lastN`). */
    add(stream: LiveStream): () => void {
      if (closed) {
        stream.end();
        return () => {};
      }
      if (count === 0) {
        cursor = changes.latest();
        unwatch = changes.watch(pump);
        keepAlive = setInterval(() => {
          for (const streams of bySandbox.values()) for (const s of streams) s.keepAlive();
        }, keepAliveMs);
        keepAlive.unref();
      }
      cursor = Math.min(cursor, stream.lastN);
      let streams = bySandbox.get(stream.sandbox);
      if (!streams) bySandbox.set(stream.sandbox, (streams = new Set()));
      streams.add(stream);
      count++;
      let removed = false;
      return () => {
        if (removed) return;
        removed = true;
        streams.delete(stream);
        if (!streams.size) bySandbox.delete(stream.sandbox);
        if (--count === 0) {
          unwatch?.();
          clearInterval(keepAlive);
        }
      };
    },
    get size() {
      return count;
    },
    /**
     * Ends every open stream and refuses new ones: a stream never finishes by itself, so a server
     * that stops would otherwise wait for its grace time and then cut them.
     */
    closeAll(): void {
      closed = true;
      for (const streams of [...bySandbox.values()]) for (const stream of [...streams]) stream.end();
    },
  };
}

export type StreamHub = ReturnType<typeof createStreamHub>;
