import { ApiError } from '../errors.js';

/**
 * What a custom route's handler returned, as the answer (contract section 19): a `Response` as it
 * is, `undefined` 204 without a body, anything else 200 JSON. The request context adds the chain's
 * headers (CORS, `Vary`, `RateLimit-*`, a minted cookie) without overriding the handler's own.
 */
export function toAnswer(value: unknown): Response {
  if (value instanceof Response) return value;
  // `return ctx.problem(...)` reads like `throw`: answer it the same way.
  if (value instanceof ApiError) throw value;
  if (value === undefined) return new Response(null, { status: 204 });
  const json = JSON.stringify(value);
  // A function or a symbol has no JSON: a mistake of the handler, answered as one (500).
  if (json === undefined) throw new TypeError(`the handler returned a ${typeof value}, which has no JSON form`);
  return new Response(json, { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' } });
}
