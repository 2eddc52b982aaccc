import { readFileSync } from 'node:fs';
import type { Sqlite } from '../db/open.js';
import { collectionNumbers } from '../engine/collection-numbers.js';
import type { CollectionDefinition } from '../engine/definition.js';
import { declareCollections, type DeclareOptions, type DeclaredCollection } from './declared.js';
import { coreCollections } from './registry.js';

/** The `meta` key holding the config `collections` of whoever serves the file's baseline. */
const servedKey = 'declared_collections';

/**
 * Every baseline collection a database serves: the core ones and those the config declares,
 * numbered by the database (so a server, `mockapi export` and `mockapi import` on one file agree).
 * The declarations are recorded in the file: whoever loads and serves its baseline says which
 * collections it holds, and a command run without that config reads them back (`servedCollections`).
 */
export function baselineCollections(sqlite: Sqlite, declared: Record<string, DeclaredCollection>): CollectionDefinition[] {
  const text = JSON.stringify(declared);
  if (readServed(sqlite) !== text) {
    sqlite.prepare(`INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`).run(servedKey, text);
  }
  return collectionsOf(sqlite, declared, readRecords);
}

/**
 * The collections of a file whose baseline is already loaded, as its server serves them: the
 * declarations recorded with it, whatever the command's own config says (a command must not
 * serve other collections than the server on the same file: rebuilding the search index without
 * the server's would break its search). Fields of a collection without a schema are read from the
 * baseline rows, as the server read them from the fixture. `disagreement` says how the command's
 * config (`configFile` set) differs. A file recorded nothing before this existed: the config's then.
 */
export function servedCollections(
  sqlite: Sqlite,
  config: { collections: Record<string, DeclaredCollection>; configFile?: string },
): { collections: CollectionDefinition[]; disagreement?: string } {
  const served = readServed(sqlite);
  if (served === undefined) return { collections: collectionsOf(sqlite, config.collections, readRecords) };
  const declared = JSON.parse(served) as Record<string, DeclaredCollection>;
  const disagreement =
    config.configFile !== undefined && shape(declared) !== shape(config.collections)
      ? `the config declares the collections ${names(config.collections)}, the database serves ${names(declared)} (its server's config): using the database's`
      : undefined;
  const rows = sqlite.prepare(`SELECT doc FROM base WHERE cid = ?`).pluck();
  const records = (_file: string, cid: number) => (rows.all(cid) as string[]).map((doc) => JSON.parse(doc) as unknown);
  return { collections: collectionsOf(sqlite, declared, records), disagreement };
}

function collectionsOf(sqlite: Sqlite, declared: Record<string, DeclaredCollection>, records: DeclareOptions['records']): CollectionDefinition[] {
  if (!Object.keys(declared).length) return coreCollections;
  const numbers = collectionNumbers(sqlite, Object.keys(declared));
  return declareCollections(declared, { core: coreCollections, numbers, records });
}

function readServed(sqlite: Sqlite): string | undefined {
  return sqlite.prepare(`SELECT value FROM meta WHERE key = ?`).pluck().get(servedKey) as string | undefined;
}

/** What two configs must share to serve the same collections (fixture paths differ from folder to folder). */
const shape = (declared: Record<string, DeclaredCollection>) => JSON.stringify(Object.entries(declared).map(([name, { fixture: _, ...rest }]) => [name, rest]));
const names = (declared: Record<string, DeclaredCollection>) => (Object.keys(declared).length ? Object.keys(declared).join(', ') : 'none');

/** A fixture's records for working out its fields; the baseline loader reports a file that is broken. */
function readRecords(file: string): unknown[] | undefined {
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}
