import type { H3Event, Middleware } from 'h3';
import { authorize } from '../auth/authorize.js';
import { toAnswer } from '../custom-routes/answer.js';
import { createRouteContext } from '../custom-routes/context.js';
import { limitedRequest } from '../custom-routes/request.js';
import { compileRoutes, type CustomRoute, type RouteTable } from '../custom-routes/route-table.js';
import { ApiError, methodNotAllowed } from '../errors.js';
import { contextOf } from '../http/context.js';
import { toHttpError } from '../http/problem.js';
import { perConfig } from '../per-config.js';
import type { Runtime } from '../runtime.js';

const apiPrefix = '/api/v1';
/** What h3's router answers when no route matches (h3 v2 keeps it as a registered symbol). */
const noRoute = Symbol.for('h3.notFound');

/**
 * The config's custom routes (contract section 19), the step the request context runs after it
 * (when the config has any): after identify and simulate, before the generated routes, so `GET /users/featured` wins over
 * `/users/{id}`. The route table is compiled once per config, from the config the request
 * started with: a `serve --watch` reload changes routes without rebuilding the app.
 */
export function customRoutes(runtime: Runtime): Middleware {
  return (event, next) => {
    const match = tableOf(contextOf(event).config).match(event.req.method, event.url.pathname.slice(apiPrefix.length) || '/');
    if (!match) return next();
    if (!match.route) return otherMethod(event, next, match.allow);
    event.context.customRoute = match.route.key;
    return run(runtime, event, match.route, match.params);
  };
}

/**
 * A custom path asked with a method it does not define: the generated route answers it if it
 * can (`DELETE /users/7` beside a custom `GET /users/featured`), else 405 with the methods of both.
 */
async function otherMethod(event: H3Event, next: () => unknown, allow: string[]): Promise<unknown> {
  const methods = new Set(allow);
  try {
    const answer = await next();
    if (answer !== noRoute) return answer;
  } catch (error) {
    const problem = toHttpError(error);
    if (!problem || (problem.status !== 404 && problem.status !== 405)) throw error;
    for (const method of problem.status === 405 ? (problem.headers?.allow ?? '').split(/,\s*/) : []) if (method) methods.add(method);
  }
  throw methodNotAllowed(event.req.method, [...methods]);
}

const tableOf = perConfig((config: Runtime['config']): RouteTable => compileRoutes(config.routes));

async function run(runtime: Runtime, event: H3Event, route: CustomRoute, params: Record<string, string>): Promise<Response> {
  const { engine } = runtime;
  const identity = contextOf(event);
  const { config } = identity;
  // The route's own declaration (contract section 19): guests only where public, a token needs the named scope.
  authorize(identity, route.scope ? [route.scope] : [], route.public);
  const ctx = createRouteContext({
    params,
    query: new URLSearchParams(event.url.search),
    identity,
    view: () => engine.for(identity, { maxPageSize: config.limits.maxPageSize }),
    user: () => (identity.token ? runtime.auth.accounts.byId(identity.sandbox, identity.token.sub)?.user : undefined),
  });
  try {
    return toAnswer(await route.handler(limitedRequest(event.req, config.limits.bodyBytes), ctx));
  } catch (error) {
    throw asProblem(error, route);
  }
}

/**
 * A problem leaves as it is (thrown with `ctx.problem`, or the engine's: the problem REST would
 * give). Anything else is the handler's bug: 500 naming the route, without the error's message or
 * stack; the app logs the cause once.
 */
function asProblem(error: unknown, route: CustomRoute): ApiError {
  const known = toHttpError(error);
  if (known) return known;
  const problem = new ApiError(500, 'INTERNAL_ERROR', 'Internal Server Error', `the custom route ${route.key} failed; the server's log shows the error`);
  problem.cause = error;
  return problem;
}
