import type { H3Event } from 'h3';
import type { ResolvedConfig } from '../config.js';
import { compileRoutes, type RouteTable } from '../custom-routes/route-table.js';
import { perConfig } from '../per-config.js';

/** The label of requests no route matched: their URLs would make one series each. */
export const unmatchedRoute = 'unmatched';

/**
 * The route label of a request: the router's pattern, with `:collection` filled in when it names
 * a collection of the server (`/api/v1/posts/:id`: a bounded set), or the config's custom route
 * that answered it (`GET /users/featured`). Never the raw URL. Each label is made once and kept.
 */
export function createRouteLabeller(config: () => ResolvedConfig, isCollection: (name: string) => boolean) {
  const filled = new Map<string, Map<string, string>>();
  const tableOf = perConfig(({ routes }: ResolvedConfig): RouteTable | undefined => (Object.keys(routes).length ? compileRoutes(routes) : undefined));

  const customRoute = (event: H3Event): string | undefined => {
    const table = tableOf(config());
    const path = event.url.pathname;
    if (!table || !path.startsWith('/api/v1/')) return undefined;
    return table.match(event.req.method, path.slice('/api/v1'.length))?.route?.key;
  };

  return (event: H3Event): string => {
    const custom = customRoute(event);
    if (custom !== undefined) return custom;
    const pattern = (event.context.matchedRoute as { route?: string } | undefined)?.route;
    if (pattern === undefined) return unmatchedRoute;
    const collection = event.context.params?.collection;
    if (collection === undefined || !pattern.includes(':collection')) return pattern;
    let byName = filled.get(pattern);
    if (!byName) filled.set(pattern, (byName = new Map()));
    let label = byName.get(collection);
    if (label === undefined) {
      // An unknown name gets the pattern and is not kept: a client must not grow this map.
      if (!isCollection(collection)) return pattern;
      byName.set(collection, (label = pattern.replace(':collection', collection)));
    }
    return label;
  };
}
