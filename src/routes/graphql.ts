import type { H3, H3Event } from 'h3';
import { consola } from 'consola';
import { createHandler } from 'graphql-http';
import { sandboxOf } from '../auth/identity.js';
import { payloadTooLarge } from '../errors.js';
import { createGraphQLContext, type GraphQLContext } from '../graphql/context.js';
import { createErrorFormatter } from '../graphql/errors.js';
import { createDocumentCache } from '../graphql/prepared.js';
import { graphiqlAsset, graphiqlAssets, graphiqlPage } from '../graphql/graphiql.js';
import { buildGraphQLSchema } from '../graphql/schema.js';
import type { Runtime } from '../runtime.js';
import { readText } from './_body.js';
import { resource } from './_resource.js';

/** GraphQL's page size bound (contract section 9), below `limits.maxPageSize` when that is smaller. */
const graphqlMaxLimit = 100;
export const graphqlPath = '/api/v1/graphql';

/**
 * `GET`/`POST /api/v1/graphql`: GraphQL over HTTP with graphql-http, in the caller's sandbox and
 * with the caller's role (the identify step already ran). The route is open: each resolver checks
 * the scope of the collection it reads or writes, as REST's guard would. A browser asking for
 * HTML gets GraphiQL, served from the installed packages.
 */
export function addGraphQLRoutes(app: H3, runtime: Runtime): void {
  const { engine } = runtime;
  const schema = buildGraphQLSchema(engine.collections);
  const prepare = createDocumentCache(schema);
  const contextOf = (event: H3Event): GraphQLContext => {
    const identity = event.context.identity!;
    const maxPageSize = Math.min(graphqlMaxLimit, runtime.config.limits.maxPageSize);
    return createGraphQLContext(engine.forSandbox(sandboxOf(event), { maxPageSize }), { role: identity.role, scopes: identity.scopes });
  };
  const handle = createHandler<H3Event, undefined, GraphQLContext>({
    schema,
    // Parsed and validated once per query text (depth, aliases and cost included, per variable
    // set), refused before anything is read; graphql-http then executes (GET mutations: 405).
    onSubscribe: (req, params) => {
      const prepared = prepare(params.query, params.variables);
      if ('errors' in prepared) return prepared.errors;
      return { schema, document: prepared.document, operationName: params.operationName, variableValues: params.variables, contextValue: contextOf(req.raw) };
    },
    formatError: createErrorFormatter((error) => consola.error('a GraphQL resolver failed:', error)),
  });

  const run = async (event: H3Event, body: string | null) => {
    // HEAD is GET without the body (h3 drops it), as on every other route.
    const method = event.req.method === 'HEAD' ? 'GET' : event.req.method;
    const [text, init] = await handle({ method, url: event.req.url, headers: event.req.headers, body, raw: event, context: undefined });
    event.res.status = init.status;
    event.res.statusText = init.statusText;
    for (const [name, value] of Object.entries(init.headers ?? {})) event.res.headers.set(name, value);
    return text ?? '';
  };
  /** A browser opening the endpoint (HTML accepted, no query): the GraphiQL page. */
  const wantsPage = (event: H3Event) => !event.url.searchParams.has('query') && /\btext\/html\b/.test(event.req.headers.get('accept') ?? '');

  app.all(
    graphqlPath,
    resource({
      GET: {
        open: true,
        handler: (event) => {
          if (!wantsPage(event)) return run(event, null);
          event.res.headers.set('content-type', 'text/html; charset=utf-8');
          return graphiqlPage(graphqlPath, graphqlPath);
        },
      },
      POST: {
        open: true,
        handler: async (event) => {
          const limit = runtime.config.limits.bodyBytes;
          if (Number(event.req.headers.get('content-length') ?? 0) > limit) throw payloadTooLarge(limit);
          return run(event, await readText(event, limit));
        },
      },
    }),
  );
  for (const name of Object.keys(graphiqlAssets)) {
    app.all(
      `${graphqlPath}/${name}`,
      resource({
        GET: {
          open: true,
          handler: (event) => {
            const asset = graphiqlAsset(name)!;
            event.res.headers.set('content-type', asset.type);
            event.res.headers.set('cache-control', 'public, max-age=86400');
            return asset.body;
          },
        },
      }),
    );
  }
}
