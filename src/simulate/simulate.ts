import { STATUS_CODES } from 'node:http';
import type { H3Event, Middleware } from 'h3';
import type { ResolvedConfig } from '../config.js';
import { clientClosedRequest, invalidSimulation, rateLimited, simulatedFailure, simulatedStatus } from '../errors.js';
import { delay } from './delay.js';
import { parseLatency, pickDelay, type LatencyRange } from './latency.js';
import { createRateLimiter, parseRateLimit, type RateRule } from './rate-limit.js';

/** What one request asked for, all values checked before anything waits or answers. */
interface Plan {
  latency?: LatencyRange;
  status?: number;
  flaky?: number;
  reset: boolean;
  rateLimit?: RateRule;
}

/**
 * The simulate step of the request chain (contract section 11), after identify and before each
 * route's guard: latency, a forced status, flaky failures, a network reset and a per-sandbox
 * rate limit, by header, by query (`_delay`, `_status`) or from the config (`simulate.latency`,
 * `simulate.rateLimit`, `serve --latency`). API paths only: `/health` stays a true health check.
 * A request that asks for nothing costs a few header lookups; the config is read on every request
 * because `--watch` swaps `config.simulate` in place.
 */
export function simulate(config: ResolvedConfig): Middleware {
  const limiter = createRateLimiter(Math.max(config.limits.maxSandboxes, 1_000));
  const fromConfig = configDefaults(config);
  return (event) => {
    if (!isApiPath(event.url.pathname)) return;
    const headers = event.req.headers;
    const latency = headers.get('x-simulate-latency');
    const status = headers.get('x-simulate-status');
    const flaky = headers.get('x-simulate-flaky');
    const network = headers.get('x-simulate-network');
    const rate = headers.get('x-simulate-rate-limit');
    const query = simulationQuery(event);
    const defaults = fromConfig();
    if (latency === null && status === null && flaky === null && network === null && rate === null && !query && !defaults) return;

    const plan: Plan = {
      latency: query?.delay !== undefined ? parseLatency(query.delay, 'query parameter "_delay"') : latency !== null ? parseLatency(latency, 'X-Simulate-Latency') : defaults?.latency,
      status: query?.status !== undefined ? parseStatus(query.status, 'query parameter "_status"') : status !== null ? parseStatus(status, 'X-Simulate-Status') : undefined,
      flaky: flaky === null ? undefined : parseRatio(flaky),
      reset: network !== null && parseNetwork(network),
      rateLimit: rate !== null ? parseRateLimit(rate, 'X-Simulate-Rate-Limit') : defaults?.rateLimit,
    };
    const ms = plan.latency ? pickDelay(plan.latency) : 0;
    // Latency is paid before the route runs, never inside it: a long-lived stream is not held back.
    if (ms > 0) return delay(ms, event.req.signal).then(() => act(event, plan));
    return act(event, plan);
  };

  function act(event: H3Event, plan: Plan): void {
    if (plan.reset) resetConnection(event);
    if (plan.rateLimit) {
      const decision = limiter.take(event.context.identity?.sandbox ?? '', plan.rateLimit, Date.now());
      const limitHeaders = {
        'ratelimit-limit': String(decision.limit),
        'ratelimit-remaining': String(decision.remaining),
        'ratelimit-reset': String(decision.resetSeconds),
      };
      // On every answer while the limit applies, errors included (app.ts carries them onto problems).
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
}

const isApiPath = (path: string) => path === '/api/v1' || path.startsWith('/api/v1/');

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

/** The config's defaults, parsed once per value (a `--watch` reload may change them). */
function configDefaults(config: ResolvedConfig): () => { latency?: LatencyRange; rateLimit?: RateRule } | undefined {
  let seenLatency: unknown;
  let seenRate: unknown;
  let parsed: { latency?: LatencyRange; rateLimit?: RateRule } | undefined;
  return () => {
    const { latency, rateLimit } = config.simulate;
    if (latency === seenLatency && rateLimit === seenRate) return parsed;
    seenLatency = latency;
    seenRate = rateLimit;
    parsed = latency === undefined && rateLimit === undefined ? undefined : parseSimulationConfig(config);
    return parsed;
  };
}

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
