import type { H3Event, Middleware } from 'h3';
import type { ResolvedConfig } from '../config.js';
import { bearerToken, namedSandbox, scopesOf } from '../auth/identify.js';
import { mintSandbox } from '../auth/identity.js';
import type { Role } from '../auth/scopes.js';
import type { Auth } from '../auth/service.js';
import type { Claims, Clock } from '../auth/tokens.js';
import { createSimulationDefaults, createSimulationLimiter, readSimulation, runSimulation, type Simulation } from '../simulate/simulate.js';
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
export function requestContext(runtime: { config: ResolvedConfig; auth: Auth }): Middleware {
  const cors = createCors();
  const defaults = createSimulationDefaults();
  const limiter = createSimulationLimiter(runtime.config);

  const proceed = (event: H3Event, ctx: Context, next: () => unknown): unknown => {
    event.context.ctx = ctx;
    if (!ctx.simulate) return next();
    const waited = runSimulation(event, ctx.simulate, ctx, limiter);
    return waited ? waited.then(next) : next();
  };

  const enter = (event: H3Event, next: () => unknown): unknown => {
    const config = runtime.config;
    const preflight = cors(event, config);
    if (preflight) return preflight;
    if (!isApiPath(event.url.pathname)) return next();
    const simulate = readSimulation(event, config, defaults);
    const token = bearerToken(event);
    if (token !== undefined) {
      // A token names the sandbox itself; a malformed X-Sandbox beside it is still 400 (contract section 11).
      namedSandbox(event, true);
      const clock = clockOf(config, simulate);
      // Synchronous for a token seen before: no promise on the hot path.
      const seen = runtime.auth.verifySeenAccess(token, clock);
      if (seen) return proceed(event, withToken(event, config, seen, simulate), next);
      return runtime.auth.verifyAccess(token, clock).then((claims) => proceed(event, withToken(event, config, claims, simulate), next));
    }
    const guest = config.auth.required;
    const ctx = new Context(event, config, guest ? 'guest' : 'owner', guest ? guestScopes : ownerScopes, undefined, simulate, namedSandbox(event, false));
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
    return leave(event, answer);
  };
}

/** The request's context; the context step runs first for every API path, so a route always has one. */
export function contextOf(event: H3Event): RequestContext {
  const ctx = event.context.ctx;
  if (!ctx) throw new Error(`no request context on ${event.url.pathname}: the context step did not run`);
  return ctx;
}
