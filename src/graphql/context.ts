import type { SandboxView } from '../engine/sandbox-view.js';
import { createLoaders, type Loaders } from './loaders.js';

/** Who asks, as the request context resolved it (no HTTP here: the route hands it over). */
export interface Access {
  role: string;
  scopes: readonly string[];
  /** The token, when one was presented (a guest-role token is refused 403, a tokenless guest 401). */
  token?: unknown;
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
