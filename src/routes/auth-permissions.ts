import { roles } from '../auth/scopes.js';
import type { CollectionDefinition } from '../engine/definition.js';

/**
 * `GET /api/v1/auth/permissions`: what each request needs, in the scopes the guard checks, and
 * which roles grant it. The same declarations the routes make, written out for people.
 */
export function permissions(collections: readonly CollectionDefinition[]) {
  const rules = [
    ...collections.flatMap(({ name }) => [
      { method: 'GET', path: `/api/v1/${name}[/{id}[/{relation}]]`, scope: `${name}:read`, guest: true },
      { method: 'POST', path: `/api/v1/${name}`, scope: `${name}:write`, guest: false },
      { method: 'PUT, PATCH', path: `/api/v1/${name}/{id}`, scope: `${name}:write`, guest: false },
      { method: 'DELETE', path: `/api/v1/${name}/{id}`, scope: `${name}:delete`, guest: false },
    ]),
    { method: 'GET', path: '/api/v1/custom', scope: 'custom:read', guest: false },
    { method: 'GET', path: '/api/v1/custom/{name}[/{id}], /custom/{name}/export', scope: '{name}:read or custom:read', guest: false },
    { method: 'POST', path: '/api/v1/custom/{name}, /custom/{name}/import', scope: '{name}:write or custom:write', guest: false },
    { method: 'PUT, PATCH', path: '/api/v1/custom/{name}/{id}', scope: '{name}:write or custom:write', guest: false },
    { method: 'DELETE', path: '/api/v1/custom/{name}/{id}', scope: '{name}:delete or custom:delete', guest: false },
    { method: 'GET', path: '/api/v1/sandbox, /sandbox/activity, /sandbox/snapshots[/{name}], /sandbox/export', scope: 'sandbox:read', guest: false },
    { method: 'POST', path: '/api/v1/sandbox/snapshots', scope: 'sandbox:write', guest: false, note: 'replacing one by its name needs sandbox:delete too' },
    { method: 'DELETE', path: '/api/v1/sandbox/snapshots/{name}', scope: 'sandbox:delete', guest: false },
    { method: 'POST', path: '/api/v1/sandbox/reset, /sandbox/snapshots/{name}/restore, /sandbox/import', scope: 'sandbox:reset', guest: false },
    { method: 'GET', path: '/api/v1/inbox/messages', scope: 'inbox:read', guest: false, note: '*:read does not cover it' },
    { method: 'POST', path: '/api/v1/auth/login, /register, /refresh, /logout, /forgot-password, /reset-password', scope: null, guest: true },
    { method: 'GET', path: '/api/v1/auth/roles, /auth/permissions', scope: null, guest: true },
    { method: 'GET', path: '/api/v1/auth/me', scope: null, guest: false, note: 'a token, or the login of the sandbox cookie' },
    { method: 'PATCH', path: '/api/v1/auth/me', scope: null, guest: false, note: 'a token, for its own profile' },
  ];
  return {
    roles: Object.fromEntries(Object.entries(roles).map(([name, role]) => [name, role.scopes])),
    rules,
    note: 'A request without a token owns its sandbox fully unless auth.required is set; then it is guest.',
  };
}
