import { statSync } from 'node:fs';
import type { Worker } from 'node:worker_threads';
import type { Sqlite } from './open.js';

/** Quiet time after the last write before the WAL is checkpointed and truncated (contract section 12). */
export const quietMsBeforeTruncate = 5_000;

/**
 * Moves WAL checkpoints off the request path and keeps the WAL small. SQLite's automatic
 * checkpoint runs inside whichever commit crosses 1,000 pages, which put 4-6 ms on the p99 of
 * resets (PERF-NOTES); a server instead checkpoints passively on a timer (never waiting for
 * readers, so never blocking). A burst of writes still grows the WAL file, and a passive
 * checkpoint never shrinks it: once no commit (of this process or another) has been seen for
 * `quietMs`, one TRUNCATE checkpoint empties it, without waiting on another process's reader
 * (busy_timeout 0 for that call: busy now means the next tick tries again). Writes of the server's
 * own bookkeeping (`bookkeeping(write)`) do not count as writes there. The CLI commands keep
 * SQLite's defaults: they are short-lived.
 *
 * The timer and the quiet clock stay on this thread (they read this connection's counters); the
 * passive checkpoints, the copying and syncing, run on a worker thread (`passiveCheckpoints`). The
 * TRUNCATE stays here: run by another connection it moves this one's `data_version` (SQLite resets
 * the WAL header), which the answer cache would take for another process's commit and drop every
 * answer, and the quiet clock for a write. By then the passive ones have copied the WAL, so it is
 * the file's truncation alone (1-2 ms for 3 MB, once after each burst).
 */
export function startCheckpoints(sqlite: Sqlite, everyMs = 1_000, quietMs = quietMsBeforeTruncate): Checkpoints {
  if (sqlite.memory) return { stop: () => {}, bookkeeping: (write) => write() };
  sqlite.pragma('wal_autocheckpoint = 0');
  // Commits of this connection (less its own bookkeeping), and of every other one (data_version moves on those).
  const ownChanges = sqlite.prepare('SELECT total_changes()').pluck();
  const otherCommits = sqlite.prepare('PRAGMA data_version').pluck();
  let bookkept = 0;
  const writes = () => `${(ownChanges.get() as number) - bookkept}:${otherCommits.get() as number}`;
  let seen = writes();
  let lastWriteAt = Date.now();
  let truncated = false;
  const passive = passiveCheckpoints(sqlite);

  const tick = () => {
    const now = Date.now();
    const current = writes();
    if (current !== seen) {
      seen = current;
      lastWriteAt = now;
      truncated = false;
    }
    if (!truncated && now - lastWriteAt >= quietMs) {
      truncated = truncate(sqlite);
      return;
    }
    passive.run();
  };
  const timer = setInterval(() => {
    try {
      tick();
    } catch {
      // busy or closing: the next tick tries again
    }
  }, everyMs);
  timer.unref();
  return {
    stop: () => {
      clearInterval(timer);
      passive.stop();
    },
    bookkeeping: (write) => {
      const before = ownChanges.get() as number;
      try {
        write();
      } finally {
        bookkept += (ownChanges.get() as number) - before;
      }
    },
  };
}

export interface Checkpoints {
  stop(): void;
  /**
   * Runs a write of the server's own bookkeeping (last-seen times) that does not count as a write
   * for the quiet time: otherwise the times a burst of requests leaves behind, saved a few seconds
   * later, would put off the truncation after every burst.
   */
  bookkeeping(write: () => void): void;
}

/** One TRUNCATE checkpoint that never waits; true when the WAL was emptied. */
function truncate(sqlite: Sqlite): boolean {
  const timeout = sqlite.pragma('busy_timeout', { simple: true }) as number;
  sqlite.pragma('busy_timeout = 0');
  try {
    const [result] = sqlite.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
    return result.busy === 0;
  } catch {
    return false;
  } finally {
    sqlite.pragma(`busy_timeout = ${timeout}`);
  }
}

// From dist/db/ and from src/db/ (tests run the sources) alike: the worker is the built one.
const workerFile = new URL('../../dist/db/checkpoint-worker.js', import.meta.url);

/**
 * Passive checkpoints on a worker thread (db/checkpoint-worker.ts): on this thread one took a
 * request's time from 14 to 34 µs while it ran (10,000 sandboxes' file). The thread starts at the
 * first tick that finds the WAL holding something (a write, the server's bookkeeping included), so a
 * start never pays for it; it does not keep the process alive. Should it fail to start, the
 * checkpoints run here, as before.
 */
function passiveCheckpoints(sqlite: Sqlite): { run(): void; stop(): void } {
  let worker: Worker | undefined;
  let failed = false;
  // Set to 1 by the worker once its connection is closed (`stop` waits for it).
  const closed = new Int32Array(new SharedArrayBuffer(4));
  return {
    run() {
      if (failed) {
        sqlite.pragma('wal_checkpoint(PASSIVE)');
        return;
      }
      if (!worker) {
        if (!statSync(`${sqlite.name}-wal`, { throwIfNoEntry: false })?.size) return;
        try {
          // Loaded here, not on the start path (2-3 ms where nothing else loaded it).
          const { Worker } = process.getBuiltinModule('node:worker_threads');
          // Without the server's node flags: `--cpu-prof` would write a second profile beside the server's.
          worker = new Worker(workerFile, { workerData: { file: sqlite.name, closed }, execArgv: [] });
        } catch {
          failed = true;
          sqlite.pragma('wal_checkpoint(PASSIVE)');
          return;
        }
        worker.unref();
        // A worker that failed or ended (its connection could not open) leaves the checkpoints to this thread.
        const fallBack = () => {
          failed = true;
        };
        worker.on('error', fallBack);
        worker.on('exit', fallBack);
      }
      worker.postMessage(0);
    },
    /**
     * Closes the worker's connection before this one closes (so the last connection to close is
     * this one, which empties and removes the WAL, as on a server without the worker), waiting at
     * most a second for a checkpoint under way, then ends the thread.
     */
    stop() {
      if (!worker) return;
      if (!failed) {
        worker.postMessage('close');
        Atomics.wait(closed, 0, 0, 1_000);
      }
      void worker.terminate();
      worker = undefined;
    },
  };
}
