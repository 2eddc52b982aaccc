import { roles } from '../auth/scopes.js';
import { pagingParameters } from './collection-schemas.js';
import { json, ref, type RouteDoc, type Schema } from './types.js';

const tag = 'auth';
const text = { type: 'string' };
const nonEmpty = { type: 'string', minLength: 1 };
const password = { type: 'string', minLength: 1, maxLength: 1024 };
const tokenTtl = { description: 'A shorter access lifetime: seconds, or a duration such as `"5m"` (never longer than `auth.accessTtl`).', anyOf: [{ type: 'integer', minimum: 0 }, { type: 'string' }] };
const jwtExpiry = {
  name: 'X-Simulate-JWT-Expiry',
  in: 'header',
  description: 'Shortens the access token\'s lifetime (`0`, `5s`, `10s`, `1m`), never past `auth.accessTtl`.',
  schema: { type: 'string' },
  example: '5s',
} as const;

/** Schemas of the auth answers: the account (a user record or a persona's profile) and the token pair. */
export function authSchemas(): Record<string, Schema> {
  const role = { type: 'string', enum: Object.keys(roles) };
  const scopes = { type: 'array', items: text };
  return {
    Account: {
      description: 'A baseline or registered user (a `users` record), or a persona (`id` `persona:<username>`).',
      anyOf: [
        ref('User'),
        {
          type: 'object',
          required: ['id', 'username', 'name', 'email'],
          properties: { id: { type: 'string', pattern: '^persona:' }, username: text, name: text, email: text, bio: text, website: text },
        },
      ],
    },
    Me: { type: 'object', required: ['user', 'role', 'scopes'], properties: { user: ref('Account'), role, scopes } },
    Tokens: {
      type: 'object',
      required: ['access_token', 'refresh_token', 'token_type', 'expires_in', 'refresh_expires_in', 'user', 'role', 'scopes'],
      properties: {
        access_token: { type: 'string', description: 'JWT HS256, `typ` `at+jwt`: send as `Authorization: Bearer <token>`.' },
        refresh_token: { type: 'string', description: 'JWT HS256, `typ` `rt+jwt`: single use, for `POST /api/v1/auth/refresh`.' },
        token_type: { type: 'string', enum: ['Bearer'] },
        expires_in: { type: 'integer', description: 'Seconds.' },
        refresh_expires_in: { type: 'integer', description: 'Seconds.' },
        user: ref('Account'),
        role,
        scopes,
      },
    },
  };
}

/** `GET /api/v1/auth/permissions`'s answer. */
const permissionsSchema: Schema = {
  type: 'object',
  required: ['roles', 'rules'],
  properties: {
    roles: { type: 'object', additionalProperties: { type: 'array', items: text } },
    rules: {
      type: 'array',
      items: {
        type: 'object',
        required: ['method', 'path', 'scope', 'guest'],
        properties: { method: text, path: text, scope: { type: ['string', 'null'] }, guest: { type: 'boolean' }, note: text },
      },
    },
    note: text,
  },
};

/** `/api/v1/auth/*` and the mailbox (contract section 7). */
export function authRouteDocs(): RouteDoc[] {
  const tokens = { description: 'A new token pair; the sandbox\'s cookie is logged in too.', content: json(ref('Tokens')) };
  const bodyOf = (properties: Record<string, Schema>, required: string[], additional = true): RouteDoc['body'] => ({
    required: true,
    content: json({ type: 'object', required, properties, ...(additional ? {} : { additionalProperties: false }) }),
  });
  const post = (path: string, operationId: string, summary: string, rest: Partial<RouteDoc>): RouteDoc => ({
    method: 'POST',
    path: `/api/v1/auth/${path}`,
    route: `/api/v1/auth/${path}`,
    operationId,
    tag,
    summary,
    ok: { description: 'Done.', content: json(ref('Message')) },
    errors: [400, 413, 415, 422],
    ...rest,
  });
  return [
    post('login', 'login', 'Log in', {
      description: 'As a persona (`admin`, `editor`, `viewer`, password `auth.password`), a baseline user or a user registered in the sandbox.',
      parameters: [jwtExpiry],
      body: bodyOf({ username: nonEmpty, email: nonEmpty, password, token_ttl: tokenTtl }, ['password']),
      ok: tokens,
      errors: [400, 401, 413, 415, 422],
    }),
    post('register', 'register', 'Register a user', {
      description: 'Creates the user in the sandbox\'s `users` (role `editor`) and logs it in.',
      parameters: [jwtExpiry],
      body: bodyOf({ name: nonEmpty, username: nonEmpty, email: nonEmpty, password, token_ttl: tokenTtl }, ['name', 'username', 'email', 'password'], false),
      ok: tokens,
      errors: [400, 403, 409, 413, 415, 422],
    }),
    post('refresh', 'refreshTokens', 'Refresh the token pair', {
      description: 'Consumes the refresh token. A consumed one presented again is 401 `REFRESH_TOKEN_REUSED` and revokes its whole family. The Authorization header is not read here.',
      parameters: [jwtExpiry],
      body: bodyOf({ refresh_token: nonEmpty, token_ttl: tokenTtl }, ['refresh_token']),
      ok: tokens,
      errors: [400, 401, 413, 415, 422],
    }),
    post('logout', 'logout', 'Log out', {
      description: 'Revokes the token\'s family (and the given refresh token\'s) and ends the cookie session. The body is optional.',
      body: { required: false, content: json({ type: 'object', properties: { refresh_token: text } }) },
      ok: {
        description: 'Logged out.',
        content: json({ type: 'object', required: ['message', 'sandbox', 'revokedFamilies'], properties: { message: text, sandbox: text, revokedFamilies: { type: 'integer' } } }),
      },
      errors: [400, 401, 413, 415],
    }),
    {
      method: 'GET',
      path: '/api/v1/auth/me',
      route: '/api/v1/auth/me',
      operationId: 'getMe',
      tag,
      summary: 'The logged-in user',
      description: "The token's user, or the one this sandbox's cookie logged in; 401 without one.",
      ok: { description: 'The account.', content: json(ref('Me')) },
      errors: [401],
    },
    {
      method: 'PATCH',
      path: '/api/v1/auth/me',
      route: '/api/v1/auth/me',
      operationId: 'patchMe',
      tag,
      summary: 'Change the profile',
      description: 'Only `name`, `email`, `bio` and `website`; persists in the sandbox.',
      body: { required: true, content: json({ type: 'object', additionalProperties: false, properties: { name: { type: ['string', 'null'] }, email: { type: ['string', 'null'] }, bio: { type: ['string', 'null'] }, website: { type: ['string', 'null'] } } }) },
      ok: { description: 'The account after the change.', content: json(ref('Me')) },
      errors: [400, 401, 409, 413, 415, 422],
    },
    {
      method: 'GET',
      path: '/api/v1/auth/roles',
      route: '/api/v1/auth/roles',
      operationId: 'listRoles',
      tag,
      summary: 'The roles and their scopes',
      ok: {
        description: 'The roles.',
        content: json({
          type: 'object',
          required: ['data'],
          properties: { data: { type: 'array', items: { type: 'object', required: ['name', 'scopes', 'description'], properties: { name: text, scopes: { type: 'array', items: text }, description: text } } } },
        }),
      },
    },
    {
      method: 'GET',
      path: '/api/v1/auth/permissions',
      route: '/api/v1/auth/permissions',
      operationId: 'listPermissions',
      tag,
      summary: 'What each request needs',
      description: 'The scope of each route and the roles that grant it.',
      ok: { description: 'The rules.', content: json(permissionsSchema) },
    },
    post('forgot-password', 'forgotPassword', 'Ask for a password reset', {
      description: 'Always 200 (no account enumeration): a message with a single-use token lands in the sandbox mailbox (`GET /api/v1/inbox/messages`).',
      body: bodyOf({ email: nonEmpty }, ['email']),
    }),
    post('reset-password', 'resetPassword', 'Reset a password with a mailed token', {
      description: 'A used, unknown or superseded token: 400 `INVALID_RESET_TOKEN`. Ends the user\'s sessions in this sandbox.',
      body: bodyOf({ token: nonEmpty, password }, ['token', 'password']),
    }),
    {
      method: 'GET',
      path: '/api/v1/inbox/messages',
      route: '/api/v1/inbox/messages',
      operationId: 'listInboxMessages',
      tag: 'mailbox',
      summary: "The sandbox's mailbox",
      description: "The messages the sandbox's password recoveries sent, newest first: the test's view of the mail server.",
      scopes: ['inbox:read'],
      guest: true,
      parameters: pagingParameters({ cursor: false }),
      ok: {
        description: 'The list envelope of messages.',
        content: json({ type: 'object', required: ['data', 'pagination'], properties: { data: { type: 'array', items: ref('ExportMessage') }, pagination: ref('Pagination') } }),
      },
      errors: [400],
    },
  ];
}
