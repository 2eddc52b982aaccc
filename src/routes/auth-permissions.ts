import { roles } from '../auth/scopes.js';
import type { DeclaredRoute } from './_resource.js';

/**
 * `GET /api/v1/auth/permissions`: what each request needs, in the scopes the guard checks, and
 * which roles grant it, generated from what the routes declare (`route()` in `_resource.ts`).
 */
export function permissions(routes: readonly DeclaredRoute[]) {
  const rules = routes
    .filter(({ path }) => path.startsWith('/api/v1/'))
    .flatMap(({ path, handlers }) =>
      Object.entries(handlers).map(([method, access]) => ({
        method,
        path: path.replace(/:(\w+)/g, '{$1}'),
        scope: access.open ? null : typeof access.scope === 'string' ? access.scope : (access.scopeText ?? null),
        guest: Boolean(access.open || access.public),
        ...(access.note ? { note: access.note } : {}),
      })),
    );
  return {
    roles: Object.fromEntries(Object.entries(roles).map(([name, role]) => [name, role.scopes])),
    rules,
    note: 'A request without a token owns its sandbox fully unless auth.required is set; then it is guest (401 where guest is false). Custom routes declare their own access in the config.',
  };
}
