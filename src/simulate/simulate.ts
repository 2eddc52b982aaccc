import { STATUS_CODES, type IncomingHttpHeaders } from 'node:http';
import type { H3Event } from 'h3';
import { parseDuration } from '../duration.js';
import type { ResolvedConfig } from '../config.js';
import { clientClosedRequest, invalidSimulation, rateLimited, simulatedFailure, simulatedStatus } from '../errors.js';
import { delay } from './delay.js';
import { parseLatency, pickDelay, type LatencyRange } from './latency.js';
import { createRateLimiter, parseRateLimit, type RateRule } from './rate-limit.js';
import { perConfig } from '../per-config.js';

/** What one request asked for, every value checked before anything waits or answers (`ctx.simulate`). */
export interface Simulation {
  latency?: LatencyRange;
  status?: number;
  flaky?: number;
  reset: boolean;
  rateLimit?: RateRule;
  /** `X-Simulate-Clock-Skew` in seconds: the request's clock is shifted by it (at most ±5 minutes). */
  clockSkew: number;
  /** `X-Simulate-JWT-Expiry` in seconds: tokens issued by this request live at most this long. */
  jwtExpiry?: number;
}

/** `X-Simulate-Clock-Skew` may shift the clock by at most five minutes either way (contract section 7). */
export const maxSkewSeconds = 300;
const skewUnits: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600 };

/**
 * The simulation a request asks for (contract section 11), read once by the request context:
 * latency, a forced status, flaky failures, a network reset and a per-sandbox rate limit, by
 * header, by query (`_delay`, `_status`) or from the config (`simulate.latency`,
 * `simulate.rateLimit`, `serve --latency`), and the clock skew and token expiry auth reads.
 * Undefined when it asks for nothing: a few header lookups, no object.
 */
export function readSimulation(event: H3Event, config: ResolvedConfig): Simulation | undefined {
  const headers = event.req.headers;
  const parsed = event.runtime?.node?.req.headers;
  const latency = header(parsed, headers, 'x-simulate-latency');
  const status = header(parsed, headers, 'x-simulate-status');
  const flaky = header(parsed, headers, 'x-simulate-flaky');
  const network = header(parsed, headers, 'x-simulate-network');
  const rate = header(parsed, headers, 'x-simulate-rate-limit');
  const skew = header(parsed, headers, 'x-simulate-clock-skew');
  const expiry = header(parsed, headers, 'x-simulate-jwt-expiry');
  const query = simulationQuery(event);
  const fromConfig = defaults(config);
  if (latency === null && status === null && flaky === null && network === null && rate === null && skew === null && expiry === null && !query && !fromConfig) {
    return undefined;
  }
  return {
    latency: query?.delay !== undefined ? parseLatency(query.delay, 'query parameter "_delay"') : latency !== null ? parseLatency(latency, 'X-Simulate-Latency') : fromConfig?.latency,
    status: query?.status !== undefined ? parseStatus(query.status, 'query parameter "_status"') : status !== null ? parseStatus(status, 'X-Simulate-Status') : undefined,
    flaky: flaky === null ? undefined : parseRatio(flaky),
    reset: network !== null && parseNetwork(network),
    rateLimit: rate !== null ? parseRateLimit(rate, 'X-Simulate-Rate-Limit') : fromConfig?.rateLimit,
    clockSkew: skew === null ? 0 : parseSkew(skew),
    jwtExpiry: expiry === null ? undefined : parseJwtExpiry(expiry),
  };
}

/**
 * Runs what a simulation asks for before the route: latency (paid before the route runs, never
 * inside it: a long-lived stream is not held back), then a reset, the rate limit of the caller's sandbox, a
 * forced status or a flaky failure (each throws its problem). A promise only when it waits.
 */
export function runSimulation(event: H3Event, plan: Simulation, who: { readonly sandbox: string }, limiter: RateLimiter): void | Promise<void> {
  const ms = plan.latency ? pickDelay(plan.latency) : 0;
  if (ms > 0) return delay(ms, event.req.signal).then(() => act(event, plan, who, limiter));
  return act(event, plan, who, limiter);
}

function act(event: H3Event, plan: Simulation, who: { readonly sandbox: string }, limiter: RateLimiter): void {
  if (plan.reset) resetConnection(event);
  if (plan.rateLimit) {
    const decision = limiter.take(who.sandbox, plan.rateLimit, Date.now());
    const limitHeaders = {
      'ratelimit-limit': String(decision.limit),
      'ratelimit-remaining': String(decision.remaining),
      'ratelimit-reset': String(decision.resetSeconds),
    };
    // On every answer while the limit applies, errors included (the context carries them onto problems).
    for (const [name, value] of Object.entries(limitHeaders)) event.res.headers.set(name, value);
    if (!decision.allowed) {
      throw rateLimited(`this sandbox may send ${decision.limit} requests per window; try again in ${decision.resetSeconds} s`, {
        ...limitHeaders,
        'retry-after': String(decision.resetSeconds),
      });
    }
  }
  if (plan.status !== undefined) throw simulatedStatus(plan.status, STATUS_CODES[plan.status] ?? `Status ${plan.status}`, statusHeaders(plan.status));
  if (plan.flaky !== undefined && Math.random() < plan.flaky) {
    throw simulatedFailure(`a simulated failure (X-Simulate-Flaky: ${plan.flaky}); nothing was changed`);
  }
}

/** The rate limiter of one app: per sandbox, bounded by the sandboxes a server keeps. */
export const createSimulationLimiter = (config: ResolvedConfig): RateLimiter => createRateLimiter(Math.max(config.limits.maxSandboxes, 1_000));
type RateLimiter = ReturnType<typeof createRateLimiter>;

/** `+120s`, `-60s`, `90` (seconds): at most five minutes either way, else 400. */
export function parseSkew(text: string): number {
  const match = /^\s*([+-])?(\d+(?:\.\d+)?)(ms|s|m|h)?\s*$/.exec(text);
  const seconds = match ? Number(match[2]) * skewUnits[match[3] ?? 's'] * (match[1] === '-' ? -1 : 1) : NaN;
  if (!Number.isFinite(seconds) || Math.abs(seconds) > maxSkewSeconds) {
    throw invalidSimulation(`X-Simulate-Clock-Skew must be a signed duration of at most 5 minutes, such as "+120s" or "-5m"; got ${JSON.stringify(text)}`);
  }
  return seconds;
}

function parseJwtExpiry(text: string): number {
  const ttl = parseDuration(text);
  if (ttl === undefined) throw invalidSimulation(`X-Simulate-JWT-Expiry must be seconds or a duration such as "0", "5s" or "1m"; got ${JSON.stringify(text)}`);
  return ttl;
}

/**
 * A header by its lower-case name. Node's parsed header object when the request came through
 * `node:http` (repeated `X-` headers already joined with ", ", as `Headers.get` does): an absent
 * header is one property read there, where srvx's `Headers` shim lowercases the name and tests
 * it with a regular expression, seven times a request.
 */
function header(parsed: IncomingHttpHeaders | undefined, headers: Headers, name: string): string | null {
  if (!parsed) return headers.get(name);
  const value = parsed[name];
  return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
}

/**
 * `_delay` and `_status`, taken out of the URL: the list parser never sees them, and a delayed
 * read shares its cache entry with the same read undelayed. The substring test keeps the common
 * request (no such parameter) from parsing its query string here.
 */
function simulationQuery(event: H3Event): { delay?: string; status?: string } | undefined {
  const search = event.url.search;
  if (search.length < 2 || (!search.includes('_delay') && !search.includes('_status'))) return undefined;
  const params = event.url.searchParams;
  const delay = params.get('_delay') ?? undefined;
  const status = params.get('_status') ?? undefined;
  if (delay === undefined && status === undefined) return undefined;
  params.delete('_delay');
  params.delete('_status');
  return { delay, status };
}

/** The config's simulation defaults, parsed once per config. */
const defaults = perConfig(({ simulate }: ResolvedConfig) => (simulate.latency === undefined && simulate.rateLimit === undefined ? undefined : parseSimulationConfig({ simulate })));

/**
 * The config's simulation defaults, checked: `serve` calls it before it opens anything, so a bad
 * value is a start-up error naming the key (the schema checks the syntax, not the 30 s bound).
 */
export function parseSimulationConfig(config: Pick<ResolvedConfig, 'simulate'>): { latency?: LatencyRange; rateLimit?: RateRule } {
  const { latency, rateLimit } = config.simulate;
  try {
    return {
      latency: latency === undefined ? undefined : parseLatency(latency, 'simulate.latency'),
      rateLimit: rateLimit === undefined ? undefined : parseRateLimit(rateLimit, 'simulate.rateLimit'),
    };
  } catch (error) {
    throw new Error(`config: ${(error as Error).message}`);
  }
}

/** A status to answer with a problem body: an error status, 400 to 599. */
function parseStatus(text: string, source: string): number {
  const status = /^\s*\d{3}\s*$/.test(text) ? Number(text) : NaN;
  if (!(status >= 400 && status <= 599)) throw invalidSimulation(`${source} must be an error status from 400 to 599; got ${JSON.stringify(text)}`);
  return status;
}

/** `0.3`: 30 % of requests fail. */
function parseRatio(text: string): number {
  const ratio = /^\s*(?:0(?:\.\d{1,9})?|1(?:\.0{1,9})?|\.\d{1,9})\s*$/.test(text) ? Number(text) : NaN;
  if (!(ratio >= 0 && ratio <= 1)) throw invalidSimulation(`X-Simulate-Flaky must be a failure ratio from 0 to 1, such as "0.3"; got ${JSON.stringify(text)}`);
  return ratio;
}

function parseNetwork(text: string): boolean {
  if (text.trim().toLowerCase() !== 'reset') throw invalidSimulation(`X-Simulate-Network must be "reset"; got ${JSON.stringify(text)}`);
  return true;
}

/** Headers a client's error handling looks for on these statuses. */
function statusHeaders(status: number): Record<string, string> | undefined {
  if (status === 401) return { 'www-authenticate': 'Bearer' };
  if (status === 429 || status === 503) return { 'retry-after': '1' };
  return undefined;
}

/** Destroys the socket under the request (node's `IncomingMessage.socket`): the client sees a reset, no answer. */
function resetConnection(event: H3Event): never {
  const socket = event.runtime?.node?.req.socket;
  if (!socket) throw simulatedFailure('X-Simulate-Network: reset needs a Node.js server; answered 503 instead');
  // resetAndDestroy sends a TCP RST (a true "connection reset"); destroy alone closes with FIN.
  if ('resetAndDestroy' in socket && typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
  else socket.destroy();
  throw clientClosedRequest();
}
