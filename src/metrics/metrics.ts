import { collectDefaultMetrics, Gauge, Registry, type Metric } from 'prom-client';
import type { H3Config } from 'h3';
import { createUsageCounts } from '../db/usage-counts.js';
import type { Runtime } from '../runtime.js';
import { createRequestRecorder } from './request-recorder.js';
import { createRouteLabeller } from './route-label.js';

const prefix = 'mockapi_';

/** Process metrics (CPU, memory, event loop, GC) are the process's: one registry, made on the first app. */
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry, prefix });
  }
  return processRegistry;
}

type Hooks = Pick<H3Config, 'onRequest' | 'onResponse'>;

/**
 * `/metrics` of one app (contract section 13): requests and their latency, recorded in the app's
 * response hook; sandboxes holding data, overlay rows and webhook deliveries counted in SQLite at
 * scrape time; open event streams; and the process metrics.
 */
export function createMetrics(runtime: Runtime) {
  const recorder = createRequestRecorder();
  const labelOf = createRouteLabeller(runtime.config, (name) => runtime.engine.collection(name) !== undefined);
  const counts = createUsageCounts(runtime.db.sqlite);
  const registry = new Registry();
  for (const metric of recorder.metrics(prefix)) registry.registerMetric(metric as unknown as Metric);
  const gauge = (name: string, help: string, collect: (this: Gauge) => void, labelNames: string[] = []) =>
    new Gauge({ name: `${prefix}${name}`, help, labelNames, registers: [registry], collect });
  gauge('sandboxes_holding_data', 'Sandboxes that hold data (overlay rows or snapshots): those limits.maxSandboxes bounds.', function () {
    this.set(counts.sandboxesHoldingData());
  });
  gauge('overlay_rows', "Rows of every sandbox's changes (created, changed and deleted records).", function () {
    this.set(counts.overlayRows());
  });
  gauge(
    'webhook_deliveries',
    'Stored webhook deliveries by status: pending, succeeded, failed.',
    function () {
      const byStatus = counts.deliveriesByStatus();
      for (const status of ['pending', 'succeeded', 'failed']) this.set({ status }, byStatus.get(status) ?? 0);
    },
    ['status'],
  );
  gauge('event_streams_open', 'Open server-sent event streams (GET /api/v1/events/stream).', function () {
    this.set(runtime.streams.size);
  });

  return {
    contentType: registry.contentType,
    /** The Prometheus text of this app's metrics and the process's. */
    async scrape(): Promise<string> {
      return `${await registry.metrics()}\n${await processMetrics().metrics()}`;
    },
    /**
     * The app's hooks, recording each answer before `inner`'s run: its arrival time is the one the
     * activity log takes (`arrivedAt`).
     */
    hooks(inner: Hooks): Hooks {
      processMetrics();
      return {
        onRequest: (event) => {
          const result = inner.onRequest?.(event);
          event.context.arrivedAt ??= performance.now();
          return result;
        },
        onResponse: (response, event) => {
          const started = event.context.arrivedAt;
          recorder.record(labelOf(event), event.req.method, response.status, started === undefined ? 0 : (performance.now() - started) / 1000);
          return inner.onResponse?.(response, event);
        },
      };
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
