import { randomUUID } from 'node:crypto';
import type { ResolvedConfig } from '../config.js';
import type { Engine } from '../engine/engine.js';
import { invalidToken, refreshTokenReused } from '../errors.js';
import { createAccounts, type Account } from './accounts.js';
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

/**
 * Authentication over the engine: accounts, the token key, issuing token pairs (a new refresh
 * family per login) and checking a request's access token against its sandbox.
 */
export function createAuth(engine: Engine, config: ResolvedConfig) {
  const store = engine.auth;
  const accounts = createAccounts(engine, store, config);
  let current: { secret: string; tokens: Tokens } | undefined;
  // The file's key never changes once kept (INSERT OR IGNORE), so it is read once.
  let stored: string | undefined;

  /** The signer for the key in force: `auth.secret`, else the one kept in the file (a reload may change it). */
  const tokens = (): Tokens => {
    const secret = config.auth.secret ?? (stored ??= store.storedSecret(newSecret));
    if (current?.secret !== secret) current = { secret, tokens: createTokens(new TextEncoder().encode(secret)) };
    return current!.tokens;
  };

  const auth = {
    accounts,
    store,
    tokens,

    /**
     * A new access and refresh token for the account in the sandbox: a new family (login,
     * register) or the next of one (refresh). `accessTtl` (`token_ttl`, `X-Simulate-JWT-Expiry`)
     * may shorten `auth.accessTtl`, never lengthen it (contract section 7).
     * `consumes`: the refresh token a refresh presents, consumed in the transaction that stores
     * its successor; if it is no longer live by then (a concurrent refresh with the same token
     * won), that is reuse: the family is revoked and nothing is issued.
     */
    async issue(sandbox: string, account: Account, options: { now: number; accessTtl?: number; family?: string; consumes?: string }): Promise<TokenAnswer> {
      const family = options.family ?? `fam_${randomUUID()}`;
      const base = { sub: account.id, sid: sandbox, role: account.role, scope: account.scopes.join(' '), fam: family };
      const accessTtl = Math.min(options.accessTtl ?? config.auth.accessTtl, config.auth.accessTtl);
      const access = await tokens().sign('access', base, accessTtl, options.now);
      const refresh = await tokens().sign('refresh', base, config.auth.refreshTtl, options.now);
      // Consuming and storing in one transaction: a reuse that revokes the family while this
      // request was signing cannot be followed by a live successor in it.
      const stored = engine.sandboxes.write(() => {
        if (options.consumes !== undefined && !store.consumeRefresh(options.consumes)) return false;
        const sid = engine.sandboxes.ensureRow(sandbox);
        store.issueRefresh(refresh.claims.jti, family, sid, account.id, refresh.claims.exp);
        return true;
      });
      if (!stored) {
        auth.revokeFamilies(sandbox, [family]);
        throw refreshTokenReused('this refresh token was already used; its family is revoked, log in again');
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

    /**
     * The claims of a request's access token, whose user still exists in its sandbox (a user
     * deleted there, or a persona removed from the config, makes it INVALID_TOKEN).
     */
    async verifyAccess(token: string, clock: Clock): Promise<Claims> {
      return auth.checkUser(await tokens().verify(token, 'access', clock));
    },

    /** `verifyAccess` for a token verified before (no promise on the hot path); undefined for one never seen. */
    verifySeenAccess(token: string, clock: Clock): Claims | undefined {
      const claims = tokens().verifySeen(token, 'access', clock);
      return claims && auth.checkUser(claims);
    },

    /**
     * The claims, if their user still exists in their sandbox and their family was not revoked
     * (logout, reuse, a password reset end the family's access tokens too); else 401 INVALID_TOKEN.
     * Checked on every request, the verified-token cache included; the answer is kept in the
     * sandbox's answer cache (dropped on every change to it and by `revokeFamilies`), so a token
     * used again costs no SQL.
     */
    checkUser(claims: Claims): Claims {
      const verdict = engine.answers.answer(claims.sid, `\u0000account ${claims.sub} ${claims.fam}`, () => {
        if (store.familyRevoked(claims.fam)) return 'revoked';
        const exists = claims.sub.startsWith('persona:') ? accounts.personas().has(claims.sub.slice('persona:'.length)) : accounts.byId(claims.sid, claims.sub) !== undefined;
        return exists ? 'live' : 'gone';
      });
      if (verdict === 'revoked') throw invalidToken('this token was revoked (logout, reuse or a password reset); log in again');
      if (verdict !== 'live') throw invalidToken("the token's user no longer exists in its sandbox");
      return claims;
    },

    /** Revokes refresh families (logout, reuse), and with them their access tokens, in one transaction. */
    revokeFamilies(sandbox: string, families: Iterable<string>): void {
      engine.sandboxes.write(() => {
        for (const family of families) store.revokeFamily(family);
      });
      engine.sandboxChanged(sandbox);
    },
  };
  return auth;
}

export type Auth = ReturnType<typeof createAuth>;
