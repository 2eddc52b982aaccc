import { forbidden, unauthorized } from '../engine/errors.js';
import { customPrefix } from '../engine/custom-collections.js';
import { allows, customCollectionScope } from './scopes.js';

/** Who asks, as the request context resolved it. */
export interface Caller {
  readonly role: string;
  readonly scopes: readonly string[];
  readonly token?: unknown;
}

/** A scope a request needs, or a list of alternatives any one of which will do (`invoices:read` or `custom:read`). */
export type Needed = string | readonly string[];
export type Action = 'read' | 'write' | 'delete';

/**
 * The one authorization decision (contract section 7), called by REST's guard, GraphQL's
 * resolvers, custom routes and their `ctx.collection`, and `_embed`/`_expand`. The owner (no
 * token, tokens not required) may do anything. A guest (no token under `auth.required`) may only
 * read what is public (`publicResource`), else 401. A token needs every scope asked for, else
 * 403. Each entry of `needed` is required; an entry that is a list is met by any one of its
 * scopes. `public:read` is the guest's scope: a token of a role that holds it reads public resources.
 */
export function authorize(caller: Caller, needed: readonly Needed[], publicResource = false): void {
  if (caller.role === 'owner') return;
  // The tokenless guest is told to log in (401); a token with the guest role (a configured
  // persona) was presented and is refused like any other token without the scope (403).
  const guest = caller.role === 'guest' && !caller.token;
  if (guest && !publicResource) throw loginFirst();
  for (const one of needed) {
    const alternatives = typeof one === 'string' ? [one] : one;
    if (alternatives.some((scope) => allows(caller.scopes, scope, publicResource))) continue;
    if (guest) throw loginFirst();
    throw forbidden(`the token's role (${caller.role}) does not grant the scope ${alternatives.join(' or ')} this request needs`);
  }
}

const loginFirst = () => unauthorized('this server requires a token for this request (auth.required): log in with POST /api/v1/auth/login');

/** Whether the caller holds a scope, without throwing (what an answer may show: webhook secrets). */
export function holds(caller: Caller, scope: string): boolean {
  return caller.role === 'owner' || (caller.token !== undefined && allows(caller.scopes, scope));
}

/**
 * What an operation on a collection needs: `<name>:<action>`; a sandbox's custom collection
 * (`custom.invoices`) takes `invoices:<action>` or `custom:<action>`. Reads of the baseline
 * collections (core and config-declared) are public; custom collections are the sandbox's own.
 */
export function collectionAccess(collection: string, action: Action): { needed: Needed; public: boolean } {
  if (collection.startsWith(customPrefix)) return { needed: customCollectionScope(collection.slice(customPrefix.length), action), public: false };
  return { needed: `${collection}:${action}`, public: action === 'read' };
}

/** `authorize` for an operation on collections: the one in the path and those it embeds or expands. */
export function authorizeCollections(caller: Caller, collections: readonly string[], action: Action): void {
  if (caller.role === 'owner') return;
  for (const collection of collections) {
    const access = collectionAccess(collection, action);
    authorize(caller, [access.needed], access.public);
  }
}
