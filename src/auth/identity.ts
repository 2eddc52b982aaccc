import { randomBytes } from 'node:crypto';
import type { H3Event } from 'h3';
import { invalidIdentity } from '../errors.js';

export const identityCookie = 'svc_identity';
const validId = /^[A-Za-z0-9_-]{1,128}$/;

/** A sandbox id a client may choose: 1-128 characters of A-Z a-z 0-9 _ - (contract section 3). */
export const isSandboxId = (value: string): boolean => validId.test(value);

/** The sandbox the request's cookie names, when it names a valid one; never mints, never throws. */
export function cookieSandbox(event: H3Event): string | undefined {
  const cookie = readCookie(event.req.headers.get('cookie'), identityCookie);
  return cookie !== undefined && validId.test(cookie) ? cookie : undefined;
}

declare module 'h3' {
  interface H3EventContext {
    /** The requester's sandbox id, once resolved. */
    sandbox?: string;
    /** A Set-Cookie value for a freshly minted sandbox id, so error answers carry it too. */
    mintedCookie?: string;
  }
}

/**
 * The requester's sandbox (contract section 3): the `svc_identity` cookie, else a new random id
 * (128 bits, base64url) sent back in `Set-Cookie`. A malformed id is 400, never a silent new one.
 * Bearer tokens (their `sid` claim) come first once authentication exists.
 */
export function sandboxOf(event: H3Event): string {
  if (event.context.sandbox) return event.context.sandbox;
  const cookie = readCookie(event.req.headers.get('cookie'), identityCookie);
  let sandbox: string;
  if (cookie !== undefined) {
    if (!validId.test(cookie)) throw invalidIdentity(`the ${identityCookie} cookie must be 1-128 characters of A-Z a-z 0-9 _ -`);
    sandbox = cookie;
  } else {
    sandbox = randomBytes(16).toString('base64url');
    event.context.mintedCookie = `${identityCookie}=${sandbox}; Path=/; HttpOnly; SameSite=Lax`;
    event.res.headers.append('set-cookie', event.context.mintedCookie);
  }
  event.context.sandbox = sandbox;
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
