import { afterEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { startCheckpoints, type Checkpoints } from '../src/db/checkpoints.js';
import { openDatabase } from '../src/db/open.js';
import { eventually, repoRoot } from './helpers/server.js';

/**
 * The server's WAL checkpoints (db/checkpoints.ts): the passive ones run on a worker thread with a
 * connection of its own, the quiet clock and the TRUNCATE after it on the server's connection.
 * Real timers, short periods.
 */

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});
const size = (file: string) => statSync(file, { throwIfNoEntry: false })?.size ?? 0;
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** A server's database with a table to fill, and the checkpoints run on its own connection. */
function database() {
  const dir = mkdtempSync(join(tmpdir(), 'mockapi-checkpoints-'));
  const file = join(dir, 'mockapi.db');
  const db = openDatabase(file);
  db.sqlite.exec('CREATE TABLE blobs (body TEXT)');
  const insert = db.sqlite.prepare('INSERT INTO blobs VALUES (?)');
  const here: string[] = [];
  const pragma = db.sqlite.pragma.bind(db.sqlite);
  db.sqlite.pragma = ((source: string, options?: { simple?: boolean }) => {
    const result = pragma(source, options);
    if (source.startsWith('wal_checkpoint')) here.push(`${source}${(result as { busy: number }[])[0].busy ? ' busy' : ''}`);
    return result;
  }) as typeof db.sqlite.pragma;
  let checkpoints: Checkpoints | undefined;
  cleanups.push(() => {
    checkpoints?.stop();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    file,
    sqlite: db.sqlite,
    /** The checkpoint pragmas run on the server's connection (" busy" when one could not finish). */
    here,
    write: (bytes: number) => insert.run('x'.repeat(bytes)),
    start(everyMs: number, quietMs: number): Checkpoints {
      return (checkpoints = startCheckpoints(db.sqlite, everyMs, quietMs));
    },
  };
}

describe('WAL checkpoints', () => {
  it('run the passive ones on a worker thread, never on the server connection', async () => {
    const { file, sqlite, here, write, start } = database();
    start(20, 60_000);
    sqlite.transaction(() => {
      for (let i = 0; i < 20; i++) write(100_000);
    })();
    const before = size(file);
    // Autocheckpoints are off: only a checkpoint moves the pages into the database file.
    await eventually('the WAL copied into the database file', () => size(file) > before + 1_500_000);
    expect(size(`${file}-wal`)).toBeGreaterThan(2_000_000);
    expect(here).toEqual([]);
  });

  it('truncate the WAL after the quiet time while the worker checkpoints; bookkeeping does not put it off, another process commit does', async () => {
    const { file, here, write, start } = database();
    const checkpoints = start(20, 300);
    // A burst, during which the worker checkpoints (its checkpoints are no writes).
    for (let i = 0; i < 10; i++) {
      write(200_000);
      await sleep(30);
    }
    // The server's bookkeeping goes on without holding the truncation back.
    let keeping = true;
    const bookkeeping = (async () => {
      while (keeping) {
        checkpoints.bookkeeping(() => write(1_000));
        await sleep(20);
      }
    })();
    await eventually('a truncation', () => here.includes('wal_checkpoint(TRUNCATE)'));
    // Nor does it count as a write once the WAL was truncated.
    const truncations = here.length;
    await sleep(500);
    expect(here.length).toBe(truncations);
    keeping = false;
    await bookkeeping;
    expect(here.every((pragma) => pragma.startsWith('wal_checkpoint(TRUNCATE)'))).toBe(true);

    // Another process's commit does count.
    const other = new Database(file);
    other.prepare('INSERT INTO blobs VALUES (?)').run('y'.repeat(300_000));
    other.close();
    expect(size(`${file}-wal`)).toBeGreaterThan(300_000);
    await eventually('the WAL truncated after the other commit', () => here.length > truncations && size(`${file}-wal`) === 0);
  });
});

describe('the checkpoint worker thread', () => {
  /**
   * Runs a script in a process of its own: it writes, waits until a passive checkpoint has moved
   * the pages into the database file, then does `then` (after stop, waits until the WAL is gone:
   * no connection is left) and leaves nothing else to do.
   */
  function run(then: 'stop' | 'nothing', checkpointsModule = join(repoRoot, 'dist/db/checkpoints.js')) {
    const dir = mkdtempSync(join(tmpdir(), 'mockapi-checkpoint-thread-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'mockapi.db');
    const script = join(dir, 'script.mjs');
    writeFileSync(
      script,
      `import { existsSync, statSync } from 'node:fs';
import { openDatabase } from ${JSON.stringify(pathToFileURL(join(repoRoot, 'dist/db/open.js')).href)};
import { startCheckpoints } from ${JSON.stringify(pathToFileURL(checkpointsModule).href)};
const file = ${JSON.stringify(file)};
const db = openDatabase(file);
const checkpoints = startCheckpoints(db.sqlite, 20, 60_000);
db.sqlite.exec('CREATE TABLE blobs (body TEXT)');
db.sqlite.prepare('INSERT INTO blobs VALUES (?)').run('x'.repeat(1_000_000));
const before = statSync(file).size;
const until = Date.now() + 10_000;
const poll = () => {
  if (statSync(file).size < before + 900_000) {
    if (Date.now() > until) throw new Error('no checkpoint in 10 s');
    return setTimeout(poll, 20);
  }
  if (${JSON.stringify(then)} === 'stop') {
    checkpoints.stop();
    db.close();
    return gone();
  }
  console.log('checkpointed');
};
// The WAL goes when the last connection closes: the worker's too, before the process exits.
const gone = () => {
  if (!existsSync(file + '-wal')) return console.log('checkpointed');
  if (Date.now() > until) throw new Error('the WAL outlived stop');
  setTimeout(gone, 20);
};
poll();
`,
    );
    const started = performance.now();
    const result = spawnSync(process.execPath, [script], { encoding: 'utf8', timeout: 20_000 });
    return { ...result, ms: performance.now() - started, file };
  }

  it('does not keep the process alive, and is gone after stop with its connection', () => {
    for (const then of ['nothing', 'stop'] as const) {
      const { status, signal, stdout, stderr, ms, file } = run(then);
      expect({ then, status, signal, stdout, stderr }).toEqual({ then, status: 0, signal: null, stdout: 'checkpointed\n', stderr: '' });
      expect(ms).toBeLessThan(10_000);
      expect(existsSync(`${file}-wal`)).toBe(false);
    }
  });

  it('leaves the checkpoints to the server connection when it cannot start', () => {
    // A copy of the module where no built worker sits beside it.
    const elsewhere = mkdtempSync(join(tmpdir(), 'mockapi-checkpoints-module-'));
    cleanups.push(() => rmSync(elsewhere, { recursive: true, force: true }));
    mkdirSync(join(elsewhere, 'a/b'), { recursive: true });
    copyFileSync(join(repoRoot, 'dist/db/checkpoints.js'), join(elsewhere, 'a/b/checkpoints.js'));
    const { status, stdout, stderr } = run('stop', join(elsewhere, 'a/b/checkpoints.js'));
    expect({ status, stdout, stderr }).toEqual({ status: 0, stdout: 'checkpointed\n', stderr: '' });
  });
});
