import type { Json } from '../engine/collection-store.js';
import { conflict, unauthorized, validationFailed, type FieldProblem } from '../engine/errors.js';
import type { Account } from './accounts.js';
import type { AuthCore } from './service.js';

const profileFields = ['name', 'email', 'bio', 'website'] as const;

/** `GET /auth/me`'s answer. */
export interface Me {
  user: Json;
  role: string;
  scopes: string[];
}

/** The profile of the account a request acts as (contract section 7). */
export function createProfile(core: AuthCore) {
  const { engine, accounts, store } = core;
  const users = engine.collection('users')!;
  const me = (account: Account): Me => ({ user: account.user, role: account.role, scopes: account.scopes });

  /**
   * The account a request acts as: its token's `sub`, else (`cookie`: reads of `GET /auth/me`
   * only) the one the sandbox's cookie logged in; 401 without one.
   */
  const current = (sandbox: string, tokenUser: string | undefined, cookie: boolean): Account => {
    const id = tokenUser ?? (cookie ? store.session(engine.sandboxes.sidOf(sandbox)) : undefined);
    const account = id === undefined ? undefined : accounts.byId(sandbox, id);
    if (!account) throw unauthorized(cookie ? 'log in first: send a Bearer token, or log in with this sandbox cookie' : 'changing the profile needs a Bearer token');
    return account;
  };

  return {
    /** `GET /auth/me`: the token's user, else the cookie's login. */
    me: (sandbox: string, tokenUser: string | undefined): Me => me(current(sandbox, tokenUser, true)),

    /** `PATCH /auth/me` (a token only): `name`, `email`, `bio`, `website`, kept in the sandbox; one transaction. */
    updateProfile(sandbox: string, tokenUser: string | undefined, given: Json): Me {
      const account = current(sandbox, tokenUser, false);
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
  };
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
