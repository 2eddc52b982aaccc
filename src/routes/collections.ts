import { getRouterParam, type H3, type H3Event } from 'h3';
import { contextOf } from '../http/context.js';
import type { CollectionStore } from '../engine/collection-store.js';
import type { Relation } from '../engine/definition.js';
import { listQueryOf, noRelations, parseRelations, type Relations } from '../engine/list-query.js';
import type { CollectionDefinition } from '../engine/definition.js';
import type { Needed } from '../auth/authorize.js';
import { notFound } from '../engine/errors.js';
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
  const nameOf = (event: H3Event) => event.context.params?.collection ?? '';
  const { list, one, idOf } = collectionResources(runtime, { storeOf, nameOf, isPublic: true, name: '{collection}' });

  const relationOf = (event: H3Event, store: CollectionStore): Relation => {
    const name = event.context.params?.relation ?? '';
    const relation = store.definition.relations.find((r) => r.name === name);
    if (!relation) throw notFound(`${store.definition.name} have no sub-resource "${name}"`);
    return relation;
  };

  /** `/posts/1/comments` lists the parent's children; `/posts/1/user` is the parent's parent. */
  const related: MethodHandlers = {
    GET: {
      // Reading `/users/1/posts` reads posts (and the parent user): the engine checks both.
      scope: checkedByTheEngine,
      scopeText: '{collection}:read and {relation target}:read, and each collection _embed/_expand names',
      public: true,
      handler: (event) => {
        const ctx = contextOf(event);
        const store = storeOf(event);
        const relation = relationOf(event, store);
        const target = storeOf(event, relation.collection).definition;
        const query = relation.kind === 'many' ? listQueryOf(event.url.search, ctx.config.limits.maxPageSize, target) : relationsOf(event, target);
        return sendJson(event, engine.for(ctx).relatedJson(store.definition.name, idOf(event), relation.name, query));
      },
    },
  };

  route(app, '/api/v1/:collection', list, (event) => storeOf(event));
  route(app, '/api/v1/:collection/:id', one, (event) => storeOf(event));
  route(app, '/api/v1/:collection/:id/:relation', related, (event) => relationOf(event, storeOf(event)));
}

/**
 * A collection route's scopes are checked by `engine.for(ctx)`: a read's (its collection, and each
 * it embeds or expands) from the parsed query, a write's before its body is read. The guard still
 * turns a tokenless guest away from a route that is not public, with the same answer (401).
 */
export const checkedByTheEngine = (): Needed[] => [];


/** A record read's `_embed`/`_expand` (a request without them parses nothing). */
function relationsOf(event: H3Event, definition: CollectionDefinition): Relations {
  const search = event.url.search;
  if (!search.includes('_embed') && !search.includes('_expand')) return noRelations;
  return parseRelations(event.url.searchParams, definition);
}

/**
 * A write's answer: the record's JSON text as stored, under the content type h3 gives a returned
 * object (what these routes answered when they returned the record). A string skips h3's
 * serialisation and its merge of the headers into a new `Headers`.
 */
function sendWritten(event: H3Event, json: string): string {
  event.res.headers.set('content-type', 'application/json;charset=UTF-8');
  return json;
}

/** What the generic collection routes need to know of the collections a path names. */
export interface CollectionRouteOptions {
  /** The collection the path names (404 or 400 when it names none). */
  storeOf: (event: H3Event) => CollectionStore;
  /** The collection's name in the engine's registry (`posts`, `custom.invoices`). */
  nameOf: (event: H3Event) => string;
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
  const { storeOf, nameOf, isPublic, name } = options;
  const scopeText = (action: string) => (isPublic ? `${name}:${action}` : `${name}:${action} or custom:${action}`);
  // h3 answers a malformed %-escape in the path with 400 before any route runs.
  const idOf = (event: H3Event): string => getRouterParam(event, 'id', { decode: true }) ?? '';
  const read = { scope: checkedByTheEngine, scopeText: `${scopeText('read')}${isPublic ? ', and each collection _embed/_expand names' : ''}`, public: isPublic };
  const write = { scope: checkedByTheEngine, scopeText: scopeText('write') };
  /** The request body, read when the engine asks for it: after it authorized the caller (a refused write's body is never parsed). */
  const bodyOf = (event: H3Event) => () => readJsonObject(event, contextOf(event).config.limits.bodyBytes);

  const list: MethodHandlers = {
    GET: {
      ...read,
      // REST's adapter: the query string parsed once into the typed query the engine takes.
      handler: (event) => {
        const ctx = contextOf(event);
        const query = listQueryOf(event.url.search, ctx.config.limits.maxPageSize, storeOf(event).definition);
        return sendJson(event, engine.for(ctx).listJson(nameOf(event), query));
      },
    },
    POST: { ...write, handler: async (event) => sendWritten(event, await engine.for(contextOf(event)).createJson(nameOf(event), bodyOf(event))) },
  };

  const one: MethodHandlers = {
    GET: {
      ...read,
      handler: (event) => {
        const ctx = contextOf(event);
        const relations = relationsOf(event, storeOf(event).definition);
        return sendJson(event, engine.for(ctx).recordJson(nameOf(event), idOf(event), relations));
      },
    },
    PUT: { ...write, handler: async (event) => sendWritten(event, await engine.for(contextOf(event)).replaceJson(nameOf(event), idOf(event), bodyOf(event))) },
    PATCH: { ...write, handler: async (event) => sendWritten(event, await engine.for(contextOf(event)).patchJson(nameOf(event), idOf(event), bodyOf(event))) },
    DELETE: {
      scope: checkedByTheEngine,
      scopeText: scopeText('delete'),
      handler: (event) => {
        const record = engine.for(contextOf(event)).remove(nameOf(event), idOf(event));
        const { definition } = storeOf(event);
        return { message: `${definition.singular} ${record.id} deleted`, id: record.id, resource: definition.name };
      },
    },
  };

  return { list, one, idOf };
}
