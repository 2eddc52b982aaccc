/**
 * One error type for the whole service. Every error leaves as `application/problem+json`
 * (RFC 9457) with a stable upper-snake `code`, through one place (`http/answer.ts`). The engine
 * throws these for rule violations and returns `undefined` for a missing record; they carry HTTP
 * statuses, so the engine is not yet free of HTTP words (issue 31.2: domain errors that
 * `src/http/` words as problems).
 */
export interface FieldProblem {
  /** JSON Pointer into the request body, e.g. `/address/geo/lat`; in an uploaded table, the cell (`B3`), row (`3`) or `''` for the file. */
  path: string;
  message: string;
  /** In an uploaded table (CSV, XLSX): the 1-based row and column, as a spreadsheet shows them. */
  row?: number;
  column?: number;
}

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

export const notFound = (detail: string) => new ApiError(404, 'NOT_FOUND', 'Not Found', detail);

export const methodNotAllowed = (method: string, allow: string[]) =>
  new ApiError(405, 'METHOD_NOT_ALLOWED', 'Method Not Allowed', `${method} is not allowed here; use ${allow.join(', ')}`, undefined, {
    allow: allow.join(', '),
  });

export const validationFailed = (errors: FieldProblem[]) =>
  new ApiError(
    422,
    'VALIDATION_FAILED',
    'Validation Failed',
    errors.length === 1 ? `${errors[0].path} ${errors[0].message}` : `${errors.length} fields are invalid`,
    errors,
  );

export const invalidQuery = (parameter: string, reason: string) =>
  new ApiError(400, 'INVALID_QUERY', 'Invalid Query', `query parameter "${parameter}" ${reason}`);

export const invalidCursor = (reason: string) =>
  new ApiError(400, 'INVALID_CURSOR', 'Invalid Cursor', `query parameter "cursor" ${reason}; start again without it`);

export const invalidJson = (detail: string) => new ApiError(400, 'INVALID_JSON', 'Invalid JSON', detail);

export const invalidBody = (detail: string) => new ApiError(400, 'INVALID_BODY', 'Invalid Body', detail);

export const invalidTable = (detail: string, errors: FieldProblem[]) => new ApiError(400, 'INVALID_TABLE', 'Invalid Table', detail, errors);

export const invalidName = (detail: string) => new ApiError(400, 'INVALID_NAME', 'Invalid Name', detail);

export const invalidIdentity = (detail: string) => new ApiError(400, 'INVALID_IDENTITY', 'Invalid Identity', detail);

export const unsupportedMediaType = (detail: string) =>
  new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Unsupported Media Type', detail);

export const payloadTooLarge = (limit: number) =>
  new ApiError(413, 'PAYLOAD_TOO_LARGE', 'Payload Too Large', `the request body exceeds ${limit} bytes`);

export const quotaExceeded = (detail: string) => new ApiError(403, 'QUOTA_EXCEEDED', 'Quota Exceeded', detail);

export const conflict = (detail: string, errors?: FieldProblem[]) => new ApiError(409, 'CONFLICT', 'Conflict', detail, errors);

/**
 * 401s carry `WWW-Authenticate: Bearer` (RFC 6750), with `error="invalid_token"` when the request
 * presented a token that failed.
 */
const unauthorizedAs = (code: string, title: string, detail: string, tokenPresented: boolean) =>
  new ApiError(401, code, title, detail, undefined, {
    'www-authenticate': tokenPresented ? `Bearer error="invalid_token", error_description="${detail.replaceAll('"', "'")}"` : 'Bearer',
  });

export const unauthorized = (detail: string) => unauthorizedAs('UNAUTHORIZED', 'Unauthorized', detail, false);
export const invalidToken = (detail: string) => unauthorizedAs('INVALID_TOKEN', 'Invalid Token', detail, true);
export const tokenExpired = (detail: string) => unauthorizedAs('TOKEN_EXPIRED', 'Token Expired', detail, true);
export const tokenNotYetValid = (detail: string) => unauthorizedAs('TOKEN_NOT_YET_VALID', 'Token Not Yet Valid', detail, true);
export const refreshTokenReused = (detail: string) => unauthorizedAs('REFRESH_TOKEN_REUSED', 'Refresh Token Reused', detail, true);
export const invalidCredentials = () =>
  unauthorizedAs('INVALID_CREDENTIALS', 'Invalid Credentials', 'no account matches this username or email and password', false);

export const forbidden = (detail: string) => new ApiError(403, 'FORBIDDEN', 'Forbidden', detail);

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

/** Codes for statuses that the framework raises itself (unknown route, malformed URL). */
const codeByStatus: Record<number, [string, string]> = {
  400: ['BAD_REQUEST', 'Bad Request'],
  404: ['NOT_FOUND', 'Not Found'],
  405: ['METHOD_NOT_ALLOWED', 'Method Not Allowed'],
  413: ['PAYLOAD_TOO_LARGE', 'Payload Too Large'],
  415: ['UNSUPPORTED_MEDIA_TYPE', 'Unsupported Media Type'],
};

/** Maps any thrown value to an ApiError; unexpected ones become a 500 without internals. */
export function toApiError(error: unknown, status?: number): ApiError {
  if (error instanceof ApiError) return error;
  if (status && status < 500 && codeByStatus[status]) {
    const [code, title] = codeByStatus[status];
    const detail = status === 404 ? 'no route matches this path' : title;
    return new ApiError(status, code, title, detail);
  }
  return new ApiError(500, 'INTERNAL_ERROR', 'Internal Server Error', 'the server failed to answer this request');
}
