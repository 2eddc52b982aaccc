import type { CollectionDefinition, JsonSchema, Relation } from '../engine/definition.js';
import { compileUserSchema } from '../engine/validate.js';
import { recordRef } from './_fields.js';

/** A collection as the config's `collections` declares it (contract section 10). */
export interface DeclaredCollection {
  /** An absolute path once the config is resolved. */
  fixture: string;
  schema?: Record<string, unknown>;
  search?: string[];
  relations?: Record<string, { belongsTo: string; key: string }>;
}

/**
 * Names a declared collection may not take: paths the app serves (or the contract reserves) under
 * `/api/v1` beside the collections, so `/api/v1/{name}` can only ever mean the collection.
 */
export const reservedCollectionNames = [
  'auth',
  'avatars',
  'custom',
  'docs',
  'events',
  'files',
  'graphql',
  'health',
  'inbox',
  'inspector',
  'json-server',
  'metrics',
  'openapi',
  'payments',
  'sandbox',
  'telemetry',
  'webhooks',
] as const;

/** A field name a relation key or a search field may use: dotted words, safe in a JSON path. */
const fieldPath = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$/;

/** A declared collection that cannot be served; the message starts with the key's config path. */
export class DeclaredCollectionError extends Error {
  override name = 'DeclaredCollectionError';
}

/**
 * The singular of a plural collection name, for event names (`invoice.created`) and messages:
 * English's regular plurals (`categories` → `category`, `boxes` → `box`, `invoices` → `invoice`);
 * a name that is no regular plural (`data`, `address`) is its own singular.
 */
export function singularOf(name: string): string {
  if (/[^aeiou]ies$/.test(name)) return `${name.slice(0, -3)}y`;
  if (/(?:ss|sh|ch|x|z)es$/.test(name)) return name.slice(0, -2);
  if (/[^su]s$/.test(name)) return name.slice(0, -1);
  return name;
}

export interface DeclareOptions {
  /** The collections already served (the core ones), which declared ones may point at. */
  core: readonly CollectionDefinition[];
  /** Each declared name's stable collection number (engine/collection-numbers.ts). */
  numbers: ReadonlyMap<string, number>;
  /**
   * The records of a fixture file (or of the baseline holding collection `cid`), or undefined when
   * it cannot be read yet (the baseline loader then reports it): without a `schema`, the fields
   * that filters, `_sort` and `q` know come from them.
   */
  records?: (file: string, cid: number) => unknown[] | undefined;
}

/**
 * Turns the config's `collections` into collection definitions, served by the same engine as the
 * core ones. Returns every baseline collection: the core ones (copies, with the inverse of each
 * relation that points at them added: `users` gains `invoices`) followed by the declared ones.
 * The core definition objects are never changed.
 */
export function declareCollections(declared: Record<string, DeclaredCollection>, options: DeclareOptions): CollectionDefinition[] {
  const core = options.core.map((definition) => ({ ...definition, relations: [...definition.relations] }));
  const taken = new Set(core.flatMap((c) => [c.name, c.singular]));
  const own: CollectionDefinition[] = [];
  for (const [name, collection] of Object.entries(declared)) {
    const at = `collections.${name}`;
    if (taken.has(name) || (reservedCollectionNames as readonly string[]).includes(name)) {
      throw new DeclaredCollectionError(`${at}: "${name}" is taken by a core collection or another route under /api/v1; choose another name`);
    }
    const cid = options.numbers.get(name);
    if (cid === undefined) throw new DeclaredCollectionError(`${at}: has no collection number`);
    own.push(toDefinition(name, collection, cid, options.records?.(collection.fixture, cid)));
  }
  const all = [...core, ...own];
  const byName = new Map(all.map((c) => [c.name, c]));
  // Each belongsTo gives its inverse on the target: `invoices.user` → `users.invoices`.
  for (const definition of own) {
    for (const relation of definition.relations) {
      const at = `collections.${definition.name}.relations.${relation.name}`;
      const target = byName.get(relation.collection);
      if (!target) {
        throw new DeclaredCollectionError(`${at}.belongsTo: "${relation.collection}" is no collection (one of ${[...byName.keys()].join(', ')})`);
      }
      if (target.relations.some((r) => r.name === definition.name)) {
        throw new DeclaredCollectionError(`${at}: ${target.name} already has a relation named "${definition.name}" (one belongsTo per target collection)`);
      }
      target.relations.push({ name: definition.name, kind: 'many', collection: definition.name, field: relation.field });
    }
  }
  return all;
}

function toDefinition(name: string, collection: DeclaredCollection, cid: number, records: unknown[] | undefined): CollectionDefinition {
  const at = `collections.${name}`;
  const relations: Relation[] = Object.entries(collection.relations ?? {}).map(([relation, { belongsTo, key }]) => {
    if (!fieldPath.test(key) || key.includes('.')) throw new DeclaredCollectionError(`${at}.relations.${relation}.key: "${key}" must be a top-level field name`);
    if (key === 'id') throw new DeclaredCollectionError(`${at}.relations.${relation}.key: must name the field holding the other record's id, not "id"`);
    return { name: relation, kind: 'one', collection: belongsTo, field: key };
  });
  const keys = new Set(relations.map((r) => r.field));

  const given = collection.schema as JsonSchema | undefined;
  if (given !== undefined && given.type !== undefined && given.type !== 'object') {
    throw new DeclaredCollectionError(`${at}.schema: must describe an object (its "type" is ${JSON.stringify(given.type)})`);
  }
  // `id` and `_sandbox` are the server's: bodies may carry them (ignored, as on core collections).
  const { id: _id, _sandbox, ...properties } = given?.properties ?? {};
  for (const key of keys) properties[key] = recordRef;
  const schema: JsonSchema = {
    ...given,
    type: 'object',
    properties,
    required: (given?.required ?? []).filter((field) => field !== 'id' && field !== '_sandbox'),
  };
  try {
    compileUserSchema(schema);
  } catch (error) {
    throw new DeclaredCollectionError(`${at}.schema: not a usable JSON Schema: ${(error as Error).message}`);
  }

  const fields: Record<string, JsonSchema> = given?.properties ? properties : { ...inferFields(records ?? []), ...Object.fromEntries([...keys].map((k) => [k, recordRef])) };
  for (const field of collection.search ?? []) {
    if (!fieldPath.test(field)) throw new DeclaredCollectionError(`${at}.search: "${field}" is not a field name (letters, digits and _, dotted for nested fields)`);
  }
  const searchable = collection.search ?? Object.keys(fields).filter((field) => isText(fields[field]!) && !keys.has(field));

  return {
    name,
    singular: singularOf(name),
    cid,
    fields,
    required: schema.required as string[],
    foreignKeys: relations.map((r) => ({ field: r.field, references: r.collection })),
    unique: [],
    searchable,
    relations,
    schema,
    fixture: collection.fixture,
  };
}

const isText = (schema: JsonSchema) => schema.type === 'string' || (Array.isArray(schema.type) && schema.type.includes('string'));

/**
 * Without a schema, the record's shape is read from the fixture: each top-level field whose
 * values (nulls aside) all have one scalar JSON type. Mixed or nested fields are left out; they
 * are stored and served all the same, only not filtered, sorted or searched by default.
 */
export function inferFields(records: unknown[]): Record<string, JsonSchema> {
  const kinds = new Map<string, string | null>();
  for (const record of records) {
    if (typeof record !== 'object' || record === null || Array.isArray(record)) continue;
    for (const [field, value] of Object.entries(record)) {
      if (field === 'id' || field === '_sandbox' || value === null || value === undefined) continue;
      const kind = typeof value === 'string' ? 'string' : typeof value === 'boolean' ? 'boolean' : Number.isInteger(value) ? 'integer' : typeof value === 'number' ? 'number' : null;
      const seen = kinds.get(field);
      if (seen === undefined) kinds.set(field, kind);
      else if (seen !== kind) kinds.set(field, seen && kind && [seen, kind].every((k) => k === 'integer' || k === 'number') ? 'number' : null);
    }
  }
  return Object.fromEntries([...kinds].filter(([, kind]) => kind !== null).map(([field, kind]) => [field, { type: kind! }]));
}
