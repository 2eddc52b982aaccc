import type { H3Event } from 'h3';
import { forbidden, unauthorized } from '../errors.js';
import { contextOf, type RequestContext } from '../http/context.js';
import { allows } from './scopes.js';

/** What a route declares about who may call it (contract section 7). */
export interface Access {
  /**
   * The scope a token must hold (`posts:read`, `sandbox:reset`), or a function of the request for
   * generic routes; several when one request reads several collections (`_embed`, `_expand`),
   * each needed; an entry that is itself a list is met by any one of its scopes (a custom
   * collection's `invoices:write` or `custom:write`).
   */
  scope?: string | ((event: H3Event) => string | (string | readonly string[])[]);
  /** Guests may call it too (`auth.required` without a token): the reads of the core collections. */
  public?: boolean;
  /** Anyone may call it, with a token or without: health, login, register, refresh, roles... */
  open?: boolean;
}

/**
 * The guard step: after identify, before the handler (so before any cached answer is read).
 * Without a token the requester owns its sandbox, unless `auth.required` makes it a guest; with
 * one, it acts with the token's scopes. A guest is 401 outside public reads; a token without the
 * scope is 403.
 */
export function requireAccess(event: H3Event, access: Access): void {
  if (access.open) return;
  const identity = contextOf(event);
  if (identity.role === 'owner') return;
  const declared = typeof access.scope === 'function' ? access.scope(event) : access.scope;
  if (declared === undefined) throw new Error(`${event.url.pathname} declares no scope`);
  for (const scope of typeof declared === 'string' ? [declared] : declared) check(identity, scope, access);
}

function check(identity: RequestContext, needed: string | readonly string[], access: Access): void {
  const alternatives = typeof needed === 'string' ? [needed] : needed;
  const scope = alternatives.join(' or ');
  // The tokenless guest is told to log in (401); a token with the guest role (a configured
  // persona) was presented and is refused like any other token without the scope (403).
  if (identity.role === 'guest' && !identity.token) {
    if (access.public && alternatives.some((one) => allows(identity.scopes, one, true))) return;
    throw unauthorized('this server requires a token for this request (auth.required): log in with POST /api/v1/auth/login');
  }
  if (!alternatives.some((one) => allows(identity.scopes, one, access.public))) {
    throw forbidden(`the token's role (${identity.role}) does not grant the scope ${scope} this request needs`);
  }
}
