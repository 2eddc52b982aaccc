import type { CollectionDefinition } from '../engine/definition.js';
import { customDefinition } from '../engine/custom-collections.js';
import { authRouteDocs, authSchemas } from './auth-paths.js';
import { collectionRouteDocs, customCollectionRouteDocs } from './collection-paths.js';
import { collectionParameterComponents, collectionSchemas, pagingParameterComponents, schemaNames } from './collection-schemas.js';
import { baseComponents, problemResponseName } from './components.js';
import { documentDescription } from './description.js';
import { eventCatalogue, eventRouteDocs, eventSchemas, webhookSection } from './event-paths.js';
import { sandboxRouteDocs, snapshotSchema } from './sandbox-paths.js';
import { customRouteDocs, serviceRouteDocs } from './service-paths.js';
import type { RouteDoc, Schema } from './types.js';

/** What the document is generated from: the same definitions and config the server runs on. */
export interface DocumentSource {
  collections: readonly CollectionDefinition[];
  maxPageSize: number;
  /** The config's custom routes (`"GET /path/:param"` → handler). */
  routes: Readonly<Record<string, unknown>>;
}

const chainParameters = ['XSandbox', 'XSimulateLatency', 'XSimulateStatus', 'XSimulateFlaky', 'XSimulateNetwork', 'XSimulateRateLimit', 'XSimulateClockSkew', 'QueryDelay', 'QueryStatus'];

/** Every operation the server answers, keyed by method and path: the route catalogue. */
export function routeCatalogue(source: DocumentSource): RouteDoc[] {
  const generated = [
    ...collectionRouteDocs(source.collections),
    ...customCollectionRouteDocs(),
    ...sandboxRouteDocs(source.collections),
    ...authRouteDocs(),
    ...eventRouteDocs(),
    ...serviceRouteDocs(),
  ];
  // Custom routes are matched first: one of the same method and path shape replaces the generated operation.
  const custom = customRouteDocs(source.routes);
  const shapeOf = (doc: RouteDoc) => `${doc.method} ${doc.path.replace(/\{[^}]+\}/g, '{}')}`;
  const replaced = new Set(custom.map(shapeOf));
  const templates = new Map(generated.map((doc) => [doc.path.replace(/\{[^}]+\}/g, '{}'), doc.path]));
  return [
    ...generated.filter((doc) => !replaced.has(shapeOf(doc))),
    // A path OpenAPI must see once: a custom route's `{slug}` takes the generated `{id}`'s name.
    ...custom.map((doc) => ({ ...doc, path: templates.get(doc.path.replace(/\{[^}]+\}/g, '{}')) ?? doc.path })),
  ];
}

/** The OpenAPI 3.1 document of a server running on `source`. */
export function buildOpenApi(source: DocumentSource, version: string): Schema {
  const components = baseComponents();
  const custom = customDefinition('custom');
  Object.assign(components.parameters, pagingParameterComponents(source.maxPageSize));
  for (const definition of [...source.collections, custom]) {
    Object.assign(components.schemas, collectionSchemas(definition, source.collections));
    Object.assign(components.parameters, collectionParameterComponents(definition));
  }
  Object.assign(components.schemas, authSchemas(), eventSchemas(), { Snapshot: snapshotSchema });

  const catalogue = routeCatalogue(source);
  const paths: Record<string, Record<string, Schema>> = {};
  for (const doc of catalogue) {
    const item = (paths[doc.path] ??= {});
    item[doc.method.toLowerCase()] = operation(doc);
  }
  const tags = [...new Set(catalogue.map((doc) => doc.tag)), 'webhooks'].filter((name, i, all) => all.indexOf(name) === i).map((name) => ({ name, description: tagDescription(name, source.collections) }));
  const document: Schema = {
    openapi: '3.1.0',
    info: {
      title: 'mockapi',
      version: '1.0.0',
      summary: 'A local mock REST and GraphQL API where every visitor works in a private copy-on-write sandbox.',
      description: documentDescription(version),
      license: { name: 'MIT', url: 'https://opensource.org/licenses/MIT' },
    },
    servers: [{ url: '/', description: 'The server that serves this document' }],
    tags,
    paths,
    webhooks: webhookSection(eventCatalogue(source.collections, schemaNames(custom).record)),
    components,
  };
  // One plain JSON value: no object shared between two places of the document, no undefined.
  return JSON.parse(JSON.stringify(document)) as Schema;
}

/** One operation object from its catalogue entry. */
function operation(doc: RouteDoc): Schema {
  const api = doc.path.startsWith('/api/v1/') || doc.path === '/api/v1';
  const pathParams = [...doc.path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: doc.pathParams?.[name!] ?? { type: 'string' },
  }));
  const errors = new Set((doc.errors ?? []).map(String));
  // The request chain's: a malformed identity or simulation (400), a Bearer token that fails (401,
  // on any API path), a simulated rate limit, failure or status; the guard's 403.
  if (api) for (const status of ['400', '401', '429', '503', 'default']) errors.add(status);
  if (api && doc.scopes) errors.add('403');
  const ok = String(doc.ok.status ?? 200);
  const responses: Record<string, Schema> = {
    [ok]: {
      description: doc.ok.description,
      ...(doc.ok.headers ? { headers: doc.ok.headers } : {}),
      ...(doc.ok.content ? { content: media(doc.ok.content) } : {}),
    },
  };
  for (const status of [...errors].sort()) responses[status] = { $ref: `#/components/responses/${problemResponseName(status)}` };
  Object.assign(responses, doc.responses);
  return {
    operationId: doc.operationId,
    tags: [doc.tag],
    summary: doc.summary,
    description: [doc.description, scopeNote(doc)].filter(Boolean).join('\n\n'),
    parameters: [...pathParams, ...(doc.parameters ?? []), ...(api ? chainParameters.map((name) => ({ $ref: `#/components/parameters/${name}` })) : [])],
    ...(doc.body ? { requestBody: { required: doc.body.required, ...(doc.body.description ? { description: doc.body.description } : {}), content: media(doc.body.content) } } : {}),
    responses,
    security: security(doc),
    ...(doc.scopes ? { 'x-scopes': doc.scopes } : {}),
  };
}

function media(content: Record<string, Schema | undefined>): Record<string, Schema> {
  return Object.fromEntries(Object.entries(content).map(([type, schema]) => [type, schema ? { schema } : {}]));
}

/**
 * Who may call it: anyone (`{}`: without a token the caller owns its sandbox, unless
 * `auth.required`), the cookie's sandbox, or a Bearer token with the scopes. A scope met by either
 * of two (`invoices:write` or `custom:write`) gives one requirement for each.
 */
function security(doc: RouteDoc): Schema[] {
  const anyone = [{}, { svcIdentity: [] }];
  if (!doc.scopes) return [...anyone, { bearerAuth: [] }];
  let sets: string[][] = [[]];
  for (const scope of doc.scopes) {
    const alternatives = typeof scope === 'string' ? [scope] : [...scope];
    sets = sets.flatMap((set) => alternatives.map((one) => [...set, one]));
  }
  return [...anyone, ...sets.map((scopes) => ({ bearerAuth: [...new Set(scopes)] }))];
}

function scopeNote(doc: RouteDoc): string {
  if (!doc.path.startsWith('/api/v1')) return '';
  if (!doc.scopes) return 'Open: no scope needed.';
  const words = doc.scopes.map((scope) => (typeof scope === 'string' ? `\`${scope}\`` : scope.map((one) => `\`${one}\``).join(' or ')));
  return `Scopes with a token: ${words.join(' and ')}.${doc.guest ? ' Guests may call it under `auth.required`.' : ''}`;
}


/** What each tag groups, for the reference's sidebar. */
function tagDescription(tag: string, collections: readonly CollectionDefinition[]): string {
  const collection = collections.find((c) => c.name === tag);
  if (collection) return `The ${tag} collection${collection.schema || collection.fixture ? ' (declared in the config)' : ''}: its records, in the caller's sandbox.`;
  const described: Record<string, string> = {
    'custom collections': "A sandbox's own collections of any JSON objects (`/custom/{name}`), and their CSV and XLSX files.",
    sandbox: "The caller's sandbox: its state, activity, reset, snapshots, export and import.",
    auth: 'Tokens, accounts and password recovery.',
    mailbox: "The sandbox's mailbox: the messages password recovery sent.",
    webhooks: 'Subscriptions to the sandbox\'s events, their deliveries, and the requests a subscriber receives.',
    events: "The sandbox's event log and its live stream.",
    graphql: 'GraphQL over HTTP over the same sandboxes and roles.',
    discovery: 'Health, metrics, this document and its reference page.',
    'custom routes': "The config's own routes.",
  };
  return described[tag] ?? tag;
}
