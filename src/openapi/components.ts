import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { customNamePattern } from '../engine/custom-collections.js';
import { localId } from '../engine/record-id.js';
import { snapshotName } from '../engine/snapshots.js';
import { maxLatencyMs } from '../simulate/latency.js';
import { liftDefs } from './lift-defs.js';
import { ref, type Schema } from './types.js';

const exportSchemaFile = fileURLToPath(new URL('../../schemas/mockapi-export.schema.json', import.meta.url));

/** The path and header patterns the server checks, as schemas. */
export const patterns = {
  sandbox: '^[A-Za-z0-9_-]{1,128}$',
  customName: customNamePattern.source,
  snapshotName: snapshotName.source,
  localId: localId.source,
  eventId: '^evt_[0-9a-z]{12}$',
};

/** Schemas every part of the document shares. */
function sharedSchemas(): Record<string, Schema> {
  return {
    Problem: {
      type: 'object',
      description: 'An error (RFC 9457, `application/problem+json`). `code` is stable: branch on it, not on `detail`.',
      required: ['type', 'title', 'status', 'detail', 'code'],
      properties: {
        type: { type: 'string', format: 'uri' },
        title: { type: 'string' },
        status: { type: 'integer', minimum: 400, maximum: 599 },
        detail: { type: 'string' },
        code: { type: 'string', pattern: '^[A-Z][A-Z0-9_]*$', examples: ['NOT_FOUND'] },
        errors: { type: 'array', items: ref('FieldProblem') },
      },
    },
    FieldProblem: {
      type: 'object',
      required: ['path', 'message'],
      properties: {
        path: { type: 'string', description: 'A JSON Pointer into the body (`/email`); in an uploaded table the cell (`B3`), row (`3`) or `""` for the file.' },
        message: { type: 'string' },
        row: { type: 'integer', minimum: 1 },
        column: { type: 'integer', minimum: 1 },
      },
    },
    Pagination: {
      type: 'object',
      additionalProperties: false,
      required: ['page', 'limit', 'total', 'totalPages', 'hasNextPage', 'hasPrevPage', 'nextCursor'],
      properties: {
        page: { type: 'integer', minimum: 1 },
        limit: { type: 'integer', minimum: 1 },
        total: { type: 'integer', minimum: 0 },
        totalPages: { type: 'integer', minimum: 0 },
        hasNextPage: { type: 'boolean' },
        hasPrevPage: { type: 'boolean' },
        nextCursor: { type: ['string', 'null'], description: 'Pass as `cursor` for the next page (keyset: a walk never skips a record that stays); `null` on the last page.' },
      },
    },
    RecordId: {
      description: 'A baseline record has an integer id (`"7"` names it too); a record created in the sandbox has `local-<uuid v4>`.',
      anyOf: [
        { type: 'integer', minimum: 1 },
        { type: 'string', pattern: `^(?:[1-9][0-9]{0,15}|${localId.source.slice(1, -1)})$` },
      ],
    },
    SandboxMark: {
      type: 'string',
      enum: ['created', 'updated'],
      description: '`created` on records created in this sandbox, `updated` on changed baseline records; absent on untouched baseline records.',
    },
    Deleted: {
      type: 'object',
      required: ['message', 'id', 'resource'],
      properties: { message: { type: 'string' }, id: ref('RecordId'), resource: { type: 'string' } },
    },
    Message: {
      type: 'object',
      required: ['message'],
      properties: { message: { type: 'string' } },
    },
    ...exportSchemas(),
  };
}

/** The export document's JSON Schema (`schemas/mockapi-export.schema.json`, the one `mockapi import` checks against). */
function exportSchemas(): Record<string, Schema> {
  return liftDefs(JSON.parse(readFileSync(exportSchemaFile, 'utf8')) as Schema, 'ExportDocument', 'Export');
}

const header = (name: string, description: string, schema: Schema, example?: string | number): Schema => ({
  name,
  in: 'header',
  required: false,
  description,
  schema,
  ...(example === undefined ? {} : { example }),
});

/** The request chain's parameters (contract section 11): every `/api/v1` operation takes them. */
function chainParameters(): Record<string, Schema> {
  const latency = { type: 'string', pattern: '^\\s*\\d{1,9}(\\.\\d{1,6})?(ms|s)?(\\s*-\\s*\\d{1,9}(\\.\\d{1,6})?(ms|s)?)?\\s*$' };
  return {
    XSandbox: header('X-Sandbox', 'The sandbox to work in, for pages on another site that cannot send the `svc_identity` cookie (a Bearer token\'s sandbox wins over it).', { type: 'string', pattern: patterns.sandbox }, 'my-test-run'),
    XSimulateLatency: header('X-Simulate-Latency', `Delays the answer: milliseconds, \`250ms\`, \`1s\`, or a random range \`100-400\`; at most ${maxLatencyMs / 1000} s.`, latency, '250'),
    XSimulateStatus: header('X-Simulate-Status', 'Answers this error status with a problem body (code `SIMULATED_STATUS`) and changes nothing.', { type: 'integer', minimum: 400, maximum: 599 }, 503),
    XSimulateFlaky: header('X-Simulate-Flaky', 'This share of requests fails with 503 `SIMULATED_FAILURE` (`0.3`: 30 %).', { type: 'number', minimum: 0, maximum: 1 }, 0.3),
    XSimulateNetwork: header('X-Simulate-Network', '`reset` closes the connection with no answer.', { type: 'string', enum: ['reset'] }),
    XSimulateRateLimit: header('X-Simulate-Rate-Limit', 'A rate limit for this sandbox, requests per window: 429 `RATE_LIMITED` past it, `RateLimit-*` headers on every answer while it applies.', { type: 'string', pattern: '^\\s*\\d{1,9}/\\d{0,9}(ms|s|m|h)?\\s*$' }, '5/10s'),
    XSimulateClockSkew: header('X-Simulate-Clock-Skew', "Shifts the server's clock for this request (token issue and expiry checks), at most a day either way.", { type: 'string', pattern: '^\\s*[+-]?\\d+(\\.\\d+)?(ms|s|m|h)?\\s*$' }, '+120s'),
    QueryDelay: { name: '_delay', in: 'query', required: false, description: 'As `X-Simulate-Latency`, in the URL.', schema: latency },
    QueryStatus: { name: '_status', in: 'query', required: false, description: 'As `X-Simulate-Status`, in the URL.', schema: { type: 'integer', minimum: 400, maximum: 599 } },
  };
}

/** Why each problem status happens, for the shared problem responses. */
export const problemStatuses: Record<string, string> = {
  '400': 'Bad request: a malformed identity (`INVALID_IDENTITY`), simulation header (`INVALID_SIMULATION`), query (`INVALID_QUERY`, `INVALID_CURSOR`), name or body (`INVALID_JSON`, `INVALID_BODY`).',
  '401': 'No valid credentials: an invalid or expired token (`INVALID_TOKEN`, `TOKEN_EXPIRED`, `TOKEN_NOT_YET_VALID`), or a guest under `auth.required` (`UNAUTHORIZED`).',
  '403': "The token's role lacks the scope (`FORBIDDEN`), or a quota is used up (`QUOTA_EXCEEDED`).",
  '404': 'Nothing of that name is visible in this sandbox (`NOT_FOUND`).',
  '409': 'Conflicts with the current state (`CONFLICT`).',
  '413': 'The body exceeds `limits.bodyBytes` (`PAYLOAD_TOO_LARGE`).',
  '415': 'The body is not in a media type this route reads (`UNSUPPORTED_MEDIA_TYPE`).',
  '422': 'The body is well-formed but invalid (`VALIDATION_FAILED`, one `errors` entry per problem).',
  '429': 'A simulated rate limit was passed (`RATE_LIMITED`); `Retry-After` says when to try again.',
  '503': 'A simulated failure (`X-Simulate-Flaky`: `SIMULATED_FAILURE`).',
  default: 'Any status asked for with `X-Simulate-Status` or `_status` (`SIMULATED_STATUS`).',
};

function problemResponses(): Record<string, Schema> {
  const rateHeaders = {
    'RateLimit-Limit': { schema: { type: 'integer' } },
    'RateLimit-Remaining': { schema: { type: 'integer' } },
    'RateLimit-Reset': { schema: { type: 'integer' } },
  };
  const headersOf: Record<string, Schema> = {
    '401': { 'WWW-Authenticate': { description: '`Bearer`, with `error="invalid_token"` when a token was presented.', schema: { type: 'string' } } },
    '429': { 'Retry-After': { schema: { type: 'integer' } }, ...rateHeaders },
  };
  return Object.fromEntries(
    Object.entries(problemStatuses).map(([status, description]) => [
      problemResponseName(status),
      { description, ...(headersOf[status] ? { headers: headersOf[status] } : {}), content: { 'application/problem+json': { schema: ref('Problem') } } },
    ]),
  );
}

export const problemResponseName = (status: string) => (status === 'default' ? 'SimulatedStatus' : `Problem${status}`);

/** `components` of the 3.1 document; `schemas` are added to by the collections. */
export function baseComponents(): { schemas: Record<string, Schema>; parameters: Record<string, Schema>; responses: Record<string, Schema>; securitySchemes: Record<string, Schema> } {
  return {
    schemas: sharedSchemas(),
    parameters: chainParameters(),
    responses: problemResponses(),
    securitySchemes: {
      bearerAuth: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description: 'An access token from `POST /api/v1/auth/login` (HS256, `typ` `at+jwt`). It names the sandbox (`sid`) and the role, whose scopes each operation lists.',
      },
      svcIdentity: {
        type: 'apiKey',
        in: 'cookie',
        name: 'svc_identity',
        description: 'The sandbox id. Minted on the first request that needs one (`Set-Cookie: svc_identity=...; HttpOnly; SameSite=Lax`); without a token its holder owns the sandbox fully (unless `auth.required`).',
      },
    },
  };
}
