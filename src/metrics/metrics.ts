import type { Runtime } from '../runtime.js';
import { createRequestRecorder } from './request-recorder.js';

/**
 * `/metrics` of one app (contract section 13): requests and their latency, recorded by the app's
 * response hook (`http/response-hook.ts`) in `recorder`. prom-client (about 100 ms of import)
 * loads on the first scrape, not at start.
 */
export function createMetrics(runtime: Runtime) {
  const recorder = createRequestRecorder((name) => runtime.engine.collection(name) !== undefined);
  let exposition: Promise<{ contentType: string; text(): Promise<string> }> | undefined;

  return {
    recorder,
    /** The Prometheus text and its content type. */
    async scrape(): Promise<{ contentType: string; text: string }> {
      exposition ??= import('./exposition.js').then((module) => module.createExposition(runtime, recorder));
      const { contentType, text } = await exposition;
      return { contentType, text: await text() };
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
