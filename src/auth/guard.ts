import type { H3Event } from 'h3';
import { contextOf } from '../http/context.js';
import { authorize, type Needed } from './authorize.js';

/** What a route declares about who may call it (contract section 7). */
export interface Access {
  /**
   * The scope a token must hold (`posts:read`, `sandbox:reset`), or a function of the request for
   * generic routes; several when one request reads several collections (`_embed`, `_expand`),
   * each needed; an entry that is itself a list is met by any one of its scopes (a custom
   * collection's `invoices:write` or `custom:write`).
   */
  scope?: string | ((event: H3Event) => string | Needed[]);
  /** How `GET /auth/permissions` words a scope worked out per request (`<collection>:read`). */
  scopeText?: string;
  /** A remark for `GET /auth/permissions`. */
  note?: string;
  /** Guests may call it too (`auth.required` without a token): the reads of the baseline collections. */
  public?: boolean;
  /** Anyone may call it, with a token or without: health, login, register, refresh, roles... */
  open?: boolean;
}

/**
 * The guard step: after the request context, before the handler (so before any cached answer is
 * read). It asks the one authorization decision (`authorize.ts`) with what the route declares.
 */
export function requireAccess(event: H3Event, access: Access): void {
  if (access.open) return;
  const ctx = contextOf(event);
  if (ctx.role === 'owner') return;
  const declared = typeof access.scope === 'function' ? access.scope(event) : access.scope;
  if (declared === undefined) throw new Error(`${event.url.pathname} declares no scope`);
  authorize(ctx, typeof declared === 'string' ? [declared] : declared, access.public);
}
