import { randomUUID } from 'node:crypto';
import type { ResolvedConfig } from '../config.js';
import type { Engine } from '../engine/engine.js';
import { invalidToken } from '../errors.js';
import { createAccounts, type Account } from './accounts.js';
import { createProfile } from './profile.js';
import { createRecovery } from './recovery.js';
import { createSessions } from './sessions.js';
import { createTokens, newSecret, type Claims, type Clock, type Tokens } from './tokens.js';

/** What login, register and refresh answer (contract section 7). */
export interface TokenAnswer {
  access_token: string;
  refresh_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_expires_in: number;
  user: Record<string, unknown>;
  role: string;
  scopes: string[];
}

/** How a request asks for tokens: its clock, and the access lifetime it asks for (`token_ttl`, `X-Simulate-JWT-Expiry`). */
export interface IssueOptions {
  now: number;
  accessTtl?: number;
}

/**
 * Authentication as a service over the engine (contract section 7): accounts, the token key,
 * token pairs, sessions, the profile and password recovery. Each operation runs in one
 * transaction (`sessions.ts`, `profile.ts`, `recovery.ts`); no HTTP here, the routes parse input
 * and shape output.
 */
/** `config` gives the config in force (a reload swaps it whole). */
export function createAuth(engine: Engine, config: () => ResolvedConfig) {
  const store = engine.auth;
  const accounts = createAccounts(engine, store, config);
  let current: { secret: string; tokens: Tokens } | undefined;
  // The file's key never changes once kept (INSERT OR IGNORE), so it is read once.
  let stored: string | undefined;

  /** The signer for the key in force: `auth.secret`, else the one kept in the file (a reload may change it). */
  const tokens = (): Tokens => {
    const secret = config().auth.secret ?? (stored ??= store.storedSecret(newSecret));
    if (current?.secret !== secret) current = { secret, tokens: createTokens(new TextEncoder().encode(secret)) };
    return current!.tokens;
  };

  const core = {
    engine,
    config,
    accounts,
    store,
    tokens,

    /**
     * A new access and refresh token for the account in the sandbox, recorded in the running
     * transaction: a new family (login, register: `login` also logs the sandbox's cookie in and
     * appends `auth.login`) or the next of one (refresh). `accessTtl` may shorten
     * `auth.accessTtl`, never lengthen it.
     */
    issueIn(sandbox: string, account: Account, options: IssueOptions & { family?: string; login?: boolean }): TokenAnswer {
      const family = options.family ?? `fam_${randomUUID()}`;
      const base = { sub: account.id, sid: sandbox, role: account.role, scope: account.scopes.join(' '), fam: family };
      const accessTtl = Math.min(options.accessTtl ?? config().auth.accessTtl, config().auth.accessTtl);
      const access = tokens().sign('access', base, accessTtl, options.now);
      const refresh = tokens().sign('refresh', base, config().auth.refreshTtl, options.now);
      const sid = engine.sandboxes.ensureRow(sandbox);
      store.issueRefresh(refresh.claims.jti, family, sid, account.id, refresh.claims.exp);
      if (options.login) {
        store.setSession(sid, account.id);
        // In the change log with the login itself, so webhooks and /events see it (contract section 8).
        engine.changes.append(sid, 'auth.login', { user: account.user, role: account.role });
      }
      return {
        access_token: access.token,
        refresh_token: refresh.token,
        token_type: 'Bearer',
        expires_in: access.claims.exp - access.claims.iat,
        refresh_expires_in: refresh.claims.exp - refresh.claims.iat,
        user: account.user,
        role: account.role,
        scopes: account.scopes,
      };
    },

    /** The claims of a request's access token (see `checkUser`). */
    async verifyAccess(token: string, clock: Clock): Promise<Claims> {
      return core.checkUser(await tokens().verify(token, 'access', clock));
    },

    /** `verifyAccess` for a token verified before (no promise on the hot path); undefined for one never seen. */
    verifySeenAccess(token: string, clock: Clock): Claims | undefined {
      const claims = tokens().verifySeen(token, 'access', clock);
      return claims && core.checkUser(claims);
    },

    /**
     * The claims, if their user still exists in their sandbox and their family was not revoked
     * (logout, reuse, a password reset end the family's access tokens too); else 401 INVALID_TOKEN.
     * Checked on every request, the verified-token cache included; the answer is kept in the
     * sandbox's answer cache (dropped on every change to it and after a revocation), so a token
     * used again costs no SQL.
     */
    checkUser(claims: Claims): Claims {
      const verdict = engine.answers.tokenVerdict(claims.sid, claims.sub, claims.fam, () => {
        if (store.familyRevoked(claims.fam)) return 'revoked';
        const exists = claims.sub.startsWith('persona:') ? accounts.personas().has(claims.sub.slice('persona:'.length)) : accounts.byId(claims.sid, claims.sub) !== undefined;
        return exists ? 'live' : 'gone';
      });
      if (verdict === 'revoked') throw invalidToken('this token was revoked (logout, reuse or a password reset); log in again');
      if (verdict !== 'live') throw invalidToken("the token's user no longer exists in its sandbox");
      return claims;
    },
  };
  return { ...core, ...createSessions(core), ...createProfile(core), ...createRecovery(core) };
}

export type AuthCore = {
  engine: Engine;
  config: () => ResolvedConfig;
  accounts: ReturnType<typeof createAccounts>;
  store: Engine['auth'];
  tokens: () => Tokens;
  issueIn(sandbox: string, account: Account, options: IssueOptions & { family?: string; login?: boolean }): TokenAnswer;
};

export type Auth = ReturnType<typeof createAuth>;
