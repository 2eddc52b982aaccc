import type { ResolvedConfig } from '../config.js';
import { perConfig } from '../per-config.js';
import type { AuthStore } from '../engine/auth-store.js';
import type { Json } from '../engine/collection-store.js';
import type { Engine } from '../engine/engine.js';
import { parseRecordId } from '../engine/record-id.js';
import { sameText, verifyPassword } from './passwords.js';
import { roles, scopeList, type Role } from './scopes.js';

/**
 * Who can log in (contract section 7): the personas (admin, editor, viewer, plus any the config
 * adds or changes), every user the sandbox sees (baseline users and users registered in it), all
 * editors. An account's id is the token's `sub`: a user's record id, or `persona:<username>`.
 */
export interface Account {
  id: string;
  kind: 'persona' | 'user';
  role: Role;
  scopes: string[];
  /** The profile as `GET /auth/me` shows it (never a password). */
  user: Json;
}

export interface Persona {
  username: string;
  name: string;
  email: string;
  password?: string;
  role: Role;
  scopes: string[];
}

const personaPrefix = 'persona:';
const builtInPersonas: Role[] = ['admin', 'editor', 'viewer'];

export function createAccounts(engine: Engine, auth: AuthStore, config: () => ResolvedConfig) {
  const users = engine.collection('users')!;

  /** The personas of the config in force. */
  const personas = (): Map<string, Persona> => personasOf(config());

  const personaAccount = (sandbox: string, persona: Persona): Account => {
    const id = `${personaPrefix}${persona.username}`;
    const changed = auth.profile(engine.sandboxes.sidOf(sandbox), id);
    const profile = { id, username: persona.username, name: persona.name, email: persona.email, ...(changed ? (JSON.parse(changed) as Json) : {}) };
    return { id, kind: 'persona', role: persona.role, scopes: persona.scopes, user: profile };
  };
  const userAccount = (record: Json): Account => ({ id: String(record.id), kind: 'user', role: 'editor', scopes: roles.editor.scopes, user: record });

  const accounts = {
    personas,

    /** The account of a login name: a persona's username or email, else a user's username or email in the sandbox. */
    find(sandbox: string, login: string): Account | undefined {
      const wanted = login.toLowerCase();
      for (const persona of personas().values()) {
        const account = personaAccount(sandbox, persona);
        if (persona.username.toLowerCase() === wanted || String(account.user.email).toLowerCase() === wanted) return account;
      }
      const record = users.findBy(sandbox, login.includes('@') ? 'email' : 'username', login);
      return record ? userAccount(record) : undefined;
    },

    /** The account a token's `sub` names, as the sandbox sees it now (a user deleted there has none). */
    byId(sandbox: string, id: string): Account | undefined {
      if (id.startsWith(personaPrefix)) {
        const persona = personas().get(id.slice(personaPrefix.length));
        return persona && personaAccount(sandbox, persona);
      }
      const record = users.get(sandbox, parseRecordId(id));
      return record ? userAccount(record) : undefined;
    },

    /** Whether the password is the account's: one set in the sandbox, else the persona's or `auth.password`. */
    async checkPassword(sandbox: string, account: Account, password: string): Promise<boolean> {
      const hash = auth.password(engine.sandboxes.sidOf(sandbox), account.id);
      if (hash) return verifyPassword(password, hash);
      if (account.kind === 'persona') {
        const persona = personas().get(account.id.slice(personaPrefix.length));
        return sameText(password, persona?.password ?? config().auth.password);
      }
      // A user registered in the sandbox has a hash; one imported without it (exports carry no
      // passwords) has none and cannot log in until a password reset.
      if (typeof account.user.id !== 'number') return false;
      return sameText(password, config().auth.password);
    },

    /** Whether a login name or email is taken by a persona (registration must not shadow one). */
    personaTaken(username: string, email: string): boolean {
      for (const persona of personas().values()) {
        if (persona.username.toLowerCase() === username.toLowerCase() || persona.email.toLowerCase() === email.toLowerCase()) return true;
      }
      return false;
    },
  };
  return accounts;
}

export type Accounts = ReturnType<typeof createAccounts>;

/** The built-in personas with the config's own merged in, made once per config. */
const personasOf = perConfig((config: ResolvedConfig): Map<string, Persona> => {
  const all = new Map<string, Persona>();
  for (const role of builtInPersonas) {
    all.set(role, { username: role, name: role[0].toUpperCase() + role.slice(1), email: `${role}@mockapi.local`, role, scopes: roles[role].scopes });
  }
  for (const [username, given] of Object.entries(config.auth.personas ?? {})) {
    const base = all.get(username);
    const role = (given.role ?? base?.role ?? 'editor') as Role;
    all.set(username, {
      username,
      name: given.name ?? base?.name ?? username,
      email: given.email ?? base?.email ?? `${username}@mockapi.local`,
      password: given.password,
      role,
      scopes: given.scopes ? scopeList(given.scopes) : roles[role].scopes,
    });
  }
  return all;
});
