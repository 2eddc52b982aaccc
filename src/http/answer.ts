import { HTTPError, type H3Event } from 'h3';
import { consola } from 'consola';
import { notFound } from '../engine/errors.js';
import { isCarriedHeader } from './cors.js';
import { toApiError } from './problem.js';

/** What h3's router answers when no route matches (h3 v2 keeps it as a registered symbol). */
const noRoute = Symbol.for('h3.notFound');

/**
 * The chain's headers on whatever the routes answered (the request context's way out). A value
 * keeps them on `event.res.headers`, which h3 merges in; a `Response` (a custom route's, a file, a
 * stream) gets them here, without overriding its own, because h3 would override its own with
 * them, or add none to a status of 400 or more; no route at all is the 404 problem.
 */
export function leave(event: H3Event, answer: unknown): unknown {
  if (answer === noRoute) return toProblemResponse(notFound('no route matches this path'), event);
  if (!(answer instanceof Response)) return answer;
  const prepared = event.res.headers;
  if (prepared.keys().next().done) return answer;
  const headers = new Headers(answer.headers);
  for (const [name, value] of prepared) {
    if (name === 'set-cookie') headers.append(name, value);
    else if (name === 'vary') headers.set(name, mergeTokens(headers.get(name), value));
    else if (!headers.has(name)) headers.set(name, value);
  }
  // h3 would add them a second time.
  for (const name of [...prepared.keys()]) prepared.delete(name);
  return new Response(answer.body, { status: answer.status, statusText: answer.statusText, headers });
}

/**
 * Every error leaves as problem+json, with the chain's headers (CORS, `Vary`, `RateLimit-*`, a
 * minted cookie): the one place error answers get headers. An unexpected error is logged once and
 * hides its internals.
 */
export function toProblemResponse(error: unknown, event: H3Event): Response {
  // h3's own errors (a malformed URL, an unknown route) carry their status; ours carry themselves.
  const framework = HTTPError.isError(error) ? error : undefined;
  const cause = framework?.cause ?? error;
  const problem = toApiError(cause, framework && !framework.unhandled ? framework.status : undefined);
  // A 5xx the client asked for (a simulated status or failure) is not a failure of the server; a
  // problem that wraps an unexpected error (a custom route's, named in its detail) logs that error.
  const unexpected = problem !== cause ? cause : problem.cause;
  if (problem.status >= 500 && unexpected !== undefined) consola.error(`${event.req.method} ${event.url.pathname} failed:`, unexpected);
  const headers = new Headers({ 'content-type': 'application/problem+json', ...problem.headers });
  for (const [name, value] of event.res.headers) {
    if (name === 'set-cookie') headers.append(name, value);
    else if (isCarriedHeader(name) && !headers.has(name)) headers.set(name, value);
  }
  return new Response(JSON.stringify(problem.toProblem()), { status: problem.status, headers });
}

/** `Accept` and `Origin` → `Accept, Origin`, each name once. */
function mergeTokens(own: string | null, added: string): string {
  const names = new Map<string, string>();
  for (const name of `${own ?? ''},${added}`.split(',')) {
    const trimmed = name.trim();
    if (trimmed && !names.has(trimmed.toLowerCase())) names.set(trimmed.toLowerCase(), trimmed);
  }
  return [...names.values()].join(', ');
}
