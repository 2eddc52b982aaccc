import type { IncomingMessage, ServerResponse } from 'node:http';
import { H3 } from 'h3';
import { toNodeHandler } from 'h3/node';
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
import { plainReads } from './http/plain-reads.js';
import { customRoutes } from './routes/custom-routes.js';
import { createMetrics } from './metrics/metrics.js';
import type { RequestRecorder } from './metrics/request-recorder.js';
import { addMetricsRoute } from './routes/metrics.js';
import { addOpenApiRoutes } from './routes/openapi.js';
import { addDocsRoutes } from './routes/docs.js';

/** Builds the HTTP app over a runtime. Never listens: `mockapi serve` and tests do that. */
export function createApp(runtime: Runtime): H3 {
  return buildApp(runtime).app;
}

/**
 * What a node:http server serves (`mockapi serve`, `createMockServer`, the tests' servers): the app,
 * with a page or record read again and again answered ahead of it (`http/plain-reads.ts`).
 */
export function createNodeHandler(runtime: Runtime): (req: IncomingMessage, res: ServerResponse) => unknown {
  const { plain, h3 } = createNodeHandlers(runtime);
  return (req, res) => (plain(req, res) ? undefined : h3(req, res));
}

/** The two halves of `createNodeHandler`: `plain` answers synchronously or says false, `h3` answers the rest. */
export function createNodeHandlers(runtime: Runtime) {
  const { app, recorder } = buildApp(runtime);
  return { plain: plainReads(runtime, recorder), h3: toNodeHandler(app) };
}

function buildApp(runtime: Runtime): { app: H3; recorder: RequestRecorder } {
  // silent: h3 would print every thrown ApiError; toProblemResponse logs the unexpected ones itself.
  // onError: only what fails before the request context (it answers every error after it itself).
  const metrics = createMetrics(runtime);
  const app = new H3({ silent: true, onError: (error, event) => toProblemResponse(error, event) });
  // Around every answer: the unread body drained, the metrics and the sandbox's activity log.
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
  return { app, recorder: metrics.recorder };
}
