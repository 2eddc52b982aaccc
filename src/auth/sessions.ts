import { CONSUMED, LIVE } from '../engine/auth-store.js';
import { invalidCredentials, invalidToken, refreshTokenReused } from '../errors.js';
import { conflict } from '../engine/errors.js';
import { hashPassword } from './passwords.js';
import type { AuthCore, IssueOptions, TokenAnswer } from './service.js';
import type { Clock } from './tokens.js';

/** A registration's fields (checked by the route: non-empty strings). */
export interface Registration {
  name: string;
  username: string;
  email: string;
  password: string;
}

const reused = () => refreshTokenReused('this refresh token was already used; its family is revoked, log in again');

/**
 * Logging in and out (contract section 7): each operation one transaction. A login opens a
 * refresh family and logs the sandbox's cookie in; a refresh continues the family; a refresh
 * token presented twice revokes the family, and with it the family's access tokens.
 */
export function createSessions(core: AuthCore) {
  const { engine, accounts, store } = core;
  const users = engine.collection('users')!;

  return {
    /** Logs an account in by username or email and password; 401 INVALID_CREDENTIALS otherwise. */
    async login(sandbox: string, login: string, password: string, options: IssueOptions): Promise<TokenAnswer> {
      const account = accounts.find(sandbox, login);
      if (!account || !(await accounts.checkPassword(sandbox, account, password))) throw invalidCredentials();
      return engine.sandboxes.write(() => core.issueIn(sandbox, account, { ...options, login: true }));
    },

    /** Creates a user in the sandbox with its password, and logs it in: one transaction. */
    async register(sandbox: string, given: Registration, options: IssueOptions): Promise<TokenAnswer> {
      if (accounts.personaTaken(given.username, given.email)) {
        throw conflict('a persona already has this username or email', [{ path: '/username', message: 'is already taken' }]);
      }
      const hash = await hashPassword(given.password);
      return engine.sandboxes.write(() => {
        const created = users.create(sandbox, { name: given.name, username: given.username, email: given.email });
        const sid = engine.sandboxes.sidOf(sandbox);
        store.setPassword(sid, String(created.id), hash);
        engine.changes.append(sid, 'auth.registered', { user: created, role: 'editor' });
        return core.issueIn(sandbox, accounts.byId(sandbox, String(created.id))!, { ...options, login: true });
      });
    },

    /**
     * The next pair of a refresh token's family, consuming it. One presented again (or a
     * concurrent refresh that lost the race) is reuse: the family is revoked in the same
     * transaction, then 401 REFRESH_TOKEN_REUSED.
     */
    async refresh(refreshToken: string, clock: Clock, accessTtl?: number): Promise<TokenAnswer> {
      const claims = await core.tokens().verify(refreshToken, 'refresh', clock);
      const answer = engine.sandboxes.write(() => {
        const row = store.refreshToken(claims.jti);
        if (!row) throw invalidToken('this refresh token is not known here (its sandbox was purged, or it was never issued)');
        if (row.state !== CONSUMED && row.state !== LIVE) throw invalidToken('this refresh token was revoked (logout, reuse or a password reset); log in again');
        const account = accounts.byId(claims.sid, claims.sub);
        if (row.state === LIVE && !account) throw invalidToken("the token's user no longer exists in its sandbox");
        // A consumed token presented again: someone may hold a copy. The whole family goes.
        if (row.state === CONSUMED || !store.consumeRefresh(claims.jti)) {
          store.revokeFamily(row.family);
          return undefined;
        }
        return core.issueIn(claims.sid, account!, { now: clock.now, accessTtl, family: claims.fam });
      });
      if (answer) return answer;
      engine.sandboxChanged(claims.sid);
      throw reused();
    },

    /**
     * Ends the families of the request's access token and of a given refresh token (an expired
     * one still names its family), and logs the sandbox's cookie out: one transaction.
     */
    async logout(sandbox: string, families: Set<string>, refreshToken: string | undefined, clock: Clock): Promise<number> {
      const given = refreshToken === undefined ? undefined : await core.tokens().verify(refreshToken, 'refresh', { ...clock, tolerance: Number.MAX_SAFE_INTEGER });
      if (given) families.add(given.fam);
      engine.sandboxes.write(() => {
        for (const family of families) store.revokeFamily(family);
        const sid = engine.sandboxes.sidOf(sandbox);
        if (sid) store.clearSession(sid);
      });
      // Their access tokens end too: the cached verdicts of this sandbox go.
      engine.sandboxChanged(sandbox);
      if (given && given.sid !== sandbox) engine.sandboxChanged(given.sid);
      return families.size;
    },
  };
}
