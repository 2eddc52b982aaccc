import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { OpenDatabase } from '../db/open.js';
import type { CollectionDefinition } from './definition.js';
import { createRecordValidator } from './validate.js';
import { maxPackedNumber, type SearchIndex } from '../db/search-index.js';
import type { SandboxStore } from './sandbox-store.js';
import { parseRecordId } from './record-id.js';

/** A fixture file that cannot be the baseline; the message names the file and the record. */
export class FixtureError extends Error {
  override name = 'FixtureError';
}

interface FixtureFiles {
  hash: string;
  /** Each collection's file path and raw text (`[]` when it has no file). */
  files: Map<CollectionDefinition, { file: string; text: string }>;
}

/**
 * Loads `<fixtures>/<collection>.json` into the `base` table when the file set changed since the
 * last load (by content hash), in one transaction, so a restart on an existing database skips it.
 * A collection without a file has an empty baseline. Returns whether the table was rewritten.
 * The engine's search index is rewritten for the baseline in the same transaction, and so are the
 * sandboxes' changed copies and tombstones of records that left it: they go with the record.
 */
export function loadBaseline(
  db: OpenDatabase,
  folder: string,
  definitions: CollectionDefinition[],
  engine: { search: SearchIndex; sandboxes: SandboxStore },
): boolean {
  // Hash the raw files first: an unchanged baseline (every restart) skips parsing and validation.
  const fixtures = readFixtureFiles(folder, definitions);
  const stored = db.sqlite.prepare(`SELECT value FROM meta WHERE key = 'baseline_hash'`).pluck().get();
  if (stored === fixtures.hash) return false;
  const records = checkFixtures(fixtures);

  const insert = db.sqlite.prepare(`INSERT INTO base (cid, id, doc) VALUES (?, ?, ?)`);
  db.sqlite.transaction(() => {
    db.sqlite.prepare(`DELETE FROM base`).run();
    for (const [definition, list] of records) {
      for (const record of list) insert.run(definition.cid, record.id as number, JSON.stringify(record));
    }
    engine.search.reindexBaseline();
    engine.sandboxes.forgetRemovedBaseline();
    db.sqlite
      .prepare(`INSERT INTO meta (key, value) VALUES ('baseline_hash', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`)
      .run(fixtures.hash);
  })();
  return true;
}

/** Reads every fixture file as text and hashes them with the definitions they are checked against. */
export function readFixtureFiles(folder: string, definitions: CollectionDefinition[]): FixtureFiles {
  const hash = createHash('sha256').update(JSON.stringify(definitions));
  const files = new Map<CollectionDefinition, { file: string; text: string }>();
  for (const definition of definitions) {
    const file = fixtureFile(folder, definition);
    // A core collection without a file has an empty baseline; a declared one names its file, so it must be there.
    if (definition.fixture && !existsSync(file)) throw new FixtureError(`${file}: fixture file of collection ${definition.name} not found`);
    const text = existsSync(file) ? readFileSync(file, 'utf8') : '[]';
    hash.update(`\0${definition.name}\0${text}`);
    files.set(definition, { file, text });
  }
  return { hash: hash.digest('hex'), files };
}

/** `posts.json record #4 (index 3, id 4)`: the place an editor counts from 1, the array index, and the id once it is known good. */
function recordAt(file: string, index: number, id?: unknown): string {
  return `${file} record #${index + 1} (index ${index}${id === undefined ? '' : `, id ${id}`})`;
}

/**
 * A warning when `folder` holds the file of none of the collections it supplies (those without a
 * `fixture` of their own): they would all start empty, most likely a wrong folder or file name.
 */
export function noFixtureWarning(folder: string, definitions: CollectionDefinition[]): string | undefined {
  const files = definitions.filter((definition) => !definition.fixture).map((definition) => fixtureFile(folder, definition));
  if (!files.length || files.some((file) => existsSync(file))) return undefined;
  return `${folder} holds no collection file (${files.map((file) => basename(file)).join(', ')}): they start empty`;
}

/** Where a collection's baseline records are: its own `fixture` file, else `<fixtures>/<name>.json`. */
export function fixtureFile(folder: string, definition: CollectionDefinition): string {
  return definition.fixture ?? join(folder, `${definition.name}.json`);
}

/** Parses and checks every fixture file: JSON arrays, integer ids, valid fields, valid foreign keys. */
export function checkFixtures(fixtures: FixtureFiles): Map<CollectionDefinition, Record<string, unknown>[]> {
  const records = new Map<CollectionDefinition, Record<string, unknown>[]>();
  const idsByCollection = new Map<string, Set<number>>();

  for (const [definition, { file, text }] of fixtures.files) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new FixtureError(`${file}: not valid JSON (${(error as Error).message})`);
    }
    if (!Array.isArray(parsed)) throw new FixtureError(`${file}: must be a JSON array of records`);
    const validate = createRecordValidator(definition);
    const ids = new Set<number>();
    parsed.forEach((record: unknown, index) => {
      if (typeof record !== 'object' || record === null || Array.isArray(record)) throw new FixtureError(`${recordAt(file, index)}: must be an object`);
      const { id, ...fields } = record as Record<string, unknown>;
      if (!Number.isSafeInteger(id) || (id as number) < 1 || (id as number) > maxPackedNumber) {
        throw new FixtureError(`${recordAt(file, index)}: "id" must be an integer from 1 to ${maxPackedNumber}`);
      }
      if (ids.has(id as number)) throw new FixtureError(`${recordAt(file, index)}: duplicate id ${id}`);
      ids.add(id as number);
      const problems = validate(fields);
      if (problems.length) throw new FixtureError(`${recordAt(file, index, id)}: ${problems[0].path} ${problems[0].message}`);
    });
    idsByCollection.set(definition.name, ids);
    records.set(definition, parsed as Record<string, unknown>[]);
  }

  for (const [definition, list] of records) {
    const { file } = fixtures.files.get(definition)!;
    for (const key of definition.foreignKeys) {
      const targets = idsByCollection.get(key.references);
      for (const [index, record] of list.entries()) {
        // An optional key left out (a declared collection's) points nowhere; validation caught required ones.
        if (record[key.field] === undefined) continue;
        // Stored as the API would store it: `"11"` and `11` name the same record, kept as 11.
        const value = parseRecordId(record[key.field]);
        if (typeof value !== 'number' || !targets?.has(value)) {
          throw new FixtureError(`${recordAt(file, index, record.id)}: ${key.field} ${record[key.field]} names no record of ${key.references}`);
        }
        record[key.field] = value;
      }
    }
  }
  return records;
}
