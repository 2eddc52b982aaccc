import type { H3, H3Event } from 'h3';
import { sandboxOf } from '../auth/identity.js';
import type { CollectionStore } from '../engine/collection-store.js';
import { parseListQuery } from '../engine/list-query.js';
import { notFound } from '../errors.js';
import type { Runtime } from '../runtime.js';
import { readJsonObject } from './_body.js';
import { resource, sendJson } from './_resource.js';

/** `/api/v1/{collection}` and `/api/v1/{collection}/{id}`: thin over the engine. */
export function addCollectionRoutes(app: H3, runtime: Runtime): void {
  const { engine, config } = runtime;
  const { maxPageSize, bodyBytes } = config.limits;

  const storeOf = (event: H3Event): CollectionStore => {
    const name = event.context.params?.collection ?? '';
    const store = engine.collection(name);
    if (!store) throw notFound(`no collection named "${name}"`);
    return store;
  };
  const idOf = (event: H3Event): string => {
    const raw = event.context.params?.id ?? '';
    try {
      return decodeURIComponent(raw);
    } catch {
      return raw;
    }
  };
  const missing = (store: CollectionStore, id: string) => notFound(`${store.definition.singular} ${JSON.stringify(id)} does not exist in this sandbox`);

  /** PUT and PATCH differ only in the engine call. */
  const change =
    (apply: (store: CollectionStore, sandbox: string, id: string, body: Record<string, unknown>) => unknown) => async (event: H3Event) => {
      const store = storeOf(event);
      const sandbox = sandboxOf(event);
      const id = idOf(event);
      const record = apply(store, sandbox, id, await readJsonObject(event, bodyBytes));
      if (!record) throw missing(store, id);
      return record;
    };

  const list = resource({
    GET: (event) => {
      const store = storeOf(event);
      const sandbox = sandboxOf(event);
      const query = parseListQuery(event.url.searchParams, maxPageSize, store.definition);
      const page = store.list(sandbox, query.page, query.limit, query);
      const totalPages = Math.ceil(page.total / query.limit);
      const pagination = {
        page: query.page,
        limit: query.limit,
        total: page.total,
        totalPages,
        hasNextPage: query.page < totalPages,
        hasPrevPage: query.page > 1,
        nextCursor: null,
      };
      return sendJson(event, `{"data":${page.json},"pagination":${JSON.stringify(pagination)}}`);
    },
    POST: async (event) => {
      const store = storeOf(event);
      const sandbox = sandboxOf(event);
      return store.create(sandbox, await readJsonObject(event, bodyBytes));
    },
  });

  const one = resource({
    GET: (event) => {
      const store = storeOf(event);
      const id = idOf(event);
      const json = store.getJson(sandboxOf(event), id);
      if (json === undefined) throw missing(store, id);
      return sendJson(event, json);
    },
    PUT: change((store, sandbox, id, body) => store.replace(sandbox, id, body)),
    PATCH: change((store, sandbox, id, body) => store.patch(sandbox, id, body)),
    DELETE: (event) => {
      const store = storeOf(event);
      const id = idOf(event);
      const record = store.remove(sandboxOf(event), id);
      if (!record) throw missing(store, id);
      return { message: `${store.definition.singular} ${record.id} deleted`, id: record.id, resource: store.definition.name };
    },
  });

  app.all('/api/v1/:collection', (event) => {
    storeOf(event);
    return list(event);
  });
  app.all('/api/v1/:collection/:id', (event) => {
    storeOf(event);
    return one(event);
  });
}
