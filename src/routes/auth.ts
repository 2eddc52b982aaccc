import { randomBytes } from 'node:crypto';
import type { H3, H3Event } from 'h3';
import type { Account } from '../auth/accounts.js';
import { sandboxOf } from '../auth/identity.js';
import { contextOf } from '../http/context.js';
import { noAccountMessage, personaMessage, resetMessage } from '../auth/mail.js';
import { hashPassword } from '../auth/passwords.js';
import { roles } from '../auth/scopes.js';
import { CONSUMED, LIVE } from '../engine/auth-store.js';
import type { Json } from '../engine/collection-store.js';
import { parseDuration } from '../duration.js';
import {
  conflict,
  invalidCredentials,
  invalidResetToken,
  invalidToken,
  refreshTokenReused,
  unauthorized,
  validationFailed,
  type FieldProblem,
} from '../errors.js';
import type { Runtime } from '../runtime.js';
import { readJsonObject } from './_body.js';
import { resource, sendJson } from './_resource.js';
import { paginationOf } from '../engine/pagination.js';
import { readInteger } from '../engine/list-query.js';
import { permissions } from './auth-permissions.js';

const profileFields = ['name', 'email', 'bio', 'website'] as const;
const maxPassword = 1024;

/**
 * `/api/v1/auth/*` (contract section 7): login, register, refresh, logout, the profile, roles and
 * permissions, and password recovery through the sandbox mailbox. The public ones are `open`;
 * the profile needs a user (a token, or the user the sandbox's cookie logged in).
 */
export function addAuthRoutes(app: H3, runtime: Runtime): void {
  const { engine, config, auth } = runtime;
  const { accounts, store } = auth;
  const users = engine.collection('users')!;
  const body = (event: H3Event) => readJsonObject(event, config.limits.bodyBytes);
  const now = (event: H3Event) => event.context.identity!.clock.now;

  /** The access lifetime a request asks for: `token_ttl` in the body and `X-Simulate-JWT-Expiry`, the shorter wins. */
  const accessTtl = (event: H3Event, given: Json): number | undefined => {
    const asked: number[] = [];
    if (given.token_ttl !== undefined) {
      const ttl = parseDuration(given.token_ttl);
      if (ttl === undefined) throw validationFailed([{ path: '/token_ttl', message: 'must be seconds or a duration such as "5m"' }]);
      asked.push(ttl);
    }
    const simulated = contextOf(event).simulate?.jwtExpiry;
    if (simulated !== undefined) asked.push(simulated);
    return asked.length ? Math.min(...asked) : undefined;
  };

  /** Logs the account in: a new token family, and the sandbox's cookie session. */
  const logIn = async (event: H3Event, sandbox: string, account: Account, given: Json) => {
    const answer = await auth.issue(sandbox, account, { now: now(event), accessTtl: accessTtl(event, given) });
    engine.sandboxes.write(() => {
      const sid = engine.sandboxes.ensureRow(sandbox);
      store.setSession(sid, account.id);
      // In the change log with the login itself, so webhooks and /events see it (contract section 8).
      engine.changes.append(sid, 'auth.login', { user: account.user, role: account.role });
    });
    return answer;
  };

  /**
   * The user a request acts as: its token's, else (`cookie`: reads of `GET /auth/me` only, contract
   * section 7) the one the sandbox's cookie logged in; 401 without one.
   */
  const currentAccount = (event: H3Event, cookie: boolean): { sandbox: string; account: Account } => {
    const ctx = contextOf(event);
    const sandbox = ctx.sandbox;
    const id = ctx.token?.sub ?? (cookie ? store.session(engine.sandboxes.sidOf(sandbox)) : undefined);
    const account = id === undefined ? undefined : accounts.byId(sandbox, id);
    if (!account) throw unauthorized(cookie ? 'log in first: send a Bearer token, or log in with this sandbox cookie' : 'changing the profile needs a Bearer token');
    return { sandbox, account };
  };
  const me = (account: Account) => ({ user: account.user, role: account.role, scopes: account.scopes });

  app.all(
    '/api/v1/auth/login',
    resource({
      POST: {
        open: true,
        handler: async (event) => {
          const given = await body(event);
          const problems = requireText(given, ['password']);
          const login = given.username ?? given.email;
          if (typeof login !== 'string' || !login) problems.unshift({ path: '/username', message: 'give a username or an email' });
          if (problems.length) throw validationFailed(problems);
          const sandbox = sandboxOf(event);
          const account = accounts.find(sandbox, login as string);
          if (!account || !(await accounts.checkPassword(sandbox, account, given.password as string))) throw invalidCredentials();
          return logIn(event, sandbox, account, given);
        },
      },
    }),
  );

  app.all(
    '/api/v1/auth/register',
    resource({
      POST: {
        open: true,
        handler: async (event) => {
          const given = await body(event);
          const problems = requireText(given, ['name', 'username', 'email', 'password']);
          for (const key of Object.keys(given)) {
            if (!['name', 'username', 'email', 'password', 'token_ttl'].includes(key)) problems.push({ path: `/${key}`, message: 'is not a field of a registration' });
          }
          if (problems.length) throw validationFailed(problems);
          const { name, username, email, password } = given as Record<string, string>;
          if (accounts.personaTaken(username, email)) {
            throw conflict('a persona already has this username or email', [{ path: '/username', message: 'is already taken' }]);
          }
          const sandbox = sandboxOf(event);
          const hash = await hashPassword(password);
          // The user and its password in one transaction: a registered user always has one.
          const record = engine.sandboxes.write(() => {
            const created = users.create(sandbox, { name, username, email });
            const sid = engine.sandboxes.sidOf(sandbox);
            store.setPassword(sid, String(created.id), hash);
            engine.changes.append(sid, 'auth.registered', { user: created, role: 'editor' });
            return created;
          });
          return logIn(event, sandbox, accounts.byId(sandbox, String(record.id))!, given);
        },
      },
    }),
  );

  app.all(
    '/api/v1/auth/refresh',
    resource({
      POST: {
        open: true,
        handler: async (event) => {
          const given = await body(event);
          const problems = requireText(given, ['refresh_token']);
          if (problems.length) throw validationFailed(problems);
          const claims = await auth.tokens().verify(given.refresh_token as string, 'refresh', event.context.identity!.clock);
          const row = store.refreshToken(claims.jti);
          if (!row) throw invalidToken('this refresh token is not known here (its sandbox was purged, or it was never issued)');
          if (row.state === CONSUMED) {
            // A consumed token presented again: someone may hold a copy. The whole family goes.
            auth.revokeFamilies(claims.sid, [row.family]);
            throw refreshTokenReused('this refresh token was already used; its family is revoked, log in again');
          }
          if (row.state !== LIVE) throw invalidToken('this refresh token was revoked (logout, reuse or a password reset); log in again');
          const account = accounts.byId(claims.sid, claims.sub);
          if (!account) throw invalidToken("the token's user no longer exists in its sandbox");
          return auth.issue(claims.sid, account, { now: now(event), accessTtl: accessTtl(event, given), family: claims.fam, consumes: claims.jti });
        },
      },
    }),
  );

  app.all(
    '/api/v1/auth/logout',
    resource({
      POST: {
        open: true,
        handler: async (event) => {
          const identity = event.context.identity!;
          const given = hasBody(event) ? await body(event) : {};
          const families = new Set<string>();
          if (identity.token) families.add(identity.token.fam);
          if (typeof given.refresh_token === 'string') {
            const claims = await auth.tokens().verify(given.refresh_token, 'refresh', { ...identity.clock, tolerance: Number.MAX_SAFE_INTEGER });
            families.add(claims.fam);
          }
          const sandbox = sandboxOf(event);
          auth.revokeFamilies(sandbox, families);
          engine.sandboxes.write(() => {
            const sid = engine.sandboxes.sidOf(sandbox);
            if (sid) store.clearSession(sid);
          });
          return { message: 'logged out', sandbox, revokedFamilies: families.size };
        },
      },
    }),
  );

  app.all(
    '/api/v1/auth/me',
    resource({
      GET: { open: true, handler: (event) => me(currentAccount(event, true).account) },
      PATCH: {
        open: true,
        handler: async (event) => {
          const { sandbox, account } = currentAccount(event, false);
          const given = await body(event);
          const problems: FieldProblem[] = Object.keys(given)
            .filter((key) => !(profileFields as readonly string[]).includes(key))
            .map((key) => ({ path: `/${key}`, message: `is not a profile field (${profileFields.join(', ')})` }));
          if (problems.length) throw validationFailed(problems);
          // As registration: an email another account logs in with (a persona's, a user's) would shadow one of them.
          if (typeof given.email === 'string' && given.email.includes('@')) {
            const holder = accounts.find(sandbox, given.email);
            if (holder && holder.id !== account.id) throw conflict('another account uses this email', [{ path: '/email', message: 'is already taken' }]);
          }
          if (account.kind === 'user') {
            users.patch(sandbox, account.user.id, given);
          } else {
            const changed = { ...JSON.parse(store.profile(engine.sandboxes.sidOf(sandbox), account.id) ?? '{}'), ...given } as Json;
            for (const [key, value] of Object.entries(changed)) if (value === null) delete changed[key];
            const bad = profileProblems(changed);
            if (bad.length) throw validationFailed(bad);
            engine.sandboxes.write(() => store.setProfile(engine.sandboxes.ensureRow(sandbox), account.id, JSON.stringify(changed)));
          }
          return me(accounts.byId(sandbox, account.id)!);
        },
      },
    }),
  );

  app.all(
    '/api/v1/auth/roles',
    resource({
      GET: { open: true, handler: () => ({ data: Object.entries(roles).map(([name, role]) => ({ name, ...role })) }) },
    }),
  );
  app.all('/api/v1/auth/permissions', resource({ GET: { open: true, handler: () => permissions(runtime.engine.collections) } }));

  app.all(
    '/api/v1/auth/forgot-password',
    resource({
      POST: {
        open: true,
        handler: async (event) => {
          const given = await body(event);
          const problems = requireText(given, ['email']);
          if (problems.length) throw validationFailed(problems);
          const email = given.email as string;
          const sandbox = sandboxOf(event);
          const account = accounts.find(sandbox, email);
          const known = account && String(account.user.email).toLowerCase() === email.toLowerCase();
          // Personas' passwords come from the config: their message says so and carries no token.
          const resettable = known && account.kind === 'user';
          const token = randomBytes(24).toString('base64url');
          const message = resettable
            ? resetMessage(email, String(account.user.name ?? account.user.username), token, event.url.origin)
            : known
              ? personaMessage(email)
              : noAccountMessage(email);
          engine.sandboxes.write(() => {
            const sid = engine.sandboxes.ensureRow(sandbox);
            if (resettable) store.putResetToken(sid, account.id, token);
            store.addMessage(sid, JSON.stringify(message));
          });
          // The same answer either way: no account enumeration.
          return { message: 'if an account uses this address, a reset link is on its way (GET /api/v1/inbox/messages)' };
        },
      },
    }),
  );

  app.all(
    '/api/v1/auth/reset-password',
    resource({
      POST: {
        open: true,
        handler: async (event) => {
          const given = await body(event);
          const problems = requireText(given, ['token', 'password']);
          if (problems.length) throw validationFailed(problems);
          const sandbox = sandboxOf(event);
          const sid = engine.sandboxes.sidOf(sandbox);
          const userId = store.resetTokenUser(sid, given.token as string);
          if (!userId || accounts.byId(sandbox, userId)?.kind !== 'user') throw invalidResetToken();
          const hash = await hashPassword(given.password as string);
          engine.sandboxes.write(() => {
            if (!store.useResetToken(sid, given.token as string)) throw invalidResetToken();
            store.setPassword(sid, userId, hash);
            // Sessions of the old password end: every refresh family of the user in this sandbox, and its access tokens.
            store.revokeUser(sid, userId);
          });
          engine.sandboxChanged(sandbox);
          return { message: 'password changed; log in with the new one' };
        },
      },
    }),
  );

  app.all(
    '/api/v1/inbox/messages',
    resource({
      GET: {
        // It holds reset tokens: the owner reads it, a token needs inbox:read (`*:read` does not cover it).
        scope: 'inbox:read',
        handler: (event) => {
          const sandbox = sandboxOf(event);
          const params = event.url.searchParams;
          const limit = readInteger(params, ['limit', '_limit', '_per_page'], 10, 1, config.limits.maxPageSize);
          const offset = (readInteger(params, ['page', '_page'], 1, 1, 1_000_000) - 1) * limit;
          const { json, total } = store.messages(engine.sandboxes.sidOf(sandbox), limit, offset);
          return sendJson(event, `{"data":${json},"pagination":${JSON.stringify(paginationOf(offset, limit, total))}}`);
        },
      },
    }),
  );
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

/** A persona's profile: text fields, an email that looks like one. */
function profileProblems(profile: Json): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const [key, value] of Object.entries(profile)) {
    if (typeof value !== 'string' || value.length > 2000) problems.push({ path: `/${key}`, message: 'must be a string of at most 2000 characters' });
  }
  if (typeof profile.email === 'string' && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(profile.email)) problems.push({ path: '/email', message: 'must be an email address' });
  return problems;
}

/** Whether a request carries body bytes: a Content-Type alone (many clients send it on every POST) is no body. */
const hasBody = (event: H3Event) => Number(event.req.headers.get('content-length') ?? 0) > 0 || event.req.headers.has('transfer-encoding');


