import type { IncomingHttpHeaders } from 'node:http';
import { getCookie, type H3Event, type Middleware } from 'h3';
import type { ResolvedConfig } from '../config.js';
import { identityCookie, mintSandbox } from '../auth/identity.js';
import { sandboxIdPattern } from '../auth/sandbox-id.js';
import { scopeList, type Role } from '../auth/scopes.js';
import type { Auth } from '../auth/service.js';
import type { Claims, Clock } from '../auth/tokens.js';
import { invalidIdentity, invalidToken } from '../errors.js';
import { createSimulationLimiter, readSimulation, runSimulation, type Simulation } from '../simulate/simulate.js';
import { createCors } from './cors.js';
import { leave, toProblemResponse } from './answer.js';

declare module 'h3' {
  interface H3EventContext {
    /** The request context of an API request (`context.ts`): who asks, in which sandbox, with what config. */
    ctx?: RequestContext;
    /** The requester's sandbox id, once known (the activity log reads it). */
    sandbox?: string;
  }
}

/** What every step after the context reads of a request (CONTRACT sections 3, 7, 11). */
export interface RequestContext {
  /** The sandbox the request works in; reading it mints a cookie for a visitor who has none. */
  readonly sandbox: string;
  /** `owner`: no token, tokens not required (the requester owns its sandbox); `guest`: no token under `auth.required`. */
  readonly role: Role | 'owner';
  readonly scopes: readonly string[];
  /** The claims of the request's valid access token. */
  readonly token?: Claims;
  /** Now as this request sees it (`X-Simulate-Clock-Skew` applied), with `auth.clockTolerance`. */
  readonly clock: Clock;
  /** What the request asked the simulator for; undefined when nothing. */
  readonly simulate?: Simulation;
  /** The config the request started with: a reload meanwhile does not change it. */
  readonly config: ResolvedConfig;
}

const ownerScopes: readonly string[] = ['*'];
const guestScopes: readonly string[] = ['public:read'];

/** One object per request; a class so its getters cost no closure. */
class Context implements RequestContext {
  #sandbox: string | undefined;
  constructor(
    readonly event: H3Event,
    readonly config: ResolvedConfig,
    readonly role: Role | 'owner',
    readonly scopes: readonly string[],
    readonly token: Claims | undefined,
    readonly simulate: Simulation | undefined,
    sandbox: string | undefined,
  ) {
    this.#sandbox = sandbox;
    if (sandbox !== undefined) event.context.sandbox = sandbox;
  }
  get sandbox(): string {
    return (this.#sandbox ??= mintSandbox(this.event));
  }
  get clock(): Clock {
    return clockOf(this.config, this.simulate);
  }
}

const withToken = (event: H3Event, config: ResolvedConfig, claims: Claims, simulate: Simulation | undefined) =>
  new Context(event, config, claims.role, scopesOf(claims), claims, simulate, claims.sid);

const clockOf = (config: ResolvedConfig, simulate: Simulation | undefined): Clock => ({
  now: Date.now() / 1000 + (simulate?.clockSkew ?? 0),
  tolerance: config.auth.clockTolerance,
});

const isApiPath = (path: string) => path === '/api/v1' || path.startsWith('/api/v1/');

/**
 * The request context (STYLE.md "One request context"): the first step of the chain, in the
 * wrapping style of hono's `cors()`. It reads the headers once (CORS, identity, simulation),
 * answers a preflight, puts `ctx` on `event.context`, runs the simulation, then awaits the rest of
 * the chain and puts the chain's headers (CORS, `Vary`, `RateLimit-*`, a minted cookie) on
 * whatever comes back: a value, a `Response` or an error, which leaves here as problem+json. The
 * sandbox comes from, in order: the `sid` of a valid Bearer access token, `X-Sandbox`, the
 * `svc_identity` cookie, else an id minted on first read (here, and nowhere else). A token that
 * fails is always 401, never a silent downgrade. A cached GET without simulation costs one object.
 */
export function requestContext(runtime: { readonly config: ResolvedConfig; auth: Auth }, customRoutes: Middleware): Middleware {
  const cors = createCors();
  const limiter = createSimulationLimiter(runtime.config);

  const proceed = (event: H3Event, ctx: Context, next: () => unknown): unknown => {
    event.context.ctx = ctx;
    // The config's custom routes come next, when it has any (a `--watch` reload may add some).
    const then = hasRoutes(ctx.config) ? () => customRoutes(event, next) : next;
    if (!ctx.simulate) return then();
    const waited = runSimulation(event, ctx.simulate, ctx, limiter);
    return waited ? waited.then(then) : then();
  };

  const enter = (event: H3Event, next: () => unknown): unknown => {
    const config = runtime.config;
    const headers = event.runtime?.node?.req.headers;
    // A request without `Origin` is not a browser's cross-origin call: only `Vary` to add.
    if (!headers || headers.origin !== undefined || event.req.method === 'OPTIONS') {
      const preflight = cors(event, config);
      if (preflight) return preflight;
    } else event.res.headers.set('vary', 'Origin');
    if (!isApiPath(event.url.pathname)) return next();
    const simulate = asksForSimulation(config, event.url.search, headers, event) ? readSimulation(event, config) : undefined;
    const token = bearerToken(event, headers);
    if (token !== undefined) {
      // A token names the sandbox itself; a malformed X-Sandbox beside it is still 400 (contract section 11).
      namedSandbox(event, headers, true);
      const clock = clockOf(config, simulate);
      // Synchronous for a token seen before: no promise on the hot path.
      const seen = runtime.auth.verifySeenAccess(token, clock);
      if (seen) return proceed(event, withToken(event, config, seen, simulate), next);
      return runtime.auth.verifyAccess(token, clock).then((claims) => proceed(event, withToken(event, config, claims, simulate), next));
    }
    const guest = config.auth.required;
    const ctx = new Context(event, config, guest ? 'guest' : 'owner', guest ? guestScopes : ownerScopes, undefined, simulate, namedSandbox(event, headers, false));
    return proceed(event, ctx, next);
  };

  return (event, next) => {
    let answer: unknown;
    try {
      answer = enter(event, next);
    } catch (error) {
      return toProblemResponse(error, event);
    }
    if (typeof (answer as Promise<unknown> | undefined)?.then === 'function') {
      return (answer as Promise<unknown>).then(
        (value) => leave(event, value),
        (error: unknown) => toProblemResponse(error, event),
      );
    }
    // Prepared JSON text (every cached read): h3 sends it with `event.res.headers` as they are.
    return typeof answer === 'string' ? answer : leave(event, answer);
  };
}

/** Whether the config has custom routes (a `--watch` reload may add some): they run before the generated ones. */
export function hasRoutes(config: ResolvedConfig): boolean {
  for (const _ in config.routes) return true;
  return false;
}

/**
 * Whether the request asks the simulator for anything: an `X-Simulate-*` header, `_delay` or
 * `_status` in the query (`search`), or the config's defaults. Most requests ask for nothing and
 * skip it. `headers`: node's, else (a Request made in-process, `app.fetch`) the event's.
 */
export function asksForSimulation(config: ResolvedConfig, search: string, headers: IncomingHttpHeaders | undefined, event?: H3Event): boolean {
  if (config.simulate.latency !== undefined || config.simulate.rateLimit !== undefined) return true;
  if (search.length > 1 && (search.includes('_delay') || search.includes('_status'))) return true;
  if (headers) {
    for (const name in headers) if (name.startsWith('x-simulate-')) return true;
    return false;
  }
  if (event) for (const name of event.req.headers.keys()) if (name.startsWith('x-simulate-')) return true;
  return false;
}

/**
 * Where an Authorization header is not read: the refresh call, whose refresh token names the
 * sandbox and the user. Client interceptors attach the (expired) access token to every call;
 * refusing it there would make an expired session impossible to refresh.
 */
const ignoresBearer = '/api/v1/auth/refresh';

/** The request's Bearer token, undefined without one; an empty one is 401. */
function bearerToken(event: H3Event, headers: IncomingHttpHeaders | undefined): string | undefined {
  const authorization = headers ? headers.authorization : event.req.headers.get('authorization');
  if (authorization == null || event.url.pathname === ignoresBearer || !/^\s*bearer(\s|$)/i.test(authorization)) return undefined;
  const token = authorization.trim().slice(6).trim();
  if (!token) throw invalidToken('the Bearer token is empty');
  return token;
}

/**
 * The sandbox a request names: `X-Sandbox` first, then the cookie; malformed is 400. `headerOnly`:
 * a token names the sandbox, so only a malformed header is refused (the cookie is not read).
 */
function namedSandbox(event: H3Event, headers: IncomingHttpHeaders | undefined, headerOnly: boolean): string | undefined {
  const given = headers ? headers['x-sandbox'] : event.req.headers.get('x-sandbox');
  if (given != null) {
    const header = Array.isArray(given) ? given.join(', ') : given;
    if (!sandboxIdPattern.test(header)) throw invalidIdentity('the X-Sandbox header must be 1-128 characters of A-Z a-z 0-9 _ -');
    return header;
  }
  if (headerOnly || (headers && headers.cookie === undefined)) return undefined;
  const cookie = getCookie(event, identityCookie);
  if (cookie === undefined) return undefined;
  if (!sandboxIdPattern.test(cookie)) throw invalidIdentity('the svc_identity cookie must be 1-128 characters of A-Z a-z 0-9 _ -');
  return cookie;
}

/** A token's scope claim as a list, worked out once per token (verified claims are cached objects). */
const scopeLists = new WeakMap<Claims, readonly string[]>();
function scopesOf(claims: Claims): readonly string[] {
  let scopes = scopeLists.get(claims);
  if (!scopes) scopeLists.set(claims, (scopes = scopeList(claims.scope)));
  return scopes;
}

/** The request's context; the context step runs first for every API path, so a route always has one. */
export function contextOf(event: H3Event): RequestContext {
  const ctx = event.context.ctx;
  if (!ctx) throw new Error(`no request context on ${event.url.pathname}: the context step did not run`);
  return ctx;
}
