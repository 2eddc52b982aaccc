import type { H3Config } from 'h3';
import type { Runtime } from '../runtime.js';
import { createRequestRecorder } from './request-recorder.js';
import { createRouteLabeller, unmatchedRoute } from './route-label.js';

type Hooks = Pick<H3Config, 'onRequest' | 'onResponse'>;

/**
 * `/metrics` of one app (contract section 13): requests and their latency, recorded in the app's
 * response hook. prom-client (about 100 ms of import) loads on the first scrape, not at start.
 */
export function createMetrics(runtime: Runtime) {
  const recorder = createRequestRecorder();
  const labelOf = createRouteLabeller(() => runtime.config, (name) => runtime.engine.collection(name) !== undefined);
  let exposition: Promise<{ contentType: string; text(): Promise<string> }> | undefined;

  return {
    /** The Prometheus text and its content type. */
    async scrape(): Promise<{ contentType: string; text: string }> {
      exposition ??= import('./exposition.js').then((module) => module.createExposition(runtime, recorder));
      const { contentType, text } = await exposition;
      return { contentType, text: await text() };
    },
    /** Records an answer given before the app made an event (a URL h3 refuses). */
    recordUnseen(response: Response, request: Request): void {
      recorder.record(unmatchedRoute, request.method, response.status, 0);
    },
    /**
     * The app's hooks, recording each answer before `inner`'s run: its arrival time is the one the
     * activity log takes (`arrivedAt`).
     */
    hooks(inner: Hooks): Hooks {
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
