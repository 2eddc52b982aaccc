import { authorizeCollections, type Action, type Caller } from '../auth/authorize.js';
import { invalidQuery, notFound } from '../errors.js';
import { parseRecordId } from './record-id.js';
import type { CollectionStore, Json, StoreContext } from './collection-store.js';
import type { CollectionDefinition, Relation } from './definition.js';
import { listPage, type Pagination } from './list-page.js';
import { listParamsToSearch, parseListQuery, parseRelationsQuery, type ListParams, type ListQuery, type Relations } from './list-query.js';
import { relatedOf } from './relations.js';
import { maxRelated } from '../db/merged-view.js';

export type { ListParams };

/** A list as objects: what GraphQL resolvers and custom routes get (REST keeps the JSON text). */
export interface ListResult {
  data: Json[];
  pagination: Pagination;
}

export interface SandboxViewOptions {
  /** The largest `limit` a list accepts (`limits.maxPageSize` for REST and custom routes; 100 for GraphQL). */
  maxPageSize?: number;
  /** Who asks (`engine.for`): every operation is authorized for it first, with the one decision of `auth/authorize.ts`. */
  caller?: Caller;
}

/** What the engine lends a sandbox view: its stores and the statements behind them. */
export interface ViewDeps {
  context: StoreContext;
  store: (name: string) => CollectionStore | undefined;
}

/** Parents per batched statement with list arguments; the count is padded so few statement shapes exist. */
const batchSize = 256;

/**
 * The engine bound to one sandbox (STYLE.md "One way into the engine"; contract section 19's
 * `ctx.collection(name)`): list queries as plain objects with the REST parameter names, records as
 * objects, relations as engine operations. Every operation goes through the collection store, so
 * rules, caps, validation and change events are those of REST. The batch operations (`getMany`,
 * `relatedMany`) serve GraphQL's per-request loaders: one statement for many parents.
 */
export function createSandboxView(deps: ViewDeps, sandbox: string, options: SandboxViewOptions = {}) {
  const { context } = deps;
  const maxPageSize = options.maxPageSize ?? 200;
  const { caller } = options;
  /** The collection and those the operation adds (`_embed`, `_expand`, a relation), each with the action's scope. */
  const authorize = (collections: string[], action: Action) => caller && authorizeCollections(caller, collections, action);
  const queryOf = (definition: CollectionDefinition, params?: ListParams): ListQuery =>
    parseListQuery(listParamsToSearch(params), maxPageSize, definition);
  const toResult = (page: { json: string; pagination: Pagination }): ListResult => ({ data: JSON.parse(page.json) as Json[], pagination: page.pagination });
  const missingIn = (definition: CollectionDefinition, id: unknown) => notFound(`${definition.singular} ${JSON.stringify(id)} does not exist in this sandbox`);

  function collection(name: string) {
    const store = deps.store(name);
    if (!store) throw notFound(`no collection named "${name}"`);
    const { definition } = store;
    const targetsOf = (query: ListQuery) =>
      [...query.embed, ...query.expand].map((relation) => definition.relations.find((r) => r.name === relation)?.collection ?? relation);
    const missing = (id: unknown) => missingIn(definition, id);
    const relationOf = (relationName: string): Relation => {
      const relation = definition.relations.find((r) => r.name === relationName);
      if (!relation) throw notFound(`${definition.name} have no relation "${relationName}"`);
      return relation;
    };
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
      /** The record, or undefined when this sandbox cannot see it. */
      async get(id: unknown): Promise<Json | undefined> {
        authorize([name], 'read');
        return store.get(sandbox, id);
      },
      async create(body: Json): Promise<Json> {
        authorize([name], 'write');
        return store.create(sandbox, body);
      },
      /** JSON merge patch; an invisible record throws 404. */
      async patch(id: unknown, body: Json): Promise<Json> {
        authorize([name], 'write');
        const record = store.patch(sandbox, id, body);
        if (!record) throw missing(id);
        return record;
      },
      /** PUT; an invisible record throws 404. */
      async replace(id: unknown, body: Json): Promise<Json> {
        authorize([name], 'write');
        const record = store.replace(sandbox, id, body);
        if (!record) throw missing(id);
        return record;
      },
      /** Returns the record as it was; an invisible record throws 404. */
      async remove(id: unknown): Promise<Json> {
        authorize([name], 'delete');
        const record = store.remove(sandbox, id);
        if (!record) throw missing(id);
        return record;
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
      /**
       * A sub-resource as REST sends it, JSON text straight from the store (`/posts/1/comments`:
       * the list envelope with every list parameter; `/posts/1/user`: the record, with
       * `_embed`/`_expand`). The parent must be visible in the sandbox, and so must a `one`
       * relation's record: else 404.
       */
      relatedJson(id: unknown, relationName: string, search: URLSearchParams, relations?: Relations): string {
        const relation = relationOf(relationName);
        const target = deps.store(relation.collection);
        if (!target) throw notFound(`no collection named "${relation.collection}"`);
        const parent = store.get(sandbox, id);
        if (!parent) throw missing(id);
        if (relation.kind === 'one') {
          const names = parseRelationsQuery(search, target.definition, relations);
          const json = parent[relation.field] === undefined ? undefined : target.getJson(sandbox, parent[relation.field], names);
          if (json === undefined) throw missingIn(target.definition, parent[relation.field] ?? null);
          return json;
        }
        const query = parseListQuery(search, maxPageSize, target.definition, relations);
        const page = target.list(sandbox, childQueryFrom(query, relation, [parent[relation.key ?? 'id']]));
        return `{"data":${page.json},"pagination":${JSON.stringify(page.pagination)}}`;
      },
      /** Records by id in one statement, in the order asked; undefined where this sandbox sees none. */
      async getMany(ids: readonly unknown[]): Promise<(Json | undefined)[]> {
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
      async relatedMany(records: readonly Json[], relationName: string, params?: ListParams): Promise<(Json[] | Json | null)[]> {
        const relation = relationOf(relationName);
        const target = deps.store(relation.collection);
        if (!target) return records.map(() => (relation.kind === 'many' ? [] : null));
        const sid = context.sandboxes.sidOf(sandbox);
        const plain = !params || Object.values(params).every((v) => v === undefined || v === null);
        if (relation.kind === 'one' || plain) return relatedOf(context, sid, relation, [...records]) ?? [];
        if (params.cursor !== undefined && params.cursor !== null) throw invalidQuery('cursor', 'is not taken by a relation list: list the collection itself to walk with cursors');
        const key = relation.key ?? 'id';
        const base = queryOf(target.definition, params);
        const out = new Map<unknown, Json[]>();
        const keys = [...new Set(records.map((r) => r[key]).filter((k) => typeof k === 'number' || typeof k === 'string'))];
        for (let start = 0; start < keys.length; start += batchSize) {
          const chunk = keys.slice(start, start + batchSize);
          // Padded to a power of two (repeating a key) so the compiled statements stay few.
          const padded = [...chunk];
          while (padded.length & (padded.length - 1)) padded.push(chunk[0]);
          const query = childQuery(relation, target.definition, padded, { ...params, page: undefined, limit: undefined });
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

  return { sandbox, collection };
}

/** Restricts a list of the relation's target to the children of `keys` (the sub-resource's filter). */
function childQueryFrom(query: ListQuery, relation: Relation, keys: unknown[]): ListQuery {
  query.filters.push({ field: relation.field, op: 'eq', values: keys.filter((k): k is string | number => typeof k === 'number' || typeof k === 'string') });
  return query;
}

export type SandboxView = ReturnType<typeof createSandboxView>;
export type SandboxCollection = ReturnType<SandboxView['collection']>;
