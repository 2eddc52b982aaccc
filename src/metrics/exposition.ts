import { collectDefaultMetrics, Gauge, Registry, type Metric } from 'prom-client';
import { createUsageCounts } from '../db/usage-counts.js';
import type { Runtime } from '../runtime.js';
import type { RequestRecorder } from './request-recorder.js';

const prefix = 'mockapi_';

/**
 * Process metrics (CPU, memory, event loop, GC) are the process's: one registry, made on the
 * first scrape (its event-loop and GC observers start then) and shared by every app.
 */
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry, prefix });
  }
  return processRegistry;
}

/**
 * The Prometheus registry of one app: the recorded requests, and the database-wide counts read
 * at scrape time (each one indexed count, see `db/usage-counts.ts`), and open event streams.
 */
export function createExposition(runtime: Runtime, recorder: RequestRecorder) {
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
  const processes = processMetrics();
  return {
    contentType: registry.contentType,
    /** The Prometheus text of this app's metrics and the process's. */
    async text(): Promise<string> {
      return `${await registry.metrics()}\n${await processes.metrics()}`;
    },
  };
}
