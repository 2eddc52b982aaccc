import { parseRouteKey } from '../custom-routes/route-key.js';
import { graphiqlAssets } from '../graphql/graphiql.js';
import { camel, json, type RouteDoc, type Schema } from './types.js';

const text = { type: 'string' };

/** The GraphQL over HTTP answer: GraphQL's own errors, not problem+json (contract section 9). */
const graphqlResult: Schema = {
  type: 'object',
  properties: {
    data: { type: ['object', 'null'] },
    errors: {
      type: 'array',
      items: { type: 'object', required: ['message'], properties: { message: text, path: { type: 'array' }, extensions: { type: 'object', properties: { code: text } } } },
    },
  },
};
const graphqlContent = { 'application/graphql-response+json': graphqlResult, 'application/json': graphqlResult };
/** graphql-http's 400 carries GraphQL errors; the request chain's 400 (identity, simulation) a problem. */
const graphqlBadRequest = {
  '400': {
    description: 'A malformed GraphQL request (GraphQL errors), or a malformed identity or simulation header (a problem).',
    content: Object.fromEntries([...Object.entries(graphqlContent), ['application/problem+json', { $ref: '#/components/schemas/Problem' }]].map(([type, schema]) => [type, { schema }])),
  },
};

/** `/health`, `/metrics`, `/docs`, the OpenAPI documents and GraphQL (contract sections 9 and 13). */
export function serviceRouteDocs(): RouteDoc[] {
  const graphqlPath = '/api/v1/graphql';
  const asset = (name: string, type: string): RouteDoc => ({
    method: 'GET',
    path: `${graphqlPath}/${name}`,
    route: `${graphqlPath}/${name}`,
    operationId: camel('get', 'graphiql', 'asset', name),
    tag: 'graphql',
    summary: `GraphiQL's ${name}`,
    description: "Served from the installed packages for the GraphiQL page, so it loads nothing from another origin.",
    ok: { description: 'The file.', content: { [type.split(';')[0]!]: text } },
  });
  const document = (path: string, version: string): RouteDoc => ({
    method: 'GET',
    path,
    route: path,
    operationId: camel('get', 'openapi', version),
    tag: 'discovery',
    summary: `This document as OpenAPI ${version}`,
    description: 'Generated at start (and after a `--watch` reload) from the collection definitions, the JSON Schemas and the route catalogue.',
    ok: { description: 'The OpenAPI document.', content: json({ type: 'object', required: ['openapi', 'info', 'paths'], properties: { openapi: text, info: { type: 'object' }, paths: { type: 'object' } } }) },
  });
  return [
    {
      method: 'GET',
      path: '/health',
      route: '/health',
      operationId: 'getHealth',
      tag: 'discovery',
      summary: 'Health check',
      description: 'For wait-for-it scripts and CI service checks; outside `/api/v1`, so no simulation applies.',
      ok: {
        description: 'The server is up.',
        content: json({ type: 'object', required: ['status', 'version', 'uptime'], properties: { status: { type: 'string', enum: ['ok'] }, version: text, uptime: { type: 'number', description: 'Seconds.' } } }),
      },
    },
    {
      method: 'GET',
      path: '/metrics',
      route: '/metrics',
      operationId: 'getMetrics',
      tag: 'discovery',
      summary: 'Prometheus metrics',
      description: 'Requests by route pattern and status, latency histograms, sandboxes holding data, overlay rows, webhook deliveries by status, open event streams, and the process metrics.',
      ok: { description: 'The Prometheus text format.', content: { 'text/plain': text } },
    },
    {
      method: 'GET',
      path: '/docs',
      route: '/docs',
      operationId: 'getDocs',
      tag: 'discovery',
      summary: 'This reference as a page',
      description: 'Rendered by Redoc from the installed package; it loads nothing from another origin.',
      ok: { description: 'The page.', content: { 'text/html': text } },
    },
    {
      method: 'GET',
      path: '/docs/redoc.standalone.js',
      route: '/docs/redoc.standalone.js',
      operationId: 'getDocsScript',
      tag: 'discovery',
      summary: "The reference page's script (Redoc)",
      ok: { description: 'The script.', content: { 'text/javascript': text } },
    },
    {
      method: 'GET',
      path: '/reset-password',
      route: '/reset-password',
      operationId: 'getResetPasswordPage',
      tag: 'auth',
      summary: 'The password-reset page the reset mail links to',
      description: 'A small form (everything inline) that posts `{token, password}` to `POST /api/v1/auth/reset-password` in the browser\'s sandbox; the mail links here unless `auth.resetUrl` names a front-end\'s own page.',
      ok: { description: 'The page.', content: { 'text/html': text } },
    },
    document('/api/v1/openapi.json', '3.1'),
    document('/api/v1/openapi-3.0.json', '3.0'),
    {
      method: 'GET',
      path: graphqlPath,
      route: graphqlPath,
      operationId: 'graphqlQuery',
      tag: 'graphql',
      summary: 'Run a GraphQL query',
      description: 'GraphQL over HTTP (queries only on GET). A browser asking for HTML without a `query` gets GraphiQL. Each resolver checks the scope of the collection it reads, as REST does.',
      parameters: [
        { name: 'query', in: 'query', schema: text },
        { name: 'variables', in: 'query', description: 'A JSON object.', schema: text },
        { name: 'operationName', in: 'query', schema: text },
      ],
      ok: { description: 'The result (or the GraphiQL page).', content: { ...graphqlContent, 'text/html': text } },
      responses: { ...graphqlBadRequest, '405': { description: 'A mutation asked over GET: send it with POST.', headers: { Allow: { schema: text } }, content: { 'text/plain': { schema: text } } } },
    },
    {
      method: 'POST',
      path: graphqlPath,
      route: graphqlPath,
      operationId: 'graphqlRequest',
      tag: 'graphql',
      summary: 'Run a GraphQL query or mutation',
      description: 'Queries `users`, `posts`, `comments`, `todos` (and `user(id)`...), mutations `createPost`, `updatePost`, `deletePost` and the same for every collection; nesting deeper than 10 levels is refused.',
      body: {
        required: true,
        content: json({ type: 'object', required: ['query'], properties: { query: text, variables: { type: ['object', 'null'] }, operationName: { type: ['string', 'null'] } } }),
      },
      ok: { description: 'The result.', content: graphqlContent },
      errors: [413, 415],
      responses: graphqlBadRequest,
    },
    ...Object.entries(graphiqlAssets).map(([name, { type }]) => asset(name, type)),
  ];
}

/**
 * The config's custom routes (contract section 19) as operations without a body schema: their
 * handlers decide what they read and answer.
 */
export function customRouteDocs(routes: Readonly<Record<string, unknown>>): RouteDoc[] {
  return Object.entries(routes).map(([key, route]) => {
    const { method, path, segments } = parseRouteKey(key);
    const declared = typeof route === 'object' && route !== null ? (route as { scope?: unknown; public?: unknown }) : {};
    const params = segments.flatMap((s) => ('param' in s ? [s.param] : []));
    const openApiPath = `/api/v1${segments.length ? '' : path}${segments.map((s) => ('param' in s ? `/{${s.param}}` : `/${s.literal}`)).join('')}`;
    const hasBody = method === 'POST' || method === 'PUT' || method === 'PATCH';
    return {
      method,
      path: openApiPath,
      route: 'custom-route',
      operationId: camel('custom', method, ...segments.map((s) => ('param' in s ? `by ${s.param}` : s.literal))),
      tag: 'custom routes',
      summary: key,
      description: 'A custom route of the config: its handler decides what it reads and answers.',
      ...(typeof declared.scope === 'string' ? { scopes: [declared.scope] } : {}),
      guest: declared.public === true,
      pathParams: Object.fromEntries(params.map((name) => [name, text])),
      ...(hasBody ? { body: { required: false, content: { 'application/json': undefined } } } : {}),
      ok: { description: 'What the handler returns (JSON for a value; 204 for none).', content: { 'application/json': undefined } },
      errors: [400, 404, 413],
    };
  });
}
