/**
 * The HTTP errors: what only a request can get wrong (a method, a body's type or size, a token,
 * a simulated status, CORS), with their statuses and headers. Every error leaves as
 * `application/problem+json` (RFC 9457) with a stable upper-snake `code`, through one place
 * (`http/answer.ts`); the engine throws domain errors (`engine/errors.ts`), which
 * `http/problem.ts` words as these.
 */
import type { FieldProblem } from './engine/errors.js';

export type { FieldProblem };

export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    detail: string,
    readonly errors?: FieldProblem[],
    readonly headers?: Record<string, string>,
  ) {
    super(detail);
  }

  toProblem(): Record<string, unknown> {
    return {
      type: `https://mockapi.dev/problems/${this.code.toLowerCase().replaceAll('_', '-')}`,
      title: this.title,
      status: this.status,
      detail: this.message,
      code: this.code,
      ...(this.errors ? { errors: this.errors } : {}),
    };
  }
}

export const methodNotAllowed = (method: string, allow: string[]) =>
  new ApiError(405, 'METHOD_NOT_ALLOWED', 'Method Not Allowed', `${method} is not allowed here; use ${allow.join(', ')}`, undefined, {
    allow: allow.join(', '),
  });

export const invalidJson = (detail: string) => new ApiError(400, 'INVALID_JSON', 'Invalid JSON', detail);

export const invalidBody = (detail: string) => new ApiError(400, 'INVALID_BODY', 'Invalid Body', detail);

export const invalidIdentity = (detail: string) => new ApiError(400, 'INVALID_IDENTITY', 'Invalid Identity', detail);

export const unsupportedMediaType = (detail: string) =>
  new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Unsupported Media Type', detail);

export const payloadTooLarge = (limit: number) =>
  new ApiError(413, 'PAYLOAD_TOO_LARGE', 'Payload Too Large', `the request body exceeds ${limit} bytes`);

/**
 * 401s carry `WWW-Authenticate: Bearer` (RFC 6750), with `error="invalid_token"` when the request
 * presented a token that failed.
 */
const unauthorizedAs = (code: string, title: string, detail: string, tokenPresented: boolean) =>
  new ApiError(401, code, title, detail, undefined, {
    'www-authenticate': tokenPresented ? `Bearer error="invalid_token", error_description="${detail.replaceAll('"', "'")}"` : 'Bearer',
  });

export const invalidToken = (detail: string) => unauthorizedAs('INVALID_TOKEN', 'Invalid Token', detail, true);
export const tokenExpired = (detail: string) => unauthorizedAs('TOKEN_EXPIRED', 'Token Expired', detail, true);
export const tokenNotYetValid = (detail: string) => unauthorizedAs('TOKEN_NOT_YET_VALID', 'Token Not Yet Valid', detail, true);
export const refreshTokenReused = (detail: string) => unauthorizedAs('REFRESH_TOKEN_REUSED', 'Refresh Token Reused', detail, true);
export const invalidCredentials = () =>
  unauthorizedAs('INVALID_CREDENTIALS', 'Invalid Credentials', 'no account matches this username or email and password', false);

export const invalidResetToken = () =>
  new ApiError(400, 'INVALID_RESET_TOKEN', 'Invalid Reset Token', 'this reset token is unknown, used or superseded by a newer one; ask for a new one');

export const invalidSimulation = (detail: string) => new ApiError(400, 'INVALID_SIMULATION', 'Invalid Simulation', detail);

/** 429 from a simulated rate limit (contract section 11); `headers` carry `Retry-After` and the `RateLimit-*` trio. */
export const rateLimited = (detail: string, headers: Record<string, string>) =>
  new ApiError(429, 'RATE_LIMITED', 'Too Many Requests', detail, undefined, headers);

export const simulatedFailure = (detail: string) => new ApiError(503, 'SIMULATED_FAILURE', 'Simulated Failure', detail);

/** The status a client asked for with `X-Simulate-Status` / `_status`; `title` is the status's reason phrase. */
export const simulatedStatus = (status: number, title: string, headers?: Record<string, string>) =>
  new ApiError(status, 'SIMULATED_STATUS', title, `status ${status} simulated on request (X-Simulate-Status or _status); nothing was changed`, undefined, headers);

export const corsOriginNotAllowed = (origin: string) =>
  new ApiError(403, 'CORS_ORIGIN_NOT_ALLOWED', 'CORS Origin Not Allowed', `the origin ${JSON.stringify(origin)} is not in this server's cors.origins`);

/**
 * The client went away (it closed the connection during a simulated delay, or asked for a
 * simulated reset): nothing is sent. 499 is nginx's word for it; the activity log shows it.
 */
export const clientClosedRequest = () => new ApiError(499, 'CLIENT_CLOSED_REQUEST', 'Client Closed Request', 'the connection closed before the answer');
