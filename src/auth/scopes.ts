/**
 * Roles and scopes (contract section 7). A scope is `<resource>:<action>` (`posts:read`,
 * `sandbox:reset`); a granted scope may use `*` for either part, and `*` alone grants everything.
 * `public:read` (the guest's) grants reading the resources a route marks public (the core
 * collections). Routes declare the scope they need; `allows` is the one place that decides.
 */

export type Role = 'admin' | 'editor' | 'viewer' | 'guest';

export const roles: Record<Role, { scopes: string[]; description: string }> = {
  admin: { scopes: ['*'], description: 'everything, sandbox reset included' },
  editor: { scopes: ['*:read', '*:write'], description: 'reads and writes every collection; no deletes, no reset, no mailbox' },
  viewer: { scopes: ['*:read'], description: 'reads everything but the mailbox, writes nothing' },
  guest: { scopes: ['public:read'], description: 'a request without a token when auth.required is set: reads the baseline collections' },
};

export const isRole = (value: unknown): value is Role => typeof value === 'string' && Object.hasOwn(roles, value);

/** `posts:read` → its two parts; undefined for anything else. */
function parts(scope: string): [string, string] | undefined {
  const colon = scope.indexOf(':');
  if (colon <= 0 || colon === scope.length - 1 || scope.indexOf(':', colon + 1) !== -1) return undefined;
  return [scope.slice(0, colon), scope.slice(colon + 1)];
}

/**
 * Resources a wildcard resource (`*:read`) does not cover, only `*` or their own scopes: the
 * mailbox holds password-reset tokens, so reading it is taking over accounts (contract section 7).
 */
const unwildcarded = new Set(['inbox']);

/**
 * Whether the granted scopes cover `needed` (`<resource>:<action>`). `publicResource`: the route
 * lets guests read it, so `public:<action>` covers it too.
 */
export function allows(granted: readonly string[], needed: string, publicResource = false): boolean {
  const want = parts(needed);
  if (!want) return false;
  for (const scope of granted) {
    if (scope === '*') return true;
    const have = parts(scope);
    if (!have) continue;
    const resourceMatches = (have[0] === '*' && !unwildcarded.has(want[0])) || have[0] === want[0] || (publicResource && have[0] === 'public');
    if (resourceMatches && (have[1] === '*' || have[1] === want[1])) return true;
  }
  return false;
}

/** A space-separated scope claim (or a config array) as a list, without empties or repeats. */
export function scopeList(value: string | readonly string[] | undefined): string[] {
  const list = typeof value === 'string' ? value.split(/\s+/) : [...(value ?? [])];
  return [...new Set(list.filter(Boolean))];
}

/** What a request on a custom collection needs: its name's scope or `custom:`'s, either one (contract section 10). */
export function customCollectionScope(name: string, action: string): readonly [string, string] {
  return [`${name}:${action}`, `custom:${action}`];
}
