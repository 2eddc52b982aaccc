import type { H3, H3Event } from 'h3';
import { roles } from '../auth/scopes.js';
import type { Json } from '../engine/collection-store.js';
import { parseDuration } from '../duration.js';
import { validationFailed, type FieldProblem } from '../engine/errors.js';
import { contextOf } from '../http/context.js';
import type { Runtime } from '../runtime.js';
import { readJsonObject } from './_body.js';
import { declaredRoutesOf, route, sendJson } from './_resource.js';
import { paginationOf } from '../engine/pagination.js';
import { readInteger } from '../engine/list-query.js';
import { permissions } from './auth-permissions.js';

const maxPassword = 1024;

/**
 * `/api/v1/auth/*` and `/api/v1/inbox/messages` (contract section 7), thin over the auth service
 * (`auth/service.ts`): each route reads and checks its input, makes one call, and answers. The
 * public ones are `open`; the profile needs a user (a token, or for reads the cookie's login).
 */
export function addAuthRoutes(app: H3, runtime: Runtime): void {
  const { auth } = runtime;
  const body = (event: H3Event) => readJsonObject(event, contextOf(event).config.limits.bodyBytes);

  /** The access lifetime a request asks for: `token_ttl` in the body and `X-Simulate-JWT-Expiry`, the shorter wins. */
  const issueOptions = (event: H3Event, given: Json) => {
    const ctx = contextOf(event);
    const asked: number[] = [];
    if (given.token_ttl !== undefined) {
      const ttl = parseDuration(given.token_ttl);
      if (ttl === undefined) throw validationFailed([{ path: '/token_ttl', message: 'must be seconds or a duration such as "5m"' }]);
      asked.push(ttl);
    }
    if (ctx.simulate?.jwtExpiry !== undefined) asked.push(ctx.simulate.jwtExpiry);
    return { now: ctx.clock.now, accessTtl: asked.length ? Math.min(...asked) : undefined };
  };

  const post = (path: string, handler: (event: H3Event, given: Json) => unknown) =>
    route(app, path, { POST: { open: true, handler: async (event) => handler(event, await body(event)) } });

  post('/api/v1/auth/login', (event, given) => {
    const problems = requireText(given, ['password']);
    const login = given.username ?? given.email;
    if (typeof login !== 'string' || !login) problems.unshift({ path: '/username', message: 'give a username or an email' });
    if (problems.length) throw validationFailed(problems);
    return auth.login(contextOf(event).sandbox, login as string, given.password as string, issueOptions(event, given));
  });

  post('/api/v1/auth/register', (event, given) => {
    const problems = requireText(given, ['name', 'username', 'email', 'password']);
    for (const key of Object.keys(given)) {
      if (!['name', 'username', 'email', 'password', 'token_ttl'].includes(key)) problems.push({ path: `/${key}`, message: 'is not a field of a registration' });
    }
    if (problems.length) throw validationFailed(problems);
    const { name, username, email, password } = given as Record<string, string>;
    return auth.register(contextOf(event).sandbox, { name, username, email, password }, issueOptions(event, given));
  });

  post('/api/v1/auth/refresh', (event, given) => {
    const problems = requireText(given, ['refresh_token']);
    if (problems.length) throw validationFailed(problems);
    return auth.refresh(given.refresh_token as string, contextOf(event).clock, issueOptions(event, given).accessTtl);
  });

  route(app, '/api/v1/auth/logout', {
    POST: {
      open: true,
      handler: async (event) => {
        const ctx = contextOf(event);
        const given = hasBody(event) ? await body(event) : {};
        const families = new Set(ctx.token ? [ctx.token.fam] : []);
        const refreshToken = typeof given.refresh_token === 'string' ? given.refresh_token : undefined;
        const revoked = await auth.logout(ctx.sandbox, families, refreshToken, ctx.clock);
        return { message: 'logged out', sandbox: ctx.sandbox, revokedFamilies: revoked };
      },
    },
  });

  route(app, '/api/v1/auth/me', {
    GET: { open: true, note: 'a token, or the login of the sandbox cookie', handler: (event) => auth.me(contextOf(event).sandbox, contextOf(event).token?.sub) },
    PATCH: {
      open: true,
      note: 'a token, for its own profile',
      handler: async (event) => {
        const ctx = contextOf(event);
        // Without a token there is no one to change: 401 before the body is read.
        if (!ctx.token) return auth.updateProfile(ctx.sandbox, undefined, {});
        return auth.updateProfile(ctx.sandbox, ctx.token.sub, await body(event));
      },
    },
  });

  route(app, '/api/v1/auth/roles', {
    GET: { open: true, handler: () => ({ data: Object.entries(roles).map(([name, role]) => ({ name, ...role })) }) },
  });
  route(app, '/api/v1/auth/permissions', { GET: { open: true, handler: () => permissions(declaredRoutesOf(app)) } });

  post('/api/v1/auth/forgot-password', (event, given) => {
    const problems = requireText(given, ['email']);
    if (problems.length) throw validationFailed(problems);
    const ctx = contextOf(event);
    auth.forgotPassword(ctx.sandbox, given.email as string, new URL(ctx.config.auth.resetUrl, event.url.origin));
    // The same answer either way: no account enumeration.
    return { message: 'if an account uses this address, a reset link is on its way (GET /api/v1/inbox/messages)' };
  });

  post('/api/v1/auth/reset-password', async (event, given) => {
    const problems = requireText(given, ['token', 'password']);
    if (problems.length) throw validationFailed(problems);
    await auth.resetPassword(contextOf(event).sandbox, given.token as string, given.password as string);
    return { message: 'password changed; log in with the new one' };
  });

  route(app, '/api/v1/inbox/messages', {
    GET: {
      // It holds reset tokens: the owner reads it, a token needs inbox:read (`*:read` does not cover it).
      scope: 'inbox:read',
      note: '*:read does not cover it',
      handler: (event) => {
        const ctx = contextOf(event);
        const params = event.url.searchParams;
        const limit = readInteger(params, ['limit', '_limit', '_per_page'], 10, 1, ctx.config.limits.maxPageSize);
        const offset = (readInteger(params, ['page', '_page'], 1, 1, 1_000_000) - 1) * limit;
        const { json, total } = auth.mailbox(ctx.sandbox, limit, offset);
        return sendJson(event, `{"data":${json},"pagination":${JSON.stringify(paginationOf(offset, limit, total))}}`);
      },
    },
  });
}

/** Problems for fields that must be non-empty strings (passwords at most 1,024 characters). */
function requireText(given: Json, fields: string[]): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const field of fields) {
    const value = given[field];
    if (value === undefined) problems.push({ path: `/${field}`, message: 'is required' });
    else if (typeof value !== 'string' || value === '') problems.push({ path: `/${field}`, message: 'must be a non-empty string' });
    else if (field === 'password' && value.length > maxPassword) problems.push({ path: '/password', message: `must be at most ${maxPassword} characters` });
  }
  return problems;
}

/** Whether a request carries body bytes: a Content-Type alone (many clients send it on every POST) is no body. */
const hasBody = (event: H3Event) => Number(event.req.headers.get('content-length') ?? 0) > 0 || event.req.headers.has('transfer-encoding');
