import type { CollectionDefinition } from '../engine/definition.js';
import { patterns } from './components.js';
import { json, ref, type RouteDoc, type Schema } from './types.js';

const tag = 'sandbox';
const text = { type: 'string' };
const dateTime = { type: 'string', format: 'date-time' };
const count = { type: 'integer', minimum: 0 };
const use = (used: string) => ({ type: 'object', required: [used, 'limit'], properties: { [used]: count, limit: count } });
const snapshotParams = { name: { type: 'string', pattern: patterns.snapshotName, description: '1-64 characters of A-Z a-z 0-9 _ . -' } };

/** The row counts a reset or an import reports, by collection (`custom`: every custom collection's records). */
export function purgedSchema(collections: readonly CollectionDefinition[]): Schema {
  const names = [...collections.map((c) => c.name), 'custom'];
  return { type: 'object', required: names, additionalProperties: false, properties: Object.fromEntries(names.map((name) => [name, count])) };
}

/** `/api/v1/sandbox/*` (contract section 12): the caller's own sandbox, its snapshots, export and import. */
export function sandboxRouteDocs(collections: readonly CollectionDefinition[]): RouteDoc[] {
  const snapshot = ref('Snapshot');
  const info: Schema = {
    type: 'object',
    required: ['id', 'createdAt', 'lastActiveAt', 'requests', 'quotas', 'snapshots'],
    properties: {
      id: { type: 'string', pattern: patterns.sandbox },
      createdAt: dateTime,
      lastActiveAt: dateTime,
      requests: count,
      quotas: {
        type: 'object',
        required: [...collections.map((c) => c.name), 'bytes', 'custom'],
        properties: {
          ...Object.fromEntries(collections.map((c) => [c.name, use('created')])),
          bytes: { ...use('used'), description: 'UTF-8 bytes of the record JSON the sandbox stores (`limits.sandboxBytes`; 0: no bound).' },
          custom: {
            type: 'object',
            required: ['collections', 'records'],
            properties: { collections: use('used'), records: { type: 'object', additionalProperties: use('created') } },
          },
        },
      },
      snapshots: count,
    },
  };
  const activity: Schema = {
    type: 'object',
    required: ['data'],
    properties: {
      data: {
        type: 'array',
        items: {
          type: 'object',
          required: ['method', 'path', 'status', 'durationMs', 'at'],
          properties: { method: text, path: text, status: { type: 'integer' }, durationMs: { type: 'number' }, at: dateTime },
        },
      },
    },
  };
  const withSandbox = (extra: Record<string, Schema>, required: string[]): Schema => ({
    type: 'object',
    required: ['message', 'sandbox', ...required],
    properties: { message: text, sandbox: text, ...extra },
  });
  const base = { tag } as const;
  return [
    {
      ...base,
      method: 'GET',
      path: '/api/v1/sandbox',
      route: '/api/v1/sandbox',
      operationId: 'getSandbox',
      summary: 'Describe the sandbox',
      description: 'Its id, first and last activity, request count, quotas and their use.',
      scopes: ['sandbox:read'],
      ok: { description: 'The sandbox.', content: json(info) },
    },
    {
      ...base,
      method: 'GET',
      path: '/api/v1/sandbox/activity',
      route: '/api/v1/sandbox/activity',
      operationId: 'getSandboxActivity',
      summary: 'The recent requests',
      description: 'Newest first, at most `limits.activity` of them.',
      scopes: ['sandbox:read'],
      ok: { description: 'The recent requests.', content: json(activity) },
    },
    {
      ...base,
      method: 'POST',
      path: '/api/v1/sandbox/reset',
      route: '/api/v1/sandbox/reset',
      operationId: 'resetSandbox',
      summary: 'Reset the sandbox to the baseline',
      description: 'Purges every change (custom collections included); snapshots and webhook subscriptions stay.',
      scopes: ['sandbox:reset'],
      ok: { description: 'What was purged.', content: json(withSandbox({ purged: purgedSchema(collections) }, ['purged'])) },
    },
    {
      ...base,
      method: 'GET',
      path: '/api/v1/sandbox/snapshots',
      route: '/api/v1/sandbox/snapshots',
      operationId: 'listSnapshots',
      summary: "List the sandbox's snapshots",
      scopes: ['sandbox:read'],
      ok: { description: 'The snapshots.', content: json({ type: 'object', required: ['data'], properties: { data: { type: 'array', items: snapshot } } }) },
    },
    {
      ...base,
      method: 'POST',
      path: '/api/v1/sandbox/snapshots',
      route: '/api/v1/sandbox/snapshots',
      operationId: 'takeSnapshot',
      summary: 'Take a snapshot',
      description: 'A named copy of the sandbox\'s changes; the same name again replaces it.',
      scopes: ['sandbox:write'],
      body: { required: true, content: json({ type: 'object', required: ['name'], additionalProperties: false, properties: snapshotParams }) },
      ok: { description: 'The snapshot.', content: json(snapshot) },
      errors: [400, 403, 413, 415, 422],
    },
    {
      ...base,
      method: 'GET',
      path: '/api/v1/sandbox/snapshots/{name}',
      route: '/api/v1/sandbox/snapshots/:name',
      operationId: 'getSnapshot',
      summary: 'Get a snapshot',
      scopes: ['sandbox:read'],
      pathParams: snapshotParams,
      ok: { description: 'The snapshot.', content: json(snapshot) },
      errors: [404],
    },
    {
      ...base,
      method: 'DELETE',
      path: '/api/v1/sandbox/snapshots/{name}',
      route: '/api/v1/sandbox/snapshots/:name',
      operationId: 'deleteSnapshot',
      summary: 'Delete a snapshot',
      scopes: ['sandbox:delete'],
      pathParams: snapshotParams,
      ok: { description: 'What was deleted.', content: json({ type: 'object', required: ['message', 'name'], properties: { message: text, name: text } }) },
      errors: [404],
    },
    {
      ...base,
      method: 'POST',
      path: '/api/v1/sandbox/snapshots/{name}/restore',
      route: '/api/v1/sandbox/snapshots/:name/restore',
      operationId: 'restoreSnapshot',
      summary: 'Restore a snapshot',
      description: "Replaces the sandbox's changes with the snapshot's, in one transaction.",
      scopes: ['sandbox:reset'],
      pathParams: snapshotParams,
      ok: { description: 'The restored snapshot.', content: json(withSandbox({ snapshot }, ['snapshot'])) },
      errors: [403, 404],
    },
    {
      ...base,
      method: 'GET',
      path: '/api/v1/sandbox/export',
      route: '/api/v1/sandbox/export',
      operationId: 'exportSandbox',
      summary: 'Export the sandbox',
      description: 'The export document of `mockapi export`, holding the caller\'s sandbox only.',
      scopes: ['sandbox:read'],
      ok: { description: 'The export document.', content: json(ref('ExportDocument')) },
    },
    {
      ...base,
      method: 'POST',
      path: '/api/v1/sandbox/import',
      route: '/api/v1/sandbox/import',
      operationId: 'importSandbox',
      summary: 'Replace the sandbox with an export document',
      description: "The document's first sandbox replaces the caller's (its id is ignored); an invalid document changes nothing (422 naming the first problem). The body may be up to 16 MiB.",
      scopes: ['sandbox:reset'],
      body: { required: true, content: json(ref('ExportDocument')) },
      ok: {
        description: 'What was imported.',
        content: json(withSandbox({ imported: { ...purgedSchema(collections), required: undefined, additionalProperties: count } }, ['imported'])),
      },
      errors: [400, 403, 413, 415, 422],
    },
  ];
}

/** A snapshot as the API shows it. */
export const snapshotSchema: Schema = {
  type: 'object',
  required: ['name', 'createdAt', 'records'],
  properties: { name: { type: 'string' }, createdAt: dateTime, records: { ...count, description: 'Changed, created and deleted records it holds.' } },
};
