import { authorizeCollections, type Action, type Caller } from '../auth/authorize.js';
import { invalidQuery, notFound } from './errors.js';
import { parseRecordId } from './record-id.js';
import type { CollectionStore, Json, StoreContext } from './collection-store.js';
import type { CollectionDefinition, Relation } from './definition.js';
import { listPage, type Pagination } from './list-page.js';
import { listQueryFrom, objectParams, parseListQuery, type ListArgs, type ListParams, type ListQuery, type Relations } from './list-query.js';
import { relatedOf } from './relations.js';
import { maxRelated } from '../db/merged-view.js';
import type { AnswerCache } from './answer-cache.js';
import { customPrefix, type CustomCollections } from './custom-collections.js';

export type { ListParams };

/** A list as objects: what GraphQL resolvers and custom routes get (REST keeps the JSON text). */
export interface ListResult {
  data: Json[];
  pagination: Pagination;
}

export interface SandboxViewOptions {
  /** The largest `limit` a list accepts (`limits.maxPageSize` for REST and custom routes; 100 for GraphQL). */
  maxPageSize?: number;
}

/** What the engine lends a sandbox view: its stores and the statements behind them. */
export interface ViewDeps {
  context: StoreContext;
  store: (name: string) => CollectionStore | undefined;
  answers: AnswerCache;
  /** Whole-collection operations of the sandbox's custom collections (table export and import). */
  custom: Pick<CustomCollections, 'records' | 'importRecords'>;
}

/** A write's body, asked for once the caller is authorized: REST reads the request body only then. */
export type BodyOf = () => Json | Promise<Json>;

/** Parents per batched statement with list arguments; the count is padded so few statement shapes exist. */
const batchSize = 256;

/**
 * The engine bound to one sandbox (STYLE.md "One way into the engine"; contract section 19's
 * `ctx.collection(name)`): list queries as plain objects with the REST parameter names, records as
 * objects, relations as engine operations. Every operation goes through the collection store, so
 * rules, caps, validation and change events are those of REST. The batch operations (`getMany`,
 * `relatedMany`) serve GraphQL's per-request loaders: one statement for many parents.
 *
 * A class, so `engine.for(ctx)` on every REST read costs one object and no closures. The REST reads (`listJson`, `recordJson`, `relatedJson`) take the typed query the REST adapter
 * parsed, authorize it (the collection and what it embeds or expands) and answer from the answer
 * cache, whose keys are made here from the typed query: JSON text straight from the store. The
 * writes (`create`, `replace`, `patch`, `remove`, a custom collection's table import) authorize
 * the caller before they ask for the body, so REST's routes only read the request and shape the answer.
 */
export class SandboxView {
  readonly maxPageSize: number;
  constructor(
    readonly deps: ViewDeps,
    readonly sandbox: string,
    options: SandboxViewOptions | undefined,
    /** Who asks (`engine.for`): every operation is authorized for it first, with the one decision of `auth/authorize.ts`. */
    readonly caller?: Caller,
  ) {
    this.maxPageSize = options?.maxPageSize ?? 200;
  }

  /** One page of a collection as REST sends it (`{"data":[...],"pagination":{...}}`). */
  listJson(name: string, query: ListQuery): string {
    const store = this.storeOf(name);
    this.authorizeRead(store.definition, name, undefined, query);
    return this.cached(`L ${name} ${keyOf(query)}`, () => listEnvelope(store.list(this.sandbox, query)), readFrom(store.definition, query));
  }

  /** One record as REST sends it, with its `_embed`/`_expand`; an invisible record throws 404. */
  recordJson(name: string, id: string, relations: Relations): string {
    const store = this.storeOf(name);
    this.authorizeRead(store.definition, name, undefined, relations);
    return this.cached(
      `R ${name} ${id} ${relations.embed.join(',')} ${relations.expand.join(',')}`,
      () => {
        const json = store.getJson(this.sandbox, id, [...relations.embed, ...relations.expand]);
        if (json === undefined) throw missingIn(store.definition, id);
        return json;
      },
      readFrom(store.definition, relations),
    );
  }

  /**
   * A sub-resource as REST sends it (`/posts/1/comments`: the list envelope, `query` a list query of
   * the target; `/posts/1/user`: the record, `query` its `_embed`/`_expand`). The parent must be
   * visible in the sandbox, and so must a `one` relation's record: else 404.
   */
  relatedJson(name: string, id: string, relationName: string, query: ListQuery | Relations): string {
    const store = this.storeOf(name);
    const relation = relationIn(store.definition, relationName);
    const target = this.storeOf(relation.collection);
    this.authorizeRead(target.definition, name, relation.collection, query);
    const sandbox = this.sandbox;
    return this.cached(
      `S ${name} ${id} ${relationName} ${keyOf(query)}`,
      () => {
        const parent = store.get(sandbox, id);
        if (!parent) throw missingIn(store.definition, id);
        if (relation.kind === 'one') {
          const json = parent[relation.field] === undefined ? undefined : target.getJson(sandbox, parent[relation.field], [...query.embed, ...query.expand]);
          if (json === undefined) throw missingIn(target.definition, parent[relation.field] ?? null);
          return json;
        }
        return listEnvelope(target.list(sandbox, childQueryFrom(query as ListQuery, relation, [parent[relation.key ?? 'id']])));
      },
      readFrom(target.definition, query, store.definition.name),
    );
  }

  /**
   * The answer of a read-only GraphQL document, in the same cache as REST's: keyed by the request
   * that carries the document and its variables (`request`), the caller's role and scopes, and the
   * sandbox. The scopes, not only the role: a hit skips the resolvers, whose checks are the
   * authorization (two personas of one role may hold different scopes). A hit is not a promise.
   */
  graphqlAnswer(request: string, produce: () => Promise<{ body: string; keep: boolean }>): string | Promise<string> {
    const caller = this.caller;
    const who = !caller || caller.role === 'owner' ? 'owner' : `${caller.role} ${JSON.stringify(caller.scopes)}`;
    return this.deps.answers.answerLater(this.sandbox, who, `G ${request}`, produce);
  }

  /** Creates a record; `body` is read only once the caller may write (a refused caller's body is never parsed). */
  create(name: string, body: BodyOf): Promise<Json> {
    return this.write(name, undefined, body, (store, record) => store.create(this.sandbox, record));
  }

  /** PUT; an invisible record throws 404. */
  replace(name: string, id: unknown, body: BodyOf): Promise<Json> {
    return this.write(name, id, body, (store, record) => store.replace(this.sandbox, id, record));
  }

  /** JSON merge patch; an invisible record throws 404. */
  patch(name: string, id: unknown, body: BodyOf): Promise<Json> {
    return this.write(name, id, body, (store, record) => store.patch(this.sandbox, id, record));
  }

  /** `create`, answered as REST sends it: the record's JSON text as the write stored it (no second serialisation). */
  createJson(name: string, body: BodyOf): Promise<string> {
    return this.write(name, undefined, body, (store, record) => store.createJson(this.sandbox, record));
  }

  /** `replace`, answered as the record's stored JSON text. */
  replaceJson(name: string, id: unknown, body: BodyOf): Promise<string> {
    return this.write(name, id, body, (store, record) => store.replaceJson(this.sandbox, id, record));
  }

  /** `patch`, answered as the record's stored JSON text. */
  patchJson(name: string, id: unknown, body: BodyOf): Promise<string> {
    return this.write(name, id, body, (store, record) => store.patchJson(this.sandbox, id, record));
  }

  /** A write: the caller authorized, then `body` read and `apply`ed; nothing written (an invisible `id`) is 404. */
  private async write<T>(name: string, id: unknown, body: BodyOf, apply: (store: CollectionStore, record: Json) => T | undefined): Promise<T> {
    const store = this.allowed(name, 'write');
    return apply(store, await body()) ?? throwMissing(store.definition, id);
  }

  /** Deletes the record and returns it as it was; an invisible record throws 404. */
  remove(name: string, id: unknown): Json {
    const store = this.allowed(name, 'delete');
    return store.remove(this.sandbox, id) ?? throwMissing(store.definition, id);
  }

  /** Every record of the custom collection `name` (`invoices`), oldest first: what its export holds. */
  customRecords(name: string): Json[] {
    this.allowed(customPrefix + name, 'read');
    return this.deps.custom.records(this.sandbox, name);
  }

  /** Creates records of the custom collection `name` in order, all or none (a table import); `records` are read only once the caller may write. */
  async importCustom(name: string, records: () => Promise<Json[]>): Promise<Json[]> {
    this.allowed(customPrefix + name, 'write');
    return this.deps.custom.importRecords(this.sandbox, name, await records());
  }

  /** The collection, once the caller may do `action` to it (`<collection>:<action>`; a custom one's `<name>:` or `custom:`). */
  private allowed(name: string, action: Action): CollectionStore {
    const store = this.storeOf(name);
    if (this.caller) authorizeCollections(this.caller, [name], action);
    return store;
  }

  /** The collection by its registry name, 404 when there is none. */
  storeOf(name: string): CollectionStore {
    const store = this.deps.store(name);
    if (!store) throw notFound(`no collection named "${name}"`);
    return store;
  }

  /** A read needs `<collection>:read` of each collection named and of each it embeds or expands. */
  private authorizeRead(definition: CollectionDefinition, name: string, parent: string | undefined, relations: Relations): void {
    const caller = this.caller;
    if (!caller || caller.role === 'owner') return;
    const names = parent === undefined ? [name] : [name, parent];
    for (const relation of relations.embed) names.push(relationIn(definition, relation).collection);
    for (const relation of relations.expand) names.push(relationIn(definition, relation).collection);
    authorizeCollections(caller, names, 'read');
  }

  /** The answer cache of this sandbox, for the caller's role (the caller was authorized first); `from`: the collections the answer reads. */
  private cached(key: string, produce: () => string, from: readonly string[]): string {
    return this.deps.answers.answer(this.sandbox, this.caller?.role ?? 'owner', key, produce, from);
  }

  /** The engine bound to one of its collections, as objects (GraphQL's resolvers, custom routes' `ctx.collection`). */
  collection(name: string) {
    return collectionOf(this, name);
  }
}

/** The key of a typed query in the answer cache: the text it was parsed from, else the object itself. */
const keyOf = (query: ListQuery | Relations): string =>
  'source' in query && query.source !== undefined ? query.source : JSON.stringify(query);

/**
 * The collections an answer of `definition` with these relations reads (the answer cache drops it
 * when a record of one is written): by their definitions' names, which the change events carry.
 * Without relations, one array per collection, so a cache hit allocates none.
 */
function readFrom(definition: CollectionDefinition, relations: Relations, also?: string): readonly string[] {
  if (!relations.embed.length && !relations.expand.length && also === undefined) {
    let names = alone.get(definition);
    if (!names) alone.set(definition, (names = Object.freeze([definition.name])));
    return names;
  }
  const names = [definition.name, ...[...relations.embed, ...relations.expand].map((relation) => relationIn(definition, relation).collection)];
  if (also !== undefined) names.push(also);
  return names;
}
const alone = new WeakMap<CollectionDefinition, readonly string[]>();

const listEnvelope = (page: { json: string; pagination: Pagination }) => `{"data":${page.json},"pagination":${JSON.stringify(page.pagination)}}`;

const missingIn = (definition: CollectionDefinition, id: unknown) => notFound(`${definition.singular} ${JSON.stringify(id)} does not exist in this sandbox`);
const throwMissing = (definition: CollectionDefinition, id: unknown): never => {
  throw missingIn(definition, id);
};

function relationIn(definition: CollectionDefinition, relationName: string): Relation {
  const relation = definition.relations.find((r) => r.name === relationName);
  if (!relation) throw notFound(`${definition.name} have no relation "${relationName}"`);
  return relation;
}

function collectionOf(view: SandboxView, name: string) {
  const { deps, sandbox, maxPageSize, caller } = view;
  const { context } = deps;
  /** The collection and those the operation adds (`_embed`, `_expand`, a relation), each with the action's scope. */
  const authorize = (collections: string[], action: Action) => caller && authorizeCollections(caller, collections, action);
  const queryOf = (definition: CollectionDefinition, params?: ListParams): ListQuery =>
    parseListQuery(objectParams(params), maxPageSize, definition);
  const toResult = (page: { json: string; pagination: Pagination }): ListResult => ({ data: JSON.parse(page.json) as Json[], pagination: page.pagination });
  const store = view.storeOf(name);
  const { definition } = store;
  const targetsOf = (query: ListQuery) =>
    [...query.embed, ...query.expand].map((relation) => definition.relations.find((r) => r.name === relation)?.collection ?? relation);
  const relationOf = (relationName: string): Relation => relationIn(definition, relationName);
  /** A list of the relation's target restricted to children of `keys` (the sub-resource's filter). */
  const childQuery = (relation: Relation, target: CollectionDefinition, keys: unknown[], params?: ListParams): ListQuery =>
    childQueryFrom(queryOf(target, params), relation, keys);

  return {
    definition,
    /** One page, with every REST list parameter (`{user_id: 1, _sort: '-id', limit: 5}`). Bad ones throw 400 INVALID_QUERY. */
    async list(params?: ListParams): Promise<ListResult> {
      const query = queryOf(definition, params);
      authorize([name, ...targetsOf(query)], 'read');
      return toResult(store.list(sandbox, query));
    },
    /** One page of a list asked with typed arguments (GraphQL's): no query string between. */
    async find(args: ListArgs): Promise<ListResult> {
      authorize([name], 'read');
      return toResult(store.list(sandbox, listQueryFrom(definition, args, maxPageSize)));
    },
    /** The record, or undefined when this sandbox cannot see it. */
    async get(id: unknown): Promise<Json | undefined> {
      authorize([name], 'read');
      return store.get(sandbox, id);
    },
    create: (body: Json): Promise<Json> => view.create(name, () => body),
    /** JSON merge patch; an invisible record throws 404. */
    patch: (id: unknown, body: Json): Promise<Json> => view.patch(name, id, () => body),
    /** PUT; an invisible record throws 404. */
    replace: (id: unknown, body: Json): Promise<Json> => view.replace(name, id, () => body),
    /** Returns the record as it was; an invisible record throws 404. */
    async remove(id: unknown): Promise<Json> {
      return view.remove(name, id);
    },
    /**
     * A sub-resource of one record: `many` relations are a list page (every list parameter, as
     * `/users/1/posts`); `one` relations the parent record, or undefined when it is not visible.
     */
    async related(record: Json, relationName: string, params?: ListParams): Promise<ListResult | Json | undefined> {
      const relation = relationOf(relationName);
      const target = deps.store(relation.collection);
      if (!target) return undefined;
      if (relation.kind === 'one') return record[relation.field] === undefined ? undefined : target.get(sandbox, record[relation.field]);
      return toResult(target.list(sandbox, childQuery(relation, target.definition, [record[relation.key ?? 'id']], params)));
    },
    /** Records by id in one statement, in the order asked; undefined where this sandbox sees none. */
    async getMany(ids: readonly unknown[]): Promise<(Json | undefined)[]> {
      authorize([name], 'read');
      const records = ids.map((id) => ({ id: parseRecordId(id) }));
      const found = relatedOf(context, context.sandboxes.sidOf(sandbox), { name: 'self', kind: 'one', collection: definition.name, field: 'id' }, records);
      return (found ?? []).map((record) => (record as Json | null) ?? undefined);
    },
    /**
     * A relation of many records at once, one statement per batch. `one`: each parent or null.
     * `many` without parameters: every child (as `_embed`); with parameters (sort, filters, `q`,
     * `page`, `limit`): each record's page of children, as its sub-resource would list them
     * (the children of all records are read in one list, then cut per record; `cursor` is not
     * offered, as no per-record cursor comes back).
     */
    async relatedMany(records: readonly Json[], relationName: string, args?: ListArgs): Promise<(Json[] | Json | null)[]> {
      const relation = relationOf(relationName);
      authorize([relation.collection], 'read');
      const target = deps.store(relation.collection);
      if (!target) return records.map(() => (relation.kind === 'many' ? [] : null));
      const sid = context.sandboxes.sidOf(sandbox);
      if (relation.kind === 'one' || !args) return relatedOf(context, sid, relation, [...records]) ?? [];
      if (args.cursor !== undefined) throw invalidQuery('cursor', 'is not taken by a relation list: list the collection itself to walk with cursors');
      const key = relation.key ?? 'id';
      const base = listQueryFrom(target.definition, args, maxPageSize);
      const out = new Map<unknown, Json[]>();
      const keys = [...new Set(records.map((r) => r[key]).filter((k) => typeof k === 'number' || typeof k === 'string'))];
      for (let start = 0; start < keys.length; start += batchSize) {
        const chunk = keys.slice(start, start + batchSize);
        // Padded to a power of two (repeating a key) so the compiled statements stay few.
        const padded = [...chunk];
        while (padded.length & (padded.length - 1)) padded.push(chunk[0]);
        const query = childQueryFrom(base, relation, padded);
        const all = JSON.parse(listPage(context, target.definition, sid, { ...query, page: 1, limit: maxRelated }).json) as Json[];
        for (const child of all) {
          const list = out.get(child[relation.field]);
          if (list) list.push(child);
          else out.set(child[relation.field], [child]);
        }
      }
      const from = (base.page - 1) * base.limit;
      return records.map((record) => (out.get(record[key]) ?? []).slice(from, from + base.limit));
    },
  };
}

/** Restricts a list of the relation's target to the children of `keys` (the sub-resource's filter). */
function childQueryFrom(query: ListQuery, relation: Relation, keys: unknown[]): ListQuery {
  // A new object: the REST adapter's parsed queries are shared between requests.
  const filter = { field: relation.field, op: 'eq' as const, values: keys.filter((k): k is string | number => typeof k === 'number' || typeof k === 'string') };
  return { ...query, filters: [...query.filters, filter] };
}

export type SandboxCollection = ReturnType<SandboxView['collection']>;
