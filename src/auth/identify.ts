import type { H3Event } from 'h3';
import { invalidIdentity, invalidToken } from '../errors.js';
import { cookieSandbox, isSandboxId } from './identity.js';
import { scopeList } from './scopes.js';
import type { Claims } from './tokens.js';

/**
 * Who asks (contract section 3), read by the request context (`http/context.ts`): the Bearer
 * token, else the sandbox the request names.
 */

/**
 * Where an Authorization header is not read: the refresh call, whose refresh token names the
 * sandbox and the user. Client interceptors attach the (expired) access token to every call;
 * refusing it there would make an expired session impossible to refresh.
 */
const ignoresBearer = new Set(['/api/v1/auth/refresh']);

/** The request's Bearer token, undefined without one; an empty one is 401. */
export function bearerToken(event: H3Event): string | undefined {
  if (ignoresBearer.has(event.url.pathname)) return undefined;
  const authorization = event.req.headers.get('authorization');
  if (authorization === null || !/^\s*bearer(\s|$)/i.test(authorization)) return undefined;
  const token = authorization.trim().slice(6).trim();
  if (!token) throw invalidToken('the Bearer token is empty');
  return token;
}

/**
 * The sandbox a request names: `X-Sandbox` first, then the cookie; malformed is 400. `headerOnly`:
 * a token names the sandbox, so only a malformed header is refused (the cookie is not read).
 */
export function namedSandbox(event: H3Event, headerOnly: boolean): string | undefined {
  const header = event.req.headers.get('x-sandbox');
  if (header !== null) {
    if (!isSandboxId(header)) throw invalidIdentity('the X-Sandbox header must be 1-128 characters of A-Z a-z 0-9 _ -');
    return header;
  }
  if (headerOnly) return undefined;
  const cookie = cookieSandbox(event);
  if (cookie === undefined) return undefined;
  if (!isSandboxId(cookie)) throw invalidIdentity('the svc_identity cookie must be 1-128 characters of A-Z a-z 0-9 _ -');
  return cookie;
}

/** A token's scope claim as a list, worked out once per token (verified claims are cached objects). */
const scopeLists = new WeakMap<Claims, readonly string[]>();
export function scopesOf(claims: Claims): readonly string[] {
  let scopes = scopeLists.get(claims);
  if (!scopes) scopeLists.set(claims, (scopes = scopeList(claims.scope)));
  return scopes;
}
