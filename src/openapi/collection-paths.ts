import { customCollectionScope } from '../auth/scopes.js';
import type { CollectionDefinition } from '../engine/definition.js';
import { customDefinition } from '../engine/custom-collections.js';
import { csvContentType, xlsxContentType } from '../formats/content-types.js';
import { patterns } from './components.js';
import { listParameters, relationParameters, schemaNames } from './collection-schemas.js';
import { camel, json, ref, type RouteDoc, type Schema } from './types.js';

const idParam = { id: { ...ref('RecordId'), description: 'A baseline id (`7`) or a created one (`local-<uuid>`).' } };
const writeErrors = [400, 403, 404, 413, 415, 422];

/** The record routes of one collection at `base` (`/api/v1/posts`, `/api/v1/custom/{name}`). */
interface CollectionRoutes {
  definition: CollectionDefinition;
  base: string;
  /** The router's patterns of the list and of one record. */
  routes: { list: string; one: string };
  tag: string;
  /** `posts` or the custom collection's words, for operationIds. */
  words: string[];
  scope: (action: 'read' | 'write' | 'delete') => string | readonly string[];
  guest: boolean;
  pathParams?: Record<string, Schema>;
}

function recordRoutes(c: CollectionRoutes): RouteDoc[] {
  const names = schemaNames(c.definition);
  const { singular } = c.definition;
  const label = c.definition.open ? 'record' : singular;
  const one = `${c.base}/{id}`;
  const common = { tag: c.tag, pathParams: c.pathParams };
  const conflict = c.definition.unique.length ? [409] : [];
  const writeBody = (schema: string, patch = false) => ({
    required: true,
    content: patch ? { 'application/json': ref(schema), 'application/merge-patch+json': ref(schema) } : json(ref(schema)),
  });
  const reads = [c.scope('read')];
  return [
    {
      ...common,
      method: 'GET',
      path: c.base,
      route: c.routes.list,
      operationId: camel('list', ...c.words),
      summary: `List ${c.definition.open ? 'the records' : c.definition.name}`,
      description: 'A page of the sandbox\'s view (its own changes over the baseline). Without `_sort`: created records first, newest first, then the rest by id. `_embed`/`_expand` also need the read scope of the collection they add.',
      scopes: reads,
      guest: c.guest,
      parameters: listParameters(c.definition),
      ok: { description: 'The list envelope.', content: json(ref(names.list)) },
      errors: [400],
    },
    {
      ...common,
      method: 'POST',
      path: c.base,
      route: c.routes.list,
      operationId: camel('create', ...c.words),
      summary: `Create a ${label}`,
      description: `Answers 200 with the created record (id \`local-<uuid>\`, \`_sandbox: "created"\`). At most \`limits.${c.definition.cap ?? 'createdPerCollection'}\` live created records per sandbox: 403 \`QUOTA_EXCEEDED\` past it.`,
      scopes: [c.scope('write')],
      body: writeBody(names.input),
      ok: { description: 'The created record.', content: json(ref(names.record)) },
      errors: [...writeErrors.filter((s) => s !== 404), ...conflict],
    },
    {
      ...common,
      method: 'GET',
      path: one,
      route: c.routes.one,
      operationId: camel('get', ...c.words, 'record'),
      summary: `Get a ${label}`,
      scopes: reads,
      guest: c.guest,
      pathParams: { ...c.pathParams, ...idParam },
      parameters: relationParameters(c.definition),
      ok: { description: 'The record.', content: json(ref(names.record)) },
      errors: [400, 404],
    },
    ...(['PUT', 'PATCH'] as const).map((method) => ({
      ...common,
      method,
      path: one,
      route: c.routes.one,
      operationId: camel(method === 'PUT' ? 'replace' : 'patch', ...c.words, 'record'),
      summary: `${method === 'PUT' ? 'Replace' : 'Patch'} a ${label}`,
      description:
        method === 'PUT'
          ? "Required fields must be present; optional fields left out keep their values. An `id` in the body must equal the path's."
          : 'A JSON merge patch: any subset of the fields; `null` clears an optional field.',
      scopes: [c.scope('write')],
      pathParams: { ...c.pathParams, ...idParam },
      body: method === 'PUT' ? writeBody(names.input) : writeBody(names.patch, true),
      ok: { description: 'The whole record after the change.', content: json(ref(names.record)) },
      errors: [...writeErrors, ...conflict],
    })),
    {
      ...common,
      method: 'DELETE',
      path: one,
      route: c.routes.one,
      operationId: camel('delete', ...c.words, 'record'),
      summary: `Delete a ${label}`,
      description: 'Deleting does not cascade.',
      scopes: [c.scope('delete')],
      pathParams: { ...c.pathParams, ...idParam },
      ok: { description: 'What was deleted.', content: json(ref('Deleted')) },
      errors: [400, 403, 404],
    },
  ] satisfies RouteDoc[];
}

/** `/api/v1/{collection}` for the core and config-declared collections, and their sub-resources. */
export function collectionRouteDocs(collections: readonly CollectionDefinition[]): RouteDoc[] {
  return collections.flatMap((definition) => {
    const base = `/api/v1/${definition.name}`;
    const tag = definition.name;
    const own = recordRoutes({
      definition,
      base,
      routes: { list: '/api/v1/:collection', one: '/api/v1/:collection/:id' },
      tag,
      words: [definition.name],
      scope: (action) => `${definition.name}:${action}`,
      guest: true,
    });
    const related = definition.relations.map((relation): RouteDoc => {
      const target = collections.find((c) => c.name === relation.collection)!;
      const names = schemaNames(target);
      const many = relation.kind === 'many';
      return {
        method: 'GET',
        path: `${base}/{id}/${relation.name}`,
        route: '/api/v1/:collection/:id/:relation',
        operationId: camel('get', definition.singular, relation.name),
        tag,
        summary: many ? `List the ${definition.singular}'s ${relation.name}` : `Get the ${definition.singular}'s ${relation.name}`,
        description: many ? `The ${target.name} whose \`${relation.field}\` is this ${definition.singular}'s ${relation.key ?? 'id'}, with every list parameter.` : `The ${target.singular} that \`${relation.field}\` names.`,
        scopes: [`${definition.name}:read`, `${target.name}:read`],
        guest: true,
        pathParams: idParam,
        parameters: many ? listParameters(target) : relationParameters(target),
        ok: { description: many ? 'The list envelope.' : 'The record.', content: json(ref(many ? names.list : names.record)) },
        errors: [400, 404],
      };
    });
    return [...own, ...related];
  });
}

/** `/api/v1/custom/*` (contract section 10): a sandbox's own collections, and their spreadsheet routes. */
export function customCollectionRouteDocs(): RouteDoc[] {
  const definition = customDefinition('custom');
  const pathParams = { name: { type: 'string', pattern: patterns.customName, description: 'The collection: 1-64 characters of a-z 0-9 _ -, starting with a letter.' } };
  const tag = 'custom collections';
  const base = '/api/v1/custom/{name}';
  const scope = (action: string) => customCollectionScope('{name}', action);
  const table = { type: 'string', description: 'The first row names the columns (dotted for nested fields: `address.city`).' };
  const binary = { type: 'string', contentMediaType: xlsxContentType };
  return [
    {
      method: 'GET',
      path: '/api/v1/custom',
      route: '/api/v1/custom',
      operationId: 'listCustomCollections',
      tag,
      summary: "List the sandbox's custom collections",
      scopes: ['custom:read'],
      guest: true,
      ok: {
        description: 'The collections holding records, and the limits.',
        content: json({
          type: 'object',
          required: ['data', 'limits'],
          properties: {
            data: { type: 'array', items: { type: 'object', required: ['name', 'count', 'url'], properties: { name: { type: 'string' }, count: { type: 'integer' }, url: { type: 'string' } } } },
            limits: { type: 'object', properties: { collections: { type: 'integer' }, recordsPerCollection: { type: 'integer' } } },
          },
        }),
      },
    },
    ...recordRoutes({
      definition,
      base,
      routes: { list: '/api/v1/custom/:name', one: '/api/v1/custom/:name/:id' },
      tag,
      words: ['custom'],
      scope: (action) => scope(action),
      guest: true,
      pathParams,
    }),
    {
      method: 'GET',
      path: `${base}/export`,
      route: '/api/v1/custom/:name/export',
      operationId: 'exportCustomCollection',
      tag,
      summary: 'Export a custom collection as CSV or XLSX',
      scopes: [scope('read')],
      guest: true,
      pathParams,
      parameters: [{ name: 'format', in: 'query', schema: { type: 'string', enum: ['csv', 'xlsx'], default: 'csv' } }],
      ok: {
        description: 'The records as a table, as an attachment (`<name>.csv` or `<name>.xlsx`).',
        content: { [csvContentType]: table, [xlsxContentType]: binary },
        headers: { 'Content-Disposition': { schema: { type: 'string' } } },
      },
      errors: [400],
    },
    {
      method: 'POST',
      path: `${base}/import`,
      route: '/api/v1/custom/:name/import',
      operationId: 'importCustomCollection',
      tag,
      summary: 'Import records from a CSV or XLSX file',
      description: 'Each row is created as a `POST` would create it, all or none. A table that cannot be read is 400 `INVALID_TABLE` naming the cells.',
      scopes: [scope('write')],
      pathParams,
      body: { required: true, content: { 'text/csv': table, 'application/csv': table, [xlsxContentType]: binary } },
      ok: {
        description: 'What was imported.',
        content: json({
          type: 'object',
          required: ['message', 'collection', 'imported', 'ids'],
          properties: { message: { type: 'string' }, collection: { type: 'string' }, imported: { type: 'integer' }, ids: { type: 'array', items: ref('RecordId') } },
        }),
      },
      errors: [400, 403, 413, 415, 422],
    },
  ];
}
