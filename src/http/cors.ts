import type { H3Event } from 'h3';
import type { ResolvedConfig } from '../config.js';
import { corsOriginNotAllowed } from '../errors.js';
import { perConfig } from '../per-config.js';

declare module 'h3' {
  interface H3EventContext {
    /** A CORS preflight: answered before the sandbox is read, so it touches none and is not logged. */
    preflight?: boolean;
  }
}

const allowMethods = 'GET, POST, PUT, PATCH, DELETE';
/** Always allowed, whatever the preflight names (contract section 11). */
const baseHeaders = ['content-type', 'authorization', 'x-sandbox'];
const exposeHeaders = 'RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, X-Service-Delivery, Location';
const preflightVary = 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers';
/** An HTTP token (RFC 9110 section 5.6.2): what a header name may be. */
const headerName = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;
/** Bounds the per-origin memo (a client can send any Origin). */
const maxRememberedOrigins = 1_000;

/**
 * CORS for pages on a dev server (contract section 11), read by the request context
 * (`context.ts`) for every path the server answers. A preflight is answered here (204, or 403 for
 * an origin outside `cors.origins`); every other request gets `Vary: Origin` and, from an allowed
 * origin, the origin echoed with credentials allowed (`*` is never sent: browsers refuse it with
 * credentials). The headers go on `event.res.headers`; the context carries them onto every
 * answer, problems included.
 */
export function createCors(): (event: H3Event, config: Pick<ResolvedConfig, 'cors'>) => Response | undefined {
  const allows = originPolicy();
  return (event, config) => {
    const request = event.req.headers;
    const origin = request.get('origin');
    if (event.req.method === 'OPTIONS' && request.has('access-control-request-method')) return preflight(event, origin, (o) => allows(config, o));
    const headers = event.res.headers;
    headers.set('vary', 'Origin');
    if (origin === null || !allows(config, origin)) return undefined;
    headers.set('access-control-allow-origin', origin);
    headers.set('access-control-allow-credentials', 'true');
    headers.set('access-control-expose-headers', exposeHeaders);
    return undefined;
  };
}

function preflight(event: H3Event, origin: string | null, allows: (origin: string) => boolean): Response {
  event.context.preflight = true;
  if (origin !== null && !allows(origin)) {
    event.res.headers.set('vary', preflightVary);
    throw corsOriginNotAllowed(origin);
  }
  const headers = new Headers({
    'access-control-allow-methods': allowMethods,
    'access-control-allow-headers': allowedHeaders(event.req.headers.get('access-control-request-headers')),
    'access-control-max-age': '600',
    vary: preflightVary,
  });
  if (origin !== null) {
    headers.set('access-control-allow-origin', origin);
    headers.set('access-control-allow-credentials', 'true');
  }
  // Chrome's Private Network Access: a page on a public site (a deployed preview) may call a local mockapi.
  if (event.req.headers.get('access-control-request-private-network') === 'true') headers.set('access-control-allow-private-network', 'true');
  return new Response(null, { status: 204, headers });
}

/** The asked headers by name (never `*`, which does not cover `Authorization` nor credentialed requests), plus the base ones. */
function allowedHeaders(asked: string | null): string {
  const names = new Set(baseHeaders);
  for (const raw of (asked ?? '').split(',')) {
    const name = raw.trim().toLowerCase();
    if (name && name !== '*' && headerName.test(name)) names.add(name);
  }
  return [...names].join(', ');
}

/**
 * Whether an origin may call with credentials. `cors.origins` is `"*"` (the default), one origin or
 * a list; origins compare as `scheme://host[:port]`, host case-insensitive, no trailing slash,
 * a default port the same as none. Made once per config.
 */
function originPolicy(): (config: Pick<ResolvedConfig, 'cors'>, origin: string) => boolean {
  const policyOf = perConfig((config: Pick<ResolvedConfig, 'cors'>) => toPolicy(config.cors.origins));
  return (config, origin) => policyOf(config)(origin);
}

function toPolicy(origins: string | string[]): (origin: string) => boolean {
  const list = Array.isArray(origins) ? origins : [origins];
  if (list.includes('*')) return () => true;
  const allowed = new Set(list.map(normalizeOrigin));
  const memo = new Map<string, boolean>();
  return (origin) => {
    let verdict = memo.get(origin);
    if (verdict === undefined) {
      if (memo.size >= maxRememberedOrigins) memo.clear();
      memo.set(origin, (verdict = allowed.has(normalizeOrigin(origin))));
    }
    return verdict;
  };
}

/** `HTTP://LocalHost:3000/` → `http://localhost:3000`; `http://x:80` → `http://x`; "null" stays itself. */
export function normalizeOrigin(origin: string): string {
  const text = origin.trim().replace(/\/+$/, '');
  try {
    const url = new URL(text);
    return url.origin === 'null' ? text.toLowerCase() : url.origin;
  } catch {
    return text.toLowerCase();
  }
}

/** Headers the chain sets for every answer (CORS, `Vary`, `RateLimit-*`): the context copies them onto problems and Responses. */
export function isCarriedHeader(name: string): boolean {
  return name === 'vary' || name.startsWith('access-control-') || name.startsWith('ratelimit-');
}
