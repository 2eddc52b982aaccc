import { createHmac, randomBytes, randomUUID } from 'node:crypto';
// jose loads on the first token verified, not at every start (signing is node's HMAC).
const jose = () => import('jose');
import { invalidToken, tokenExpired, tokenNotYetValid } from '../errors.js';
import { isRole, type Role } from './scopes.js';

/** Token kinds, by the JWT header's `typ` (RFC 9068 for access tokens). */
export type TokenKind = 'access' | 'refresh';
const typOf: Record<TokenKind, string> = { access: 'at+jwt', refresh: 'rt+jwt' };
export const issuer = 'mockapi';

/** The claims mockapi puts in its tokens (contract section 7); `fam` on refresh tokens, and on access tokens so logout can end the family. */
export interface Claims {
  iss: string;
  sub: string;
  sid: string;
  role: Role;
  scope: string;
  jti: string;
  iat: number;
  exp: number;
  fam: string;
}

export interface Clock {
  /** Seconds since the epoch as this request sees them (`X-Simulate-Clock-Skew` shifts it). */
  now: number;
  /** `auth.clockTolerance`: leeway in seconds on exp, iat and nbf. */
  tolerance: number;
}

/** Verified tokens kept: a token seen before costs a map lookup and the time checks, not an HMAC. */
const maxVerified = 10_000;
const sandboxId = /^[A-Za-z0-9_-]{1,128}$/;

/** Signs and verifies mockapi's tokens with one HS256 key. */
export function createTokens(secret: Uint8Array) {
  const verified = new Map<string, { kind: TokenKind; claims: Claims }>();

  return {
    /**
     * A signed token of this kind; `ttl` in seconds from `now` (0 expires at once). Synchronous
     * (node's HMAC; jose verifies), so issuing fits inside the transaction that records it.
     */
    sign(kind: TokenKind, claims: Omit<Claims, 'iss' | 'iat' | 'exp' | 'jti'>, ttl: number, now: number): { token: string; claims: Claims } {
      const iat = Math.floor(now);
      const full: Claims = { iss: issuer, ...claims, jti: randomUUID(), iat, exp: iat + Math.max(0, Math.floor(ttl)) };
      const signed = `${base64url({ alg: 'HS256', typ: typOf[kind] })}.${base64url(full)}`;
      return { token: `${signed}.${createHmac('sha256', secret).update(signed).digest('base64url')}`, claims: full };
    },

    /**
     * The claims of a token of this kind that mockapi signed and that is valid at `clock.now`.
     * Anything else is 401: INVALID_TOKEN (malformed, `alg: none` or another algorithm, a bad
     * signature, another kind, missing claims), TOKEN_EXPIRED, TOKEN_NOT_YET_VALID.
     */
    async verify(token: string, kind: TokenKind, clock: Clock): Promise<Claims> {
      const known = this.verifySeen(token, kind, clock);
      if (known) return known;
      const entry = await verifySignature(token, secret);
      if (verified.size >= maxVerified) verified.delete(verified.keys().next().value!);
      verified.set(token, entry);
      return this.verifySeen(token, kind, clock)!;
    },

    /** `verify` without the signature check, for a token verified before; undefined for one never seen. */
    verifySeen(token: string, kind: TokenKind, clock: Clock): Claims | undefined {
      const entry = verified.get(token);
      if (!entry) return undefined;
      if (entry.kind !== kind) {
        throw invalidToken(kind === 'access' ? 'a refresh token cannot be used as an access token' : 'this is not a refresh token');
      }
      checkTimes(entry.claims, clock);
      return entry.claims;
    },
  };
}

export type Tokens = ReturnType<typeof createTokens>;

const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A new random HS256 key, for a database that has none yet. */
export const newSecret = () => randomBytes(32).toString('base64url');

async function verifySignature(token: string, secret: Uint8Array): Promise<{ kind: TokenKind; claims: Claims }> {
  if (token.length > 8192 || !/^[\w-]+\.[\w-]+\.[\w-]*$/.test(token)) throw invalidToken('the token is not a JWT');
  let header: Record<string, unknown>;
  let payload: Uint8Array;
  try {
    // Pinned to HS256: `alg: none`, HS512, RS256 and every other algorithm are refused here.
    ({ protectedHeader: header, payload } = await (await jose()).compactVerify(token, secret, { algorithms: ['HS256'] }));
  } catch {
    throw invalidToken('the token is malformed, not signed with HS256 by this server, or altered');
  }
  const typ = typeof header.typ === 'string' ? header.typ.toLowerCase().replace(/^application\//, '') : '';
  const kind = (Object.keys(typOf) as TokenKind[]).find((k) => typOf[k] === typ);
  if (!kind) throw invalidToken(`the token's typ must be at+jwt or rt+jwt`);
  let claims: unknown;
  try {
    claims = JSON.parse(new TextDecoder().decode(payload));
  } catch {
    throw invalidToken('the token payload is not JSON');
  }
  if (!isClaims(claims)) throw invalidToken('the token lacks a claim mockapi needs (iss, sub, sid, role, scope, jti, iat, exp, fam)');
  return { kind, claims };
}

function isClaims(value: unknown): value is Claims {
  if (typeof value !== 'object' || value === null) return false;
  const c = value as Record<string, unknown>;
  const finite = (n: unknown) => typeof n === 'number' && Number.isFinite(n);
  return (
    c.iss === issuer &&
    typeof c.sub === 'string' &&
    c.sub !== '' &&
    typeof c.sid === 'string' &&
    sandboxId.test(c.sid) &&
    isRole(c.role) &&
    typeof c.scope === 'string' &&
    typeof c.jti === 'string' &&
    typeof c.fam === 'string' &&
    finite(c.iat) &&
    finite(c.exp) &&
    (c.nbf === undefined || finite(c.nbf))
  );
}

/** exp, iat and nbf against the request's clock, with `auth.clockTolerance` of leeway each way. */
export function checkTimes(claims: Claims & { nbf?: number }, { now, tolerance }: Clock): void {
  if (claims.exp <= now - tolerance) throw tokenExpired('the token has expired; refresh it or log in again');
  if (claims.iat > now + tolerance || (claims.nbf !== undefined && claims.nbf > now + tolerance)) {
    throw tokenNotYetValid('the token was issued in the future (clock skew beyond auth.clockTolerance)');
  }
}
