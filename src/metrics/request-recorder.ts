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
export function createRequestRecorder() {
  const routes = new Map<string, Map<string, Series>>();

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

  return {
    record(route: string, method: string, status: number, seconds: number): void {
      const series = seriesOf(route, method);
      const cell = series.statuses.get(status);
      if (cell) cell.count++;
      else series.statuses.set(status, { count: 1 });
      series.sum += seconds;
      series.count++;
      let bucket = 0;
      while (bucket < latencyBuckets.length && seconds > latencyBuckets[bucket]!) bucket++;
      series.buckets[bucket]!++;
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
