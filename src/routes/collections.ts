import { getRouterParam, type H3, type H3Event } from 'h3';
import { sandboxOf } from '../auth/identity.js';
import { contextOf } from '../http/context.js';
import type { CollectionStore } from '../engine/collection-store.js';
import type { Relation } from '../engine/definition.js';
import { parseListQuery, parseRelations, parseRelationsQuery, type ListQuery, type Relations } from '../engine/list-query.js';
import type { CollectionDefinition } from '../engine/definition.js';
import { collectionAccess, type Needed } from '../auth/authorize.js';
import { notFound } from '../errors.js';
import type { Runtime } from '../runtime.js';
import { readJsonObject } from './_body.js';
import { route, sendJson, type MethodHandlers } from './_resource.js';

/**
 * `/api/v1/{collection}`, `/api/v1/{collection}/{id}` and the sub-resources
 * `/api/v1/{collection}/{id}/{relation}`: thin over the engine. Limits are read per request, so
 * a config reload under `--watch` applies at once.
 */
export function addCollectionRoutes(app: H3, runtime: Runtime): void {
  const { engine } = runtime;

  const storeOf = (event: H3Event, name = event.context.params?.collection ?? ''): CollectionStore => {
    const store = engine.collection(name);
    if (!store) throw notFound(`no collection named "${name}"`);
    return store;
  };
  /** The scopes a collection route needs: `<collection>:<action>` of the collection in the path. */
  const scope = (action: 'read' | 'write' | 'delete') => (event: H3Event) => [collectionAccess(event.context.params?.collection ?? '', action).needed];
  /** A read needs `<collection>:read`, and the same of every collection it embeds or expands (parsed once, as the engine reads them). */
  const readScopes = (event: H3Event, name = event.context.params?.collection ?? ''): Needed[] => {
    const definition = storeOf(event, name).definition;
    const { embed, expand } = relationsOf(event, definition);
    const targets = [...embed, ...expand].map((relation) => definition.relations.find((r) => r.name === relation)!.collection);
    return [...new Set([name, ...targets])].map((collection) => collectionAccess(collection, 'read').needed);
  };
  const { list, one, answer, idOf } = collectionResources(runtime, { storeOf, scope, readScopes, isPublic: true, name: '{collection}' });

  const relationOf = (event: H3Event, store: CollectionStore): Relation => {
    const name = event.context.params?.relation ?? '';
    const relation = store.definition.relations.find((r) => r.name === name);
    if (!relation) throw notFound(`${store.definition.name} have no sub-resource "${name}"`);
    return relation;
  };

  /** `/posts/1/comments` lists the parent's children; `/posts/1/user` is the parent's parent. */
  const related: MethodHandlers = {
    GET: {
      // Reading `/users/1/posts` reads posts (and the parent user).
      scope: (event) => [`${event.context.params?.collection ?? ''}:read`, ...readScopes(event, relationOf(event, storeOf(event)).collection)],
      scopeText: '{collection}:read and {relation target}:read, and each collection _embed/_expand names',
      public: true,
      handler: (event) => {
        const store = storeOf(event);
        const relation = relationOf(event, store);
        const sandbox = sandboxOf(event);
        const id = idOf(event);
        const target = storeOf(event, relation.collection).definition;
        return answer(event, sandbox, () =>
          engine
            .forSandbox(sandbox, { maxPageSize: runtime.config.limits.maxPageSize })
            .collection(store.definition.name)
            .relatedJson(id, relation.name, event.url.searchParams, relationsOf(event, target)),
        );
      },
    },
  };

  route(app, '/api/v1/:collection', list, (event) => storeOf(event));
  route(app, '/api/v1/:collection/:id', one, (event) => storeOf(event));
  route(app, '/api/v1/:collection/:id/:relation', related, (event) => relationOf(event, storeOf(event)));
}

declare module 'h3' {
  interface H3EventContext {
    /** `_embed`/`_expand` of the request, parsed once: the guard checks them, the engine adds them. */
    relations?: Relations;
  }
}

const noRelations: Relations = Object.freeze({ embed: Object.freeze([]) as unknown as string[], expand: Object.freeze([]) as unknown as string[] });

/** The request's `_embed`/`_expand` on the collection it reads, parsed once (a request without them parses nothing). */
export function relationsOf(event: H3Event, definition: CollectionDefinition): Relations {
  const search = event.url.search;
  if (!search.includes('_embed') && !search.includes('_expand')) return noRelations;
  return (event.context.relations ??= parseRelations(event.url.searchParams, definition));
}

/** What the generic collection routes need to know of the collections a path names. */
export interface CollectionRouteOptions {
  /** The collection the path names (404 or 400 when it names none). */
  storeOf: (event: H3Event) => CollectionStore;
  /** The scopes a write or delete needs (an entry that is a list: any one of them). */
  scope: (action: 'write' | 'delete') => (event: H3Event) => Needed[];
  /** The scopes a read needs. */
  readScopes: (event: H3Event) => Needed[];
  /** Guests may read it (`auth.required`): the baseline collections, not a sandbox's custom ones. */
  isPublic: boolean;
  /** How the scopes name the collection in `GET /auth/permissions` (`{collection}`, `{name} or custom`). */
  name: string;
}

/**
 * The list (`GET`, `POST`) and record (`GET`, `PUT`, `PATCH`, `DELETE`) routes of a collection,
 * for core, config-declared and custom collections alike: they differ only in how the path names
 * the store and which scopes it needs.
 */
export function collectionResources(runtime: Runtime, options: CollectionRouteOptions) {
  const { engine } = runtime;
  const { storeOf, scope, readScopes, isPublic, name } = options;
  const scopeText = (action: string) => (isPublic ? `${name}:${action}` : `${name}:${action} or custom:${action}`);
  // h3 answers a malformed %-escape in the path with 400 before any route runs.
  const idOf = (event: H3Event): string => getRouterParam(event, 'id', { decode: true }) ?? '';
  const missing = (store: CollectionStore, id: unknown) => notFound(`${store.definition.singular} ${JSON.stringify(id)} does not exist in this sandbox`);
  /** Reads answer from the engine's cache of finished answers (kept true by it), after the guard. */
  const answer = (event: H3Event, sandbox: string, produce: () => string) =>
    sendJson(event, engine.answers.answer(sandbox, contextOf(event).role, event.url.pathname + event.url.search, produce));
  const read = { scope: (event: H3Event) => readScopes(event), scopeText: `${scopeText('read')}${isPublic ? ', and each collection _embed/_expand names' : ''}`, public: isPublic };
  const write = { scope: scope('write'), scopeText: scopeText('write') };
  const listBody = (store: CollectionStore, sandbox: string, query: ListQuery) => {
    const page = store.list(sandbox, query);
    return `{"data":${page.json},"pagination":${JSON.stringify(page.pagination)}}`;
  };

  /** PUT and PATCH differ only in the engine call. */
  const change =
    (apply: (store: CollectionStore, sandbox: string, id: string, body: Record<string, unknown>) => unknown) => async (event: H3Event) => {
      const store = storeOf(event);
      const sandbox = sandboxOf(event);
      const id = idOf(event);
      const record = apply(store, sandbox, id, await readJsonObject(event, runtime.config.limits.bodyBytes));
      if (!record) throw missing(store, id);
      return record;
    };

  const list: MethodHandlers = {
    GET: {
      ...read,
      handler: (event) => {
        const store = storeOf(event);
        const sandbox = sandboxOf(event);
        return answer(event, sandbox, () => {
          const query = parseListQuery(event.url.searchParams, runtime.config.limits.maxPageSize, store.definition, relationsOf(event, store.definition));
          return listBody(store, sandbox, query);
        });
      },
    },
    POST: {
      ...write,
      handler: async (event) => {
        const store = storeOf(event);
        const sandbox = sandboxOf(event);
        return store.create(sandbox, await readJsonObject(event, runtime.config.limits.bodyBytes));
      },
    },
  };

  const one: MethodHandlers = {
    GET: {
      ...read,
      handler: (event) => {
        const store = storeOf(event);
        const id = idOf(event);
        const sandbox = sandboxOf(event);
        return answer(event, sandbox, () => {
          const json = store.getJson(sandbox, id, parseRelationsQuery(event.url.searchParams, store.definition, relationsOf(event, store.definition)));
          if (json === undefined) throw missing(store, id);
          return json;
        });
      },
    },
    PUT: { ...write, handler: change((store, sandbox, id, body) => store.replace(sandbox, id, body)) },
    PATCH: { ...write, handler: change((store, sandbox, id, body) => store.patch(sandbox, id, body)) },
    DELETE: {
      scope: scope('delete'),
      scopeText: scopeText('delete'),
      handler: (event) => {
        const store = storeOf(event);
        const id = idOf(event);
        const record = store.remove(sandboxOf(event), id);
        if (!record) throw missing(store, id);
        return { message: `${store.definition.singular} ${record.id} deleted`, id: record.id, resource: store.definition.name };
      },
    },
  };

  return { list, one, answer, idOf, missing };
}
