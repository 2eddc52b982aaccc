import type { H3Event } from 'h3';
import { Kind, type DocumentNode } from 'graphql';
import { consola } from 'consola';
import { createHandler } from 'graphql-http';
import { contextOf as requestOf } from '../http/context.js';
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
    const identity = requestOf(event);
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
      if (isQuery(prepared.document, params.operationName)) readOnly.add(req.raw);
      return { schema, document: prepared.document, operationName: params.operationName, variableValues: params.variables, contextValue: contextOf(req.raw) };
    },
    formatError: createErrorFormatter((error) => consola.error('a GraphQL resolver failed:', error)),
  });

  /** The requests whose document is a query (read-only): their answers may be kept. */
  const readOnly = new WeakSet<H3Event>();

  const execute = async (event: H3Event, method: string, body: string | null) => {
    const [text, init] = await handle({ method, url: event.req.url, headers: event.req.headers, body, raw: event, context: undefined });
    event.res.status = init.status;
    event.res.statusText = init.statusText;
    for (const [name, value] of Object.entries(init.headers ?? {})) event.res.headers.set(name, value);
    return text ?? '';
  };

  /**
   * A query's answer comes from the engine's answer cache when the same document, variables and
   * media type were answered before in this sandbox for this role (graphql-js's execute costs
   * more than a whole cached REST answer); an answer with errors, or a mutation's, is not kept.
   */
  const run = (event: H3Event, body: string | null): string | Promise<string> => {
    // HEAD is GET without the body (h3 drops it), as on every other route.
    const method = event.req.method === 'HEAD' ? 'GET' : event.req.method;
    const identity = requestOf(event);
    // Everything graphql-http reads to choose its answer: the method, the media types, the document and variables.
    const headers = event.req.headers;
    const request = `${method} ${headers.get('accept') ?? ''} ${headers.get('content-type') ?? ''}\n${method === 'GET' ? event.url.search : body}`;
    // Consulted before graphql-http parses anything: a hit is answered synchronously, as a cached REST read.
    const answer = engine.for(identity).graphqlAnswer(request, async () => {
      const text = await execute(event, method, body);
      const keep = readOnly.has(event) && event.res.status === 200 && text.startsWith('{"data"');
      return { body: `${event.res.headers.get('content-type') ?? ''}\n${text}`, keep };
    });
    return typeof answer === 'string' ? send(event, answer) : answer.then((text) => send(event, text));
  };
  return { run };
}

/** A kept answer (its media type, a newline, its body) onto the event. */
function send(event: H3Event, answer: string): string {
  const split = answer.indexOf('\n');
  // graphql-http names no type on some refusals (a mutation over GET: 405); h3 then says text/plain.
  if (split > 0) event.res.headers.set('content-type', answer.slice(0, split));
  return answer.slice(split + 1);
}

/** Whether the operation the request runs is a query. */
function isQuery(document: DocumentNode, operationName: string | null | undefined): boolean {
  const operations = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  const operation = operationName ? operations.find((o) => o.name?.value === operationName) : operations.length === 1 ? operations[0] : undefined;
  return operation?.operation === 'query';
}
