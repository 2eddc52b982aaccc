import { ApiError } from '../errors.js';

/**
 * What a custom route's handler returned, as the answer (contract section 19): a `Response` as it
 * is, `undefined` 204 without a body, anything else 200 JSON. `prepared` are the headers the
 * request chain set (CORS, `Vary`, `RateLimit-*`, a minted identity cookie): they are added here,
 * without overriding the handler's own, for every status (h3 would add only some, and only to some).
 */
export function toAnswer(value: unknown, prepared: Headers): Response {
  if (value instanceof Response) return withPrepared(value, prepared);
  // `return ctx.problem(...)` reads like `throw`: answer it the same way.
  if (value instanceof ApiError) throw value;
  if (value === undefined) return withPrepared(new Response(null, { status: 204 }), prepared);
  const json = JSON.stringify(value);
  // A function or a symbol has no JSON: a mistake of the handler, answered as one (500).
  if (json === undefined) throw new TypeError(`the handler returned a ${typeof value}, which has no JSON form`);
  return withPrepared(new Response(json, { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' } }), prepared);
}

function withPrepared(response: Response, prepared: Headers): Response {
  const headers = new Headers(response.headers);
  for (const [name, value] of prepared) {
    if (name === 'set-cookie') headers.append(name, value);
    else if (name === 'vary') headers.set(name, mergeTokens(headers.get(name), value));
    else if (!headers.has(name)) headers.set(name, value);
  }
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
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
