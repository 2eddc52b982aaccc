import type { H3Event } from 'h3';

declare module 'h3' {
  interface H3EventContext {
    /** The config's custom route that answered (`GET /users/featured`): the request's route label. */
    customRoute?: string;
  }
}

/** The label of requests no route matched: their URLs would make one series each. */
export const unmatchedRoute = 'unmatched';

/** Latency buckets in seconds: a cached page answers in well under a millisecond, a simulated delay in up to 30 s. */
export const latencyBuckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** One method of one route: its latency histogram and its answers by status. */
interface Series {
  method: string;
  route: string;
  sum: number;
  count: number;
  /** Per bucket (not cumulative; summed up at scrape time); the last slot is +Inf. */
  buckets: Float64Array;
  statuses: Map<number, { count: number }>;
}

/** A metric as prom-client's Registry renders it (`registerMetric` takes any object of this shape). */
export interface CollectedMetric {
  name: string;
  help: string;
  type: 'counter' | 'histogram' | 'gauge';
  get(): { name: string; help: string; type: string; values: { labels: Record<string, string | number>; value: number; metricName?: string }[]; aggregator: string };
}

/**
 * Counts answers by route pattern, method and status, and their latency. Recording is on the path
 * of every request, so it allocates only the first time a series is seen: afterwards two Map
 * lookups, three increments and a bucket search. prom-client's own `labels()` children hash the
 * label values on every call; these cells are rendered through its Registry at scrape time instead.
 */
export function createRequestRecorder(isCollection: (name: string) => boolean) {
  const routes = new Map<string, Map<string, Series>>();
  const labelOf = routeLabeller(isCollection);

  const seriesOf = (route: string, method: string): Series => {
    let byMethod = routes.get(route);
    if (!byMethod) routes.set(route, (byMethod = new Map()));
    let series = byMethod.get(method);
    if (!series) {
      series = { method, route, sum: 0, count: 0, buckets: new Float64Array(latencyBuckets.length + 1), statuses: new Map() };
      byMethod.set(method, series);
    }
    return series;
  };

  const all = function* () {
    for (const byMethod of routes.values()) yield* byMethod.values();
  };

  function record(route: string, method: string, status: number, seconds: number): void {
    const series = seriesOf(route, method);
    const cell = series.statuses.get(status);
    if (cell) cell.count++;
    else series.statuses.set(status, { count: 1 });
    series.sum += seconds;
    series.count++;
    let bucket = 0;
    while (bucket < latencyBuckets.length && seconds > latencyBuckets[bucket]!) bucket++;
    series.buckets[bucket]!++;
  }

  return {
    record,
    /** Records the answer of a request, under its route label. */
    answered(event: H3Event, status: number, seconds: number): void {
      record(labelOf(event), event.req.method, status, seconds);
    },
    metrics(prefix: string): CollectedMetric[] {
      const requests = {
        name: `${prefix}http_requests_total`,
        help: 'HTTP requests answered, by route pattern (never the raw URL), method and status.',
        type: 'counter' as const,
        get() {
          const values = [...all()].flatMap((s) => [...s.statuses].map(([status, cell]) => ({ labels: { method: s.method, route: s.route, status }, value: cell.count })));
          return { name: requests.name, help: requests.help, type: 'counter', values, aggregator: 'sum' };
        },
      };
      const duration = {
        name: `${prefix}http_request_duration_seconds`,
        help: 'Time from the request to its answer, by route pattern and method.',
        type: 'histogram' as const,
        get() {
          const values = [...all()].flatMap((s) => {
            const labels = { method: s.method, route: s.route };
            let cumulative = 0;
            const buckets = [...latencyBuckets, '+Inf' as const].map((le, i) => {
              cumulative += s.buckets[i]!;
              return { labels: { ...labels, le }, value: cumulative, metricName: `${duration.name}_bucket` };
            });
            return [...buckets, { labels, value: s.sum, metricName: `${duration.name}_sum` }, { labels, value: s.count, metricName: `${duration.name}_count` }];
          });
          return { name: duration.name, help: duration.help, type: 'histogram', values, aggregator: 'sum' };
        },
      };
      return [requests, duration];
    },
  };
}

export type RequestRecorder = ReturnType<typeof createRequestRecorder>;

/**
 * The route label of a request: the router's pattern, with `:collection` filled in when it names
 * a collection of the server (`/api/v1/posts/:id`: a bounded set), or the config's custom route
 * that answered it (`GET /users/featured`). Never the raw URL. Each label is made once and kept.
 */
function routeLabeller(isCollection: (name: string) => boolean) {
  const filled = new Map<string, Map<string, string>>();
  return (event: H3Event): string => {
    const custom = event.context.customRoute;
    if (custom !== undefined) return custom;
    const pattern = (event.context.matchedRoute as { route?: string } | undefined)?.route;
    if (pattern === undefined) return unmatchedRoute;
    const collection = event.context.params?.collection;
    if (collection === undefined || !pattern.includes(':collection')) return pattern;
    let byName = filled.get(pattern);
    if (!byName) filled.set(pattern, (byName = new Map()));
    let label = byName.get(collection);
    if (label === undefined) {
      // An unknown name gets the pattern and is not kept: a client must not grow this map.
      if (!isCollection(collection)) return pattern;
      byName.set(collection, (label = pattern.replace(':collection', collection)));
    }
    return label;
  };
}
