import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import * as schema from './schema.js';
import { migrate } from './migrate.js';

export type Sqlite = Database.Database;
export type Drizzle = ReturnType<typeof drizzle<typeof schema>>;

export interface OpenDatabase {
  sqlite: Sqlite;
  orm: Drizzle;
  close(): void;
}

/**
 * Opens (creating when needed) the SQLite file shared by the server and the CLI commands.
 * WAL lets `mockapi reset/export` write while a server reads; `synchronous = NORMAL` keeps every
 * committed transaction across a process kill (only a power cut can lose the last ones).
 */
export function openDatabase(file: string): OpenDatabase {
  if (file !== ':memory:') {
    try {
      mkdirSync(dirname(file), { recursive: true });
    } catch (error) {
      throw new Error(`cannot create the folder of ${file}: ${(error as Error).message}`);
    }
  }
  let sqlite: Sqlite;
  try {
    sqlite = new Database(file);
    sqlite.pragma('journal_mode = WAL');
  } catch (error) {
    throw new Error(missingBinding(error) ?? `cannot open database ${file}: ${(error as Error).message}`);
  }
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('synchronous = NORMAL');
  // When a checkpoint lets the WAL start over, its file is cut back to 1 MiB instead of keeping
  // the size of the largest burst (contract section 12: the file and its WAL stay bounded).
  sqlite.pragma('journal_size_limit = 1048576');
  sqlite.pragma('foreign_keys = OFF');
  migrate(sqlite);
  // SQLite's lower() folds ASCII only: `_like` compares with JavaScript's Unicode lower case.
  sqlite.function('unicode_lower', { deterministic: true }, (value: unknown) => (value === null || value === undefined ? null : String(value).toLowerCase()));
  const orm = drizzle(sqlite, { schema });
  return {
    sqlite,
    orm,
    close: () => {
      if (sqlite.open) sqlite.close();
    },
  };
}

/**
 * better-sqlite3 loads its compiled addon on the first `new Database`. An install with
 * `--ignore-scripts` (or strict `allowScripts`) never built it, and a Node upgrade leaves one
 * built for another ABI: both deserve the one command that fixes them, not bindings' list of
 * the thirteen paths it tried.
 */
function missingBinding(error: unknown): string | undefined {
  const { message, code } = error as NodeJS.ErrnoException;
  if (typeof message === 'string' && message.startsWith('Could not locate the bindings file')) {
    return 'better-sqlite3 is not built (installed with --ignore-scripts?): run `npm rebuild better-sqlite3`';
  }
  if (code === 'ERR_DLOPEN_FAILED') {
    return 'better-sqlite3 was built for another Node.js or system and does not load: run `npm rebuild better-sqlite3`';
  }
  return undefined;
}
