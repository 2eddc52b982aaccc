import type { EventHandler, H3, H3Event } from 'h3';
import { authorize, type Needed } from '../auth/authorize.js';
import { methodNotAllowed } from '../errors.js';
import { contextOf } from '../http/context.js';

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

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
/** A method's handler and who may call it (every route declares it). */
export type MethodHandler = Access & { handler: (event: H3Event) => unknown };
export type MethodHandlers = Partial<Record<Method, MethodHandler>>;

/**
 * One path, several methods: dispatches on the method, runs the guard for the method's declared
 * access, and answers 405 with `Allow` for the rest (h3's router alone would answer 404). HEAD is
 * served by GET; h3 drops the body.
 */
export function resource(handlers: MethodHandlers): EventHandler {
  const allow = Object.keys(handlers);
  if (handlers.GET) allow.splice(1, 0, 'HEAD');
  return (event) => {
    const method = event.req.method === 'HEAD' ? 'GET' : (event.req.method as Method);
    const declared = handlers[method];
    if (!declared) throw methodNotAllowed(event.req.method, allow);
    requireAccess(event, declared);
    return declared.handler(event);
  };
}

/**
 * The guard step: after the request context, before the handler (so before any cached answer is
 * read). It asks the one authorization decision (`authorize.ts`) with what the route declares.
 */
function requireAccess(event: H3Event, access: Access): void {
  if (access.open) return;
  const ctx = contextOf(event);
  if (ctx.role === 'owner') return;
  const declared = typeof access.scope === 'function' ? access.scope(event) : access.scope;
  if (declared === undefined) throw new Error(`${event.url.pathname} declares no scope`);
  authorize(ctx, typeof declared === 'string' ? [declared] : declared, access.public);
}

/** A route as it was declared: its path and, per method, who may call it. */
export interface DeclaredRoute {
  path: string;
  handlers: MethodHandlers;
}

const declaredRoutes = new WeakMap<H3, DeclaredRoute[]>();

/**
 * Adds a route to the app and keeps its declaration, so `GET /auth/permissions` lists what the
 * routes declare rather than a second list. `before` runs first for every method (a generic
 * route checks the collection its path names: 404 before 405).
 */
export function route(app: H3, path: string, handlers: MethodHandlers, before?: (event: H3Event) => unknown): void {
  const declared = declaredRoutes.get(app) ?? [];
  declaredRoutes.set(app, [...declared, { path, handlers }]);
  const handler = resource(handlers);
  app.all(
    path,
    before
      ? (event) => {
          before(event);
          return handler(event);
        }
      : handler,
  );
}

/** The routes declared on the app so far, in order. */
export const declaredRoutesOf = (app: H3): readonly DeclaredRoute[] => declaredRoutes.get(app) ?? [];

/** Sends prepared JSON text as it is: the fast path PERF-NOTES measured (no Response object). */
export function sendJson(event: H3Event, json: string): string {
  event.res.headers.set('content-type', 'application/json; charset=utf-8');
  return json;
}
