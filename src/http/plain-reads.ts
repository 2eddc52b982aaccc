import type { IncomingMessage, ServerResponse } from 'node:http';
import { identityCookie } from '../auth/identity.js';
import { sandboxIdPattern } from '../auth/sandbox-id.js';
import { listQueryOf, noRelations } from '../engine/list-query.js';
import type { RequestRecorder } from '../metrics/request-recorder.js';
import type { Runtime } from '../runtime.js';
import { asksForSimulation, hasRoutes } from './context.js';
import { loggedPath } from './response-hook.js';

/** `/api/v1/{collection}` or `/api/v1/{collection}/{id}`, in characters no URL parser rewrites or decodes. */
const plainPath = /^\/api\/v1\/([A-Za-z0-9_-]+)(?:\/([A-Za-z0-9_-]+))?$/;
/** A query string WHATWG's URL keeps as it is (h3's `event.url.search`, the answer cache's key). */
const plainSearch = /^\?[A-Za-z0-9_.~=&%+,:*-]+$/;
const owner = { role: 'owner', scopes: Object.freeze(['*']) } as const;
const headersOf = (body: string) => ['content-type', 'application/json; charset=utf-8', 'vary', 'Origin', 'content-length', String(Buffer.byteLength(body))];

/**
 * The one read a page makes again and again, answered ahead of h3 (issue 29: h3's event, router,
 * chain and web `Response` were half of a cached answer's cost): a `GET` of a core or declared
 * collection's page or record, in the sandbox its cookie or `X-Sandbox` names, by its owner (no
 * token, tokens not required), asking nothing of CORS (`Origin`), the simulator or the config's
 * custom routes. It goes through the engine exactly as the route does (`engine.for(ctx)`, the same
 * query parse and answer cache) and leaves with the route's status and headers, counted in the
 * metrics and the sandbox's activity log as the route would count it. Anything else, and anything
 * that would not answer 200 (a bad query, a missing record), is h3's: `false` hands it over
 * untouched, since nothing here reads the body or writes the response before it knows.
 */
export function plainReads(runtime: Runtime, recorder: RequestRecorder): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { engine } = runtime;
  const labels = new Map<string, readonly [string, string]>();
  const labelsOf = (name: string) => {
    let pair = labels.get(name);
    if (!pair) labels.set(name, (pair = [`/api/v1/${name}`, `/api/v1/${name}/:id`]));
    return pair;
  };

  // Never throws: whatever fails before the answer is written is h3's to answer (a 500 there is
  // logged); a recording that fails after it must not fail the answer (as in response-hook.ts).
  return (req, res) => {
    try {
      return answer(req, res);
    } catch {
      return res.headersSent;
    }
  };

  function answer(req: IncomingMessage, res: ServerResponse): boolean {
    if (req.method !== 'GET') return false;
    const { headers } = req;
    if (headers.origin !== undefined || headers.authorization !== undefined) return false;
    const config = runtime.config;
    if (config.auth.required || hasRoutes(config)) return false;
    const url = req.url ?? '';
    const mark = url.indexOf('?');
    const path = mark < 0 ? url : url.slice(0, mark);
    const search = mark < 0 ? '' : url.slice(mark);
    const route = plainPath.exec(path);
    if (!route) return false;
    const [, name, id] = route as unknown as [string, string, string | undefined];
    if (search && (id !== undefined || !plainSearch.test(search))) return false;
    if (asksForSimulation(config, search, headers)) return false;
    const store = engine.collection(name);
    if (!store) return false;
    const sandbox = sandboxOf(headers);
    if (sandbox === undefined) return false;

    const arrivedAt = performance.now();
    // A domain error (a bad query: 400, a missing record: 404) throws here, before anything is written.
    const view = engine.for({ ...owner, sandbox });
    const body = id === undefined ? view.listJson(name, listQueryOf(search, config.limits.maxPageSize, store.definition)) : view.recordJson(name, id, noRelations);
    res.writeHead(200, headersOf(body));
    res.end(body);
    const ms = performance.now() - arrivedAt;
    recorder.record(labelsOf(name)[id === undefined ? 0 : 1], 'GET', 200, ms / 1000);
    engine.activity.record(sandbox, 'GET', loggedPath(path), 200, Math.round(ms * 100) / 100, Date.now());
    return true;
  }
}

/** The sandbox `X-Sandbox` or the identity cookie names, when well-formed; else undefined (h3 answers, mints or refuses). */
function sandboxOf(headers: IncomingMessage['headers']): string | undefined {
  const given = headers['x-sandbox'];
  if (given !== undefined) return typeof given === 'string' && sandboxIdPattern.test(given) ? given : undefined;
  const cookie = headers.cookie;
  if (cookie === undefined) return undefined;
  // The first `svc_identity` pair, as h3's getCookie reads it; a quoted or odd value is h3's to judge.
  for (const pair of cookie.split(';')) {
    const equals = pair.indexOf('=');
    if (equals < 0 || pair.slice(0, equals).trim() !== identityCookie) continue;
    const value = pair.slice(equals + 1).trim();
    return sandboxIdPattern.test(value) ? value : undefined;
  }
  return undefined;
}
