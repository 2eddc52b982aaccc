import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';

/**
 * The thread that runs a server's passive WAL checkpoints (db/checkpoints.ts), on a connection of
 * its own to the same file: each message asks for one. It never writes, so it never waits on a
 * writer, and a passive checkpoint never waits on a reader.
 */
const db = new Database((workerData as { file: string }).file, { fileMustExist: true, timeout: 0 });
// As the server's connection (db/open.ts): a checkpoint syncs the database file, not each commit.
db.pragma('synchronous = NORMAL');
parentPort!.on('message', () => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // busy: the next tick tries again
  }
});
