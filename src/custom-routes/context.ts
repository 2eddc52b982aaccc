import { STATUS_CODES } from 'node:http';
import type { Identity } from '../auth/identity.js';
import type { SandboxView } from '../engine/sandbox-view.js';
import { ApiError } from '../errors.js';
import { toHttpError } from '../http/problem.js';
import type { RouteContext, RouteRole } from './types.js';

export interface ContextDeps {
  params: Record<string, string>;
  query: URLSearchParams;
  identity: Identity;
  /** The engine bound to the caller (`engine.for`: it authorizes each call; built on first use, so a route that reads no collection mints no cookie). */
  view: () => SandboxView;
  /** The token's account as `GET /auth/me` shows it. */
  user: () => Record<string, unknown> | undefined;
}

/**
 * `ctx` of a custom route (contract section 19). Every engine call is authorized by the engine
 * (`engine.for`) with the scope the REST route would need (`posts:write` to create a post), so a
 * viewer's token may read through a custom route but not write, as everywhere else.
 */
export function createRouteContext(deps: ContextDeps): RouteContext {
  const { identity } = deps;
  let view: SandboxView | undefined;
  const token = identity.token;
  let user: Record<string, unknown> | undefined;
  let userRead = false;

  const collection = (name: string) => {
    const { list, get, create, patch, replace, remove } = asProblems(() => (view ??= deps.view()).collection(name))();
    return { list: asProblems(list), get: asProblems(get), create: asProblems(create), patch: asProblems(patch), replace: asProblems(replace), remove: asProblems(remove) };
  };

  return {
    params: deps.params,
    query: deps.query,
    get sandbox() {
      return identity.sandbox;
    },
    get user() {
      if (!token) return undefined;
      if (!userRead) [user, userRead] = [deps.user(), true];
      return user;
    },
    role: token?.role as RouteRole | undefined,
    collection: collection as RouteContext['collection'],
    problem,
  };
}

/**
 * The engine's domain errors reach a handler as the problems REST would answer with (`status`,
 * `code`, `errors`: `RouteProblem`), so a handler that catches one reads what the client would get.
 */
function asProblems<A extends unknown[], R>(call: (...args: A) => R): (...args: A) => R {
  return (...args) => {
    try {
      const result = call(...args);
      return (result instanceof Promise ? result.catch(rethrow) : result) as R;
    } catch (error) {
      return rethrow(error);
    }
  };
}

const rethrow = (error: unknown): never => {
  throw toHttpError(error) ?? error;
};

/** `ctx.problem(status, code, detail)`: a problem+json error; the title is the status's reason phrase. */
export function problem(status: number, code: string, detail: string): ApiError {
  if (!Number.isInteger(status) || status < 400 || status > 599) {
    throw new TypeError(`ctx.problem: the status must be an integer from 400 to 599, got ${String(status)}`);
  }
  if (typeof code !== 'string' || !code) throw new TypeError('ctx.problem: the code must be a non-empty string such as "ALREADY_LIKED"');
  return new ApiError(status, code, STATUS_CODES[status] ?? 'Error', String(detail ?? ''));
}
