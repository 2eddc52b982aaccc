import { randomBytes } from 'node:crypto';
import { setCookie, type H3Event } from 'h3';
import { contextOf } from '../http/context.js';

export const identityCookie = 'svc_identity';

/** The requester's sandbox (the request context resolved who asks; reading it may mint the cookie). */
export const sandboxOf = (event: H3Event): string => contextOf(event).sandbox;

/**
 * A new random sandbox id (128 bits, base64url), sent back in `Set-Cookie`. The request context
 * is the only caller: the one place a cookie is minted.
 */
export function mintSandbox(event: H3Event): string {
  const sandbox = randomBytes(16).toString('base64url');
  setCookie(event, identityCookie, sandbox, { path: '/', httpOnly: true, sameSite: 'lax' });
  event.context.sandbox = sandbox;
  return sandbox;
}

export type { RequestContext as Identity } from '../http/context.js';
