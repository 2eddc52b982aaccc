import type { H3Event } from 'h3';
import { consola } from 'consola';
import { createHandler } from 'graphql-http';
import type { Runtime } from '../runtime.js';
import { createGraphQLContext, type GraphQLContext } from './context.js';
import { createErrorFormatter } from './errors.js';
import { checkInput } from './input-bounds.js';
import { createDocumentCache } from './prepared.js';
import { buildGraphQLSchema } from './schema.js';

/** GraphQL's page size bound (contract section 9), below `limits.maxPageSize` when that is smaller. */
const graphqlMaxLimit = 100;

/**
 * The GraphQL endpoint over the runtime: the schema built from the collection definitions, the
 * document cache and graphql-http's handler. Loaded on the first GraphQL request (the route
 * imports this module then), so a server that never serves GraphQL never loads graphql-js.
 */
export function createGraphQLEndpoint(runtime: Runtime) {
  const { engine } = runtime;
  const schema = buildGraphQLSchema(engine.collections);
  const prepare = createDocumentCache(schema);
  const contextOf = (event: H3Event): GraphQLContext => {
    const identity = event.context.identity!;
    const maxPageSize = Math.min(graphqlMaxLimit, runtime.config.limits.maxPageSize);
    return createGraphQLContext(engine.for(identity, { maxPageSize }), { role: identity.role, scopes: identity.scopes });
  };
  const handle = createHandler<H3Event, undefined, GraphQLContext>({
    schema,
    // Nesting checked first (input-bounds.ts), then parsed and validated once per query text
    // (depth, aliases and cost included, per `limit` values), refused before anything is read;
    // graphql-http then executes (GET mutations: 405).
    onSubscribe: (req, params) => {
      const refused = checkInput(params.query, params.variables);
      if (refused) return refused;
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
  return { run };
}
