import type { H3Event, Middleware } from 'h3';
import type { ResolvedConfig } from '../config.js';
import { invalidIdentity, invalidSimulation, invalidToken } from '../errors.js';
import { isSandboxId, mintSandbox, rawCookieSandbox, type Identity } from './identity.js';
import { scopeList } from './scopes.js';
import type { Auth } from './service.js';
import type { Claims, Clock } from './tokens.js';

/** `X-Simulate-Clock-Skew` may shift the clock by at most a day either way. */
const maxSkewSeconds = 86_400;
const units: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600 };

/**
 * The identify step of the request chain (STYLE.md "Where the next layers plug in"): for every
 * API request it works out who asks and in which sandbox, once, and puts it on
 * `event.context.identity`. The sandbox comes from, in order: the `sid` of a valid Bearer access
 * token, the `X-Sandbox` header, the `svc_identity` cookie, else a new id minted here (and only
 * here) when a route first reads it. A token that fails is always 401, never a silent downgrade.
 */
export function identify(auth: Auth, config: ResolvedConfig): Middleware {
  const withToken = (event: H3Event, claims: Claims, clock: Clock) => {
    event.context.sandbox = claims.sid;
    event.context.identity = { sandbox: claims.sid, role: claims.role, scopes: scopesOf(claims), token: claims, clock };
  };
  // Synchronous except for a token seen for the first time: no promise on the hot path.
  return (event) => {
    if (!isApiPath(event.url.pathname)) return;
    const clock = clockOf(event, config);
    const authorization = ignoresBearer.has(event.url.pathname) ? null : event.req.headers.get('authorization');
    if (authorization !== null && /^\s*bearer(\s|$)/i.test(authorization)) {
      const token = authorization.trim().slice(6).trim();
      if (!token) throw invalidToken('the Bearer token is empty');
      const seen = auth.verifySeenAccess(token, clock);
      if (seen) return withToken(event, seen, clock);
      return auth.verifyAccess(token, clock).then((claims) => withToken(event, claims, clock));
    }
    const named = namedSandbox(event);
    if (named) event.context.sandbox = named;
    const guest = config.auth.required;
    event.context.identity = {
      get sandbox() {
        return (event.context.sandbox ??= mintSandbox(event));
      },
      role: guest ? 'guest' : 'owner',
      scopes: guest ? ['public:read'] : ['*'],
      clock,
    } satisfies Identity;
  };
}

/** A token's scope claim as a list, worked out once per token (verified claims are cached objects). */
const scopeLists = new WeakMap<Claims, readonly string[]>();
function scopesOf(claims: Claims): readonly string[] {
  let scopes = scopeLists.get(claims);
  if (!scopes) scopeLists.set(claims, (scopes = scopeList(claims.scope)));
  return scopes;
}

/**
 * Where an Authorization header is not read: the refresh call, whose refresh token names the
 * sandbox and the user. Client interceptors attach the (expired) access token to every call;
 * refusing it there would make an expired session impossible to refresh.
 */
const ignoresBearer = new Set(['/api/v1/auth/refresh']);

const isApiPath = (path: string) => path === '/api/v1' || path.startsWith('/api/v1/');

/** The sandbox a request names without a token: `X-Sandbox` first, then the cookie; malformed is 400. */
function namedSandbox(event: H3Event): string | undefined {
  const header = event.req.headers.get('x-sandbox');
  if (header !== null) {
    if (!isSandboxId(header)) throw invalidIdentity('the X-Sandbox header must be 1-128 characters of A-Z a-z 0-9 _ -');
    return header;
  }
  const cookie = rawCookieSandbox(event);
  if (cookie === undefined) return undefined;
  if (!isSandboxId(cookie)) throw invalidIdentity('the svc_identity cookie must be 1-128 characters of A-Z a-z 0-9 _ -');
  return cookie;
}

/** The request's clock: now, shifted by `X-Simulate-Clock-Skew` (`+120s`, `-60s`, `90`), with `auth.clockTolerance`. */
export function clockOf(event: H3Event, config: ResolvedConfig): Clock {
  const skew = event.req.headers.get('x-simulate-clock-skew');
  return { now: Date.now() / 1000 + (skew === null ? 0 : parseSkew(skew)), tolerance: config.auth.clockTolerance };
}

export function parseSkew(text: string): number {
  const match = /^\s*([+-])?(\d+(?:\.\d+)?)(ms|s|m|h)?\s*$/.exec(text);
  const seconds = match ? Number(match[2]) * units[match[3] ?? 's'] * (match[1] === '-' ? -1 : 1) : NaN;
  if (!Number.isFinite(seconds) || Math.abs(seconds) > maxSkewSeconds) {
    throw invalidSimulation(`X-Simulate-Clock-Skew must be a signed duration of at most a day, such as "+120s" or "-5m"; got ${JSON.stringify(text)}`);
  }
  return seconds;
}
