import { readFileSync } from 'node:fs';
import type { Sqlite } from '../db/open.js';
import { collectionNumbers } from '../engine/collection-numbers.js';
import type { CollectionDefinition } from '../engine/definition.js';
import { declareCollections, type DeclaredCollection } from './declared.js';
import { coreCollections } from './registry.js';

/**
 * Every baseline collection a database serves: the core ones and those the config declares,
 * numbered by the database (so a server, `mockapi export` and `mockapi import` on one file agree).
 */
export function baselineCollections(sqlite: Sqlite, declared: Record<string, DeclaredCollection>): CollectionDefinition[] {
  if (!Object.keys(declared).length) return coreCollections;
  const numbers = collectionNumbers(sqlite, Object.keys(declared));
  return declareCollections(declared, { core: coreCollections, numbers, records: readRecords });
}

/** A fixture's records for working out its fields; the baseline loader reports a file that is broken. */
function readRecords(file: string): unknown[] | undefined {
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}
