import { getRouterParam, type H3, type H3Event } from 'h3';
import { sandboxOf } from '../auth/identity.js';
import { checkCustomName, customPrefix } from '../engine/custom-collections.js';
import type { Runtime } from '../runtime.js';
import { collectionResources } from './collections.js';
import { route } from './_resource.js';

/**
 * `/api/v1/custom/{name}` and `/api/v1/custom/{name}/{id}`: a sandbox's own collections, served by
 * the same routes as the core ones (contract section 10), and `/api/v1/custom`, the list of them.
 * A token needs `<name>:<action>` or `custom:<action>`.
 */
export function addCustomCollectionRoutes(app: H3, runtime: Runtime): void {
  const { engine } = runtime;
  const nameOf = customNameOf;
  const { list, one } = collectionResources(runtime, {
    storeOf: (event) => engine.custom.collection(nameOf(event)),
    nameOf: (event) => customPrefix + nameOf(event),
    // A sandbox's own collections: guests read the baseline collections only (contract section 7).
    isPublic: false,
    name: '{name}',
  });

  route(app, '/api/v1/custom', {
    GET: {
      scope: 'custom:read',
      handler: (event) => {
        const collections = engine.custom.list(sandboxOf(event));
        return {
          data: collections.map((c) => ({ name: c.name, count: c.count, url: `/api/v1/custom/${c.name}` })),
          limits: { collections: runtime.config.limits.customCollections, recordsPerCollection: runtime.config.limits.customRecords },
        };
      },
    },
  });
  // The name is checked before the method, so a bad name is 400 whatever the method.
  route(app, '/api/v1/custom/:name', list, nameOf);
  route(app, '/api/v1/custom/:name/:id', one, nameOf);
}

/** The custom collection named in the path (`:name`), 400 INVALID_NAME when it is not a name. */
export function customNameOf(event: H3Event): string {
  // h3 answers a malformed %-escape in the path with 400 before any route runs.
  const name = getRouterParam(event, 'name', { decode: true }) ?? '';
  checkCustomName(name);
  return name;
}
