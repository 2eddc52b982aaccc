import { allows } from '../auth/scopes.js';
import type { SandboxView } from '../engine/sandbox-view.js';
import { forbidden, unauthorized } from '../errors.js';
import { createLoaders, type Loaders } from './loaders.js';

/** Who asks, as the identify step resolved it (no HTTP here: the route hands it over). */
export interface Access {
  role: string;
  scopes: readonly string[];
}

/** What every resolver of one request gets: the engine bound to the caller's sandbox, the caller, the loaders. */
export type GraphQLContext = {
  view: SandboxView;
  access: Access;
  loaders: Loaders;
};

export function createGraphQLContext(view: SandboxView, access: Access): GraphQLContext {
  return { view, access, loaders: createLoaders(view) };
}

/**
 * The REST guard's rule (contract section 7), per field: `<collection>:read|write|delete`. The
 * owner (no token, tokens not required) may do anything; a guest reads the collections only
 * (reads are public, as REST's collection GETs); a token needs the scope.
 */
export function authorize(context: GraphQLContext, collection: string, action: 'read' | 'write' | 'delete'): void {
  const { role, scopes } = context.access;
  if (role === 'owner') return;
  const scope = `${collection}:${action}`;
  const isPublic = action === 'read';
  if (role === 'guest') {
    if (isPublic && allows(scopes, scope, true)) return;
    throw unauthorized('this server requires a token for this request (auth.required): log in with POST /api/v1/auth/login');
  }
  if (!allows(scopes, scope, isPublic)) throw forbidden(`the token's role (${role}) does not grant the scope ${scope} this request needs`);
}
