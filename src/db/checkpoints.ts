import type { Sqlite } from './open.js';

/**
 * Moves WAL checkpoints off the request path. SQLite's automatic checkpoint runs inside whichever
 * commit crosses 1,000 pages, which put 4-6 ms on the p99 of resets (PERF-NOTES); a server
 * instead checkpoints passively on a timer (never waiting for readers, so never blocking). The
 * CLI commands keep the default: they are short-lived.
 */
export function startCheckpoints(sqlite: Sqlite, everyMs = 1_000): () => void {
  if (sqlite.memory) return () => {};
  sqlite.pragma('wal_autocheckpoint = 0');
  const timer = setInterval(() => {
    try {
      sqlite.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // busy or closing: the next tick tries again
    }
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
