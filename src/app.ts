import { H3 } from 'h3';
import type { Runtime } from './runtime.js';
import { addCollectionRoutes } from './routes/collections.js';
import { addCustomCollectionRoutes } from './routes/custom-collections.js';
import { addCustomCollectionFileRoutes } from './routes/custom-collection-files.js';
import { addHealthRoute } from './routes/health.js';
import { addResetPageRoute } from './routes/reset-page.js';
import { addSandboxRoutes } from './routes/sandbox.js';
import { addSandboxTransferRoutes } from './routes/sandbox-transfer.js';
import { addAuthRoutes } from './routes/auth.js';
import { addEventRoutes } from './routes/events.js';
import { addWebhookRoutes } from './routes/webhooks.js';
import { addGraphQLRoutes } from './routes/graphql.js';
import { requestContext } from './http/context.js';
import { toProblemResponse } from './http/answer.js';
import { installHooks } from './http/response-hook.js';
import { customRoutes } from './routes/custom-routes.js';
import { createMetrics } from './metrics/metrics.js';
import { addMetricsRoute } from './routes/metrics.js';
import { addOpenApiRoutes } from './routes/openapi.js';
import { addDocsRoutes } from './routes/docs.js';

/** Builds the HTTP app over a runtime. Never listens: `mockapi serve` and tests do that. */
export function createApp(runtime: Runtime): H3 {
  // silent: h3 would print every thrown ApiError; toProblemResponse logs the unexpected ones itself.
  // onError: only what fails before the request context (it answers every error after it itself).
  const metrics = createMetrics(runtime);
  const app = new H3({ silent: true, onError: (error, event) => toProblemResponse(error, event) });
  // Around every answer: the metrics and the sandbox's activity log.
  installHooks(app, metrics.recorder, runtime.engine.activity);
  // The request chain (STYLE.md): the request context (CORS, a preflight ends here; who asks, in
  // which sandbox; simulation), the config's custom routes (contract section 19, matched before
  // the generated ones), then each generated route's guard.
  app.use(requestContext(runtime, customRoutes(runtime)));
  addHealthRoute(app, runtime);
  addResetPageRoute(app);
  addMetricsRoute(app, metrics);
  addDocsRoutes(app);
  addOpenApiRoutes(app, runtime);
  addAuthRoutes(app, runtime);
  addSandboxRoutes(app, runtime);
  addSandboxTransferRoutes(app, runtime);
  addEventRoutes(app, runtime);
  addWebhookRoutes(app, runtime);
  addGraphQLRoutes(app, runtime);
  addCustomCollectionFileRoutes(app, runtime);
  addCustomCollectionRoutes(app, runtime);
  addCollectionRoutes(app, runtime);
  return app;
}
