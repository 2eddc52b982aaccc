import { existsSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import type { ResolvedConfig } from '../config.js';
import type { OpenDatabase } from '../db/open.js';
import { isSandboxId } from '../auth/sandbox-id.js';
import type { Engine } from '../engine/engine.js';
import { commandLog } from './_log.js';

/** What reset, export and import share: the database file and the config that may name it. */
export interface DatabaseOptions {
  db?: string;
  config?: string;
}

export interface CommandDatabase {
  config: ResolvedConfig;
  db: OpenDatabase;
  engine: Engine;
  /** The file did not exist before this command opened it. */
  created: boolean;
  close(): void;
}

/** `--db` and `--config`, as serve has them. */
export function withDatabaseOptions(command: Command): Command {
  return command
    .option('--config <file>', 'config file (default: mockapi.config.{ts,mjs,js,json} in the current folder)')
    .addOption(new Option('--db <file>', 'SQLite file (default: config, else .mockapi/mockapi.db)').argParser(parseDb));
}

/** `--sandbox <id>` or `--all`, exactly one of them. */
export function withSandboxSelection(command: Command, verb: string): Command {
  return command
    .addOption(new Option('--sandbox <id>', `the sandbox to ${verb} (its svc_identity id)`).argParser(parseSandboxId))
    .option('--all', `${verb} every sandbox that holds data`);
}

export function requireOneSelection(command: Command, options: { sandbox?: string; all?: boolean }): void {
  if ((options.sandbox === undefined) === !options.all) {
    command.error(options.all ? 'give either --sandbox <id> or --all, not both' : 'give --sandbox <id> or --all', { exitCode: 2 });
  }
}

/**
 * Opens the database file a server may be using at the same time (WAL, busy_timeout) and builds
 * the engine over it. The baseline is loaded only into a file that has none: the one a file holds
 * is the one its server serves, and a command must not swap it under a running server; so are its
 * collections (a warning names a config that declares others).
 */
export async function openCommandDatabase(
  options: DatabaseOptions,
  { mustExist = false, memoryIfMissing = false } = {},
): Promise<CommandDatabase> {
  // Loaded on use: building the command line (`mockapi --help`) needs none of them.
  const [{ loadMockapiConfig }, { openDatabase }, { baselineCollections, servedCollections }, { createEngine }, { loadBaseline }] = await Promise.all([
    import('../config.js'),
    import('../db/open.js'),
    import('../collections/baseline.js'),
    import('../engine/engine.js'),
    import('../engine/baseline.js'),
  ]);
  const config = await loadMockapiConfig({ config: options.config, db: options.db });
  const missing = config.db !== ':memory:' && !existsSync(config.db);
  if (config.db === ':memory:' && mustExist) throw new Error('--db :memory: holds no sandboxes; name the file a server uses');
  if (mustExist && missing) throw new Error(`no database at ${config.db} (name it with --db, or start "mockapi serve" once)`);
  // A check-only run on a file that does not exist yet checks against the baseline without creating it.
  const db = openDatabase(missing && memoryIfMissing ? ':memory:' : config.db);
  try {
    const hasBaseline = db.sqlite.prepare(`SELECT 1 FROM meta WHERE key = 'baseline_hash'`).get() !== undefined;
    const served = hasBaseline ? servedCollections(db.sqlite, config) : { collections: baselineCollections(db.sqlite, config.collections) };
    if (served.disagreement) (await commandLog('stderr')).warn(served.disagreement);
    const { collections } = served;
    const engine = createEngine({ db, collections, limits: config.limits });
    if (!hasBaseline) loadBaseline(db, config.fixtures, collections, engine);
    return { config, db, engine, created: missing && !memoryIfMissing, close: () => db.close() };
  } catch (error) {
    db.close();
    throw error;
  }
}

/** Redraws one status line on a terminal once a long run passes half a second; silent otherwise. */
export function createProgress(verb: string): { update: (done: number, total: number) => void; end: () => void } {
  const tty = process.stderr.isTTY === true;
  const started = Date.now();
  let shown = false;
  return {
    update(done, total) {
      if (!tty || Date.now() - started < 500) return;
      shown = true;
      process.stderr.write(`\r${verb} ${done}/${total} sandboxes`);
    },
    end() {
      if (shown) process.stderr.write('\r\u001B[2K');
    },
  };
}

/** "1 sandbox", "3 sandboxes". */
export function sandboxCount(count: number): string {
  return `${count} ${count === 1 ? 'sandbox' : 'sandboxes'}`;
}

function parseDb(value: string): string {
  if (value.trim() === '') throw new InvalidArgumentError('Expected a file path.');
  return value;
}

function parseSandboxId(value: string): string {
  if (!isSandboxId(value)) throw new InvalidArgumentError('Expected a sandbox id: 1-128 characters of A-Z a-z 0-9 _ -.');
  return value;
}
