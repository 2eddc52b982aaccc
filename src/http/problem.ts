import { ApiError } from '../errors.js';
import { DomainError, type DomainCode } from '../engine/errors.js';

/**
 * How each domain error is worded on the wire: the one place a domain code gets its HTTP status
 * and title. A 401 carries `WWW-Authenticate: Bearer` (RFC 6750).
 */
const wording: Record<DomainCode, { status: number; title: string; headers?: Record<string, string> }> = {
  NOT_FOUND: { status: 404, title: 'Not Found' },
  INVALID_QUERY: { status: 400, title: 'Invalid Query' },
  INVALID_CURSOR: { status: 400, title: 'Invalid Cursor' },
  VALIDATION_FAILED: { status: 422, title: 'Validation Failed' },
  CONFLICT: { status: 409, title: 'Conflict' },
  QUOTA_EXCEEDED: { status: 403, title: 'Quota Exceeded' },
  UNAUTHORIZED: { status: 401, title: 'Unauthorized', headers: { 'www-authenticate': 'Bearer' } },
  FORBIDDEN: { status: 403, title: 'Forbidden' },
  INVALID_TABLE: { status: 400, title: 'Invalid Table' },
  INVALID_NAME: { status: 400, title: 'Invalid Name' },
};

/** A domain error as the HTTP error it answers with; an HTTP error as it is; anything else undefined. */
export function toHttpError(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error;
  if (!(error instanceof DomainError)) return undefined;
  const { status, title, headers } = wording[error.code];
  return new ApiError(status, error.code, title, error.message, error.errors, headers && { ...headers });
}

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
  const known = toHttpError(error);
  if (known) return known;
  if (status && status < 500 && codeByStatus[status]) {
    const [code, title] = codeByStatus[status];
    const detail = status === 404 ? 'no route matches this path' : title;
    return new ApiError(status, code, title, detail);
  }
  return new ApiError(500, 'INTERNAL_ERROR', 'Internal Server Error', 'the server failed to answer this request');
}
