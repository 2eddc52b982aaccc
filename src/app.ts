import { H3, HTTPError, type H3Event } from 'h3';
import { consola } from 'consola';
import { toApiError } from './errors.js';
import type { Runtime } from './runtime.js';
import { addCollectionRoutes } from './routes/collections.js';
import { addCustomCollectionRoutes } from './routes/custom-collections.js';
import { addCustomCollectionFileRoutes } from './routes/custom-collection-files.js';
import { addHealthRoute } from './routes/health.js';
import { addResetPageRoute } from './routes/reset-page.js';
import { addSandboxRoutes } from './routes/sandbox.js';
import { activityHooks } from './routes/sandbox-info.js';
import { addSandboxTransferRoutes } from './routes/sandbox-transfer.js';
import { drainUnreadBody } from './routes/_drain.js';
import { identify } from './auth/identify.js';
import { addAuthRoutes } from './routes/auth.js';
import { addEventRoutes } from './routes/events.js';
import { addWebhookRoutes } from './routes/webhooks.js';
import { addGraphQLRoutes } from './routes/graphql.js';
import { cors, isCarriedHeader } from './http/cors.js';
import { simulate } from './simulate/simulate.js';
import { customRoutes } from './routes/custom-routes.js';
import { createMetrics } from './metrics/metrics.js';
import { addMetricsRoute } from './routes/metrics.js';
import { addOpenApiRoutes } from './routes/openapi.js';
import { addDocsRoutes } from './routes/docs.js';

/** Builds the HTTP app over a runtime. Never listens: `mockapi serve` and tests do that. */
export function createApp(runtime: Runtime): H3 {
  // silent: h3 would print every thrown ApiError; toProblemResponse logs the unexpected ones itself.
  // activityHooks: each answered request of a sandbox goes to its in-memory activity log.
  // metrics: each answer counted by route pattern and status, with its latency (GET /metrics).
  const metrics = createMetrics(runtime);
  const app = new H3({ silent: true, ...metrics.hooks(unlessPreflight(activityHooks(runtime))), onError: (error, event) => toProblemResponse(error, event) });
  app.use(drainUnreadBody);
  // The request chain (STYLE.md): CORS (a preflight ends here), identify (who asks, in which
  // sandbox), simulate (latency, forced status, flaky, reset, rate limit), then each route's guard.
  app.use(cors(runtime.config));
  app.use(identify(runtime.auth, runtime.config));
  app.use(simulate(runtime.config));
  // The config's custom routes (contract section 19), matched before the generated ones.
  app.use(customRoutes(runtime));
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

/** Every error leaves as problem+json; an unexpected one is logged once and hides its internals. */
function toProblemResponse(error: HTTPError, event: H3Event): Response {
  const cause = error.cause ?? error;
  const problem = toApiError(cause, error.unhandled ? undefined : error.status);
  // A 5xx the client asked for (a simulated status or failure) is not a failure of the server; a
  // problem that wraps an unexpected error (a custom route's, named in its detail) logs that error.
  const unexpected = problem !== cause ? cause : problem.cause;
  if (problem.status >= 500 && unexpected !== undefined) consola.error(`${event.req.method} ${event.url.pathname} failed:`, unexpected);
  const headers = new Headers({ 'content-type': 'application/problem+json', ...problem.headers });
  if (event.context.mintedCookie) headers.append('set-cookie', event.context.mintedCookie);
  // CORS, Vary and RateLimit-* go on every answer, problems included (h3 merges them into successes only).
  for (const [name, value] of event.res.headers) if (isCarriedHeader(name) && !headers.has(name)) headers.set(name, value);
  return new Response(JSON.stringify(problem.toProblem()), { status: problem.status, headers });
}

/** A preflight touches no sandbox (contract section 11): it is not an activity of any. */
function unlessPreflight(hooks: ReturnType<typeof activityHooks>): ReturnType<typeof activityHooks> {
  const { onResponse } = hooks;
  return { ...hooks, onResponse: onResponse && ((response, event) => (event.context.preflight ? undefined : onResponse(response, event))) };
}
