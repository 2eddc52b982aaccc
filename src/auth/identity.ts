import { randomBytes } from 'node:crypto';
import type { H3Event } from 'h3';
import type { Claims, Clock } from './tokens.js';
import type { Role } from './scopes.js';

export const identityCookie = 'svc_identity';
const validId = /^[A-Za-z0-9_-]{1,128}$/;

/** A sandbox id a client may choose: 1-128 characters of A-Z a-z 0-9 _ - (contract section 3). */
export const isSandboxId = (value: string): boolean => validId.test(value);

/**
 * Who is asking, resolved once per API request by the identify step (`identify.ts`) and read by
 * the guard and the routes. `owner`: no token, and tokens are not required: the requester owns its
 * sandbox fully. `guest`: no token while `auth.required` is set.
 */
export interface Identity {
  /** The sandbox the request works in; reading it mints a cookie for a visitor who has none. */
  readonly sandbox: string;
  role: Role | 'owner';
  scopes: readonly string[];
  /** The token's claims, when the request carried a valid access token. */
  token?: Claims;
  /** The request's clock (`X-Simulate-Clock-Skew` applied) and `auth.clockTolerance`. */
  clock: Clock;
}

declare module 'h3' {
  interface H3EventContext {
    identity?: Identity;
    /** The requester's sandbox id, once known (the activity log reads it). */
    sandbox?: string;
    /** A Set-Cookie value for a freshly minted sandbox id, so error answers carry it too. */
    mintedCookie?: string;
  }
}

/** The raw `svc_identity` cookie, valid or not. */
export const rawCookieSandbox = (event: H3Event) => readCookie(event.req.headers.get('cookie'), identityCookie);

/** The requester's sandbox (the identify step resolved who asks; this may mint the cookie). */
export function sandboxOf(event: H3Event): string {
  const identity = event.context.identity;
  if (!identity) throw new Error(`no identity on ${event.url.pathname}: the identify step did not run`);
  return identity.sandbox;
}

/**
 * A new random sandbox id (128 bits, base64url), sent back in `Set-Cookie`. The identify step is
 * the only caller: the one place a cookie is minted.
 */
export function mintSandbox(event: H3Event): string {
  const sandbox = randomBytes(16).toString('base64url');
  event.context.mintedCookie = `${identityCookie}=${sandbox}; Path=/; HttpOnly; SameSite=Lax`;
  event.res.headers.append('set-cookie', event.context.mintedCookie);
  return sandbox;
}

/** The raw value of one cookie; a cookie given twice keeps the first, as browsers send the most specific first. */
function readCookie(header: string | null, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
