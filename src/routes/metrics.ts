import type { H3 } from 'h3';
import type { Metrics } from '../metrics/metrics.js';
import { route } from './_resource.js';

/** `GET /metrics` (outside `/api/v1`): Prometheus text, for a scraper. */
export function addMetricsRoute(app: H3, metrics: Metrics): void {
  route(app, '/metrics', {
    GET: {
      open: true,
      handler: async (event) => {
        const { contentType, text } = await metrics.scrape();
        event.res.headers.set('content-type', contentType);
        event.res.headers.set('cache-control', 'no-store');
        return text;
      },
    },
  });
}
