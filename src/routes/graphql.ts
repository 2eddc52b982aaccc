import type { H3, H3Event } from 'h3';
import { graphiqlAsset, graphiqlAssets, graphiqlPage } from '../graphql/graphiql.js';
import type { Runtime } from '../runtime.js';
import { readText } from './_body.js';
import { route } from './_resource.js';

export const graphqlPath = '/api/v1/graphql';

/**
 * `GET`/`POST /api/v1/graphql`: GraphQL over HTTP with graphql-http, in the caller's sandbox and
 * with the caller's role (the request context already ran). The route is open: the engine
 * (`engine.for(ctx)`) checks the scope of each collection a resolver reads or writes, as for REST. A browser asking for
 * HTML gets GraphiQL, served from the installed packages. graphql-js and the schema load on the
 * first GraphQL request (`graphql/endpoint.ts`), not at start-up (about 100 ms).
 */
export function addGraphQLRoutes(app: H3, runtime: Runtime): void {
  type Endpoint = { run: (event: H3Event, body: string | null) => string | Promise<string> };
  let endpoint: Endpoint | undefined;
  let loading: Promise<Endpoint> | undefined;
  // Once loaded, called directly: a cached answer then costs no promise.
  const run = (event: H3Event, body: string | null) => {
    if (endpoint) return endpoint.run(event, body);
    loading ??= import('../graphql/endpoint.js').then((module) => (endpoint = module.createGraphQLEndpoint(runtime)));
    return loading.then((loaded) => loaded.run(event, body));
  };
  /** A browser opening the endpoint (HTML accepted, no query): the GraphiQL page. */
  const wantsPage = (event: H3Event) => !event.url.searchParams.has('query') && /\btext\/html\b/.test(event.req.headers.get('accept') ?? '');

  route(app, graphqlPath, {
    GET: {
      open: true,
      note: 'each resolver checks the scope of the collection it reads or writes, as REST does',
      handler: (event) => {
        if (!wantsPage(event)) return run(event, null);
        event.res.headers.set('content-type', 'text/html; charset=utf-8');
        return graphiqlPage(graphqlPath, graphqlPath);
      },
    },
    POST: {
      open: true,
      note: 'each resolver checks the scope of the collection it reads or writes, as REST does',
      handler: async (event) => run(event, await readText(event, runtime.config.limits.bodyBytes)),
    },
  });
  for (const name of Object.keys(graphiqlAssets)) {
    route(app, `${graphqlPath}/${name}`, {
      GET: {
        open: true,
        handler: (event) => {
          const asset = graphiqlAsset(name)!;
          event.res.headers.set('content-type', asset.type);
          event.res.headers.set('cache-control', 'public, max-age=86400');
          return asset.body;
        },
      },
    });
  }
}
