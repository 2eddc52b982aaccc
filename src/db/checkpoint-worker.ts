import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';

/**
 * The thread that runs a server's passive WAL checkpoints (db/checkpoints.ts), on a connection of
 * its own to the same file: each message asks for one, and `close` closes the connection first
 * (the server's must be the last to close). It never writes, so it never waits on a writer, and a
 * passive checkpoint never waits on a reader.
 */
const { file, closed } = workerData as { file: string; closed: Int32Array };
const db = new Database(file, { fileMustExist: true, timeout: 0 });
// As the server's connection (db/open.ts): a checkpoint syncs the database file, not each commit.
db.pragma('synchronous = NORMAL');
parentPort!.on('message', (message) => {
  if (message === 'close') {
    // The server is stopping: its own connection must be the last (it removes the WAL on close).
    db.close();
    Atomics.store(closed, 0, 1);
    Atomics.notify(closed, 0);
    parentPort!.close();
    return;
  }
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // busy: the next tick tries again
  }
});
