import { describe, expect, it } from 'vitest';
import { allows, roles, scopeList } from '../../src/auth/scopes.js';

/**
 * `allows(granted, needed, publicResource)`: the one place that decides whether a token's scopes
 * cover what a route declares. Each row: granted scopes, the needed scope, whether the route is
 * public (guests may read it), and the answer.
 */
const table: [granted: string[], needed: string, publicResource: boolean, expected: boolean][] = [
  // `*` alone grants every well-formed scope, public or not.
  [['*'], 'posts:read', false, true],
  [['*'], 'posts:delete', false, true],
  [['*'], 'sandbox:reset', false, true],
  [['*'], 'inbox:read', true, true],
  // The mailbox holds reset tokens: `*:read` does not cover it, `inbox:*` does.
  [['*:read'], 'inbox:read', false, false],
  [['*:*'], 'inbox:read', false, false],
  [['inbox:*'], 'inbox:read', false, true],
  // `*:<action>`: that action on every resource, no other action.
  [['*:read'], 'posts:read', false, true],
  [['*:read'], 'sandbox:read', false, true],
  [['*:read'], 'posts:write', false, false],
  [['*:read'], 'posts:delete', false, false],
  [['*:read'], 'sandbox:reset', false, false],
  [['*:read', '*:write'], 'users:write', false, true],
  [['*:read', '*:write'], 'users:delete', false, false],
  [['*:read', '*:write'], 'sandbox:reset', false, false],
  // `<resource>:*`: every action on that resource only.
  [['posts:*'], 'posts:read', false, true],
  [['posts:*'], 'posts:write', false, true],
  [['posts:*'], 'posts:delete', false, true],
  [['posts:*'], 'comments:read', false, false],
  [['posts:*'], 'postsx:read', false, false],
  [['*:*'], 'sandbox:reset', false, true],
  // Exact scopes: resource and action both match, case-sensitively.
  [['posts:read'], 'posts:read', false, true],
  [['posts:read'], 'posts:write', false, false],
  [['posts:read'], 'comments:read', false, false],
  [['posts:read'], 'Posts:read', false, false],
  [['posts:read'], 'posts:READ', false, false],
  [['sandbox:reset'], 'sandbox:reset', false, true],
  [['sandbox:read'], 'sandbox:reset', false, false],
  // `public:read` covers a read only where the route marks the resource public.
  [['public:read'], 'posts:read', true, true],
  [['public:read'], 'inbox:read', true, true],
  [['public:read'], 'posts:read', false, false],
  [['public:read'], 'sandbox:read', false, false],
  [['public:read'], 'posts:write', true, false],
  [['public:read'], 'posts:delete', true, false],
  [['public:read'], 'public:read', false, true],
  [['public:*'], 'posts:write', true, true],
  [['public:*'], 'posts:write', false, false],
  // publicResource changes nothing for the other grants.
  [['posts:read'], 'posts:read', true, true],
  [['comments:read'], 'posts:read', true, false],
  [['*:write'], 'posts:read', true, false],
  // Malformed grants are ignored, never read as wildcards or prefixes.
  [['posts'], 'posts:read', false, false],
  [['posts'], 'posts:read', true, false],
  [[':read'], 'posts:read', false, false],
  [[':read'], ':read', false, false],
  [['posts:'], 'posts:read', false, false],
  [['a:b:c'], 'a:b', false, false],
  [['a:b:c'], 'a:b:c', false, false],
  [['*:'], 'posts:read', false, false],
  [[':*'], 'posts:read', false, false],
  [[':'], 'posts:read', false, false],
  [[''], 'posts:read', false, false],
  [['**'], 'posts:read', false, false],
  [[' posts:read'], 'posts:read', false, false],
  [['posts:read '], 'posts:read', false, false],
  [['p*:read'], 'posts:read', false, false],
  // A malformed need is refused even by `*` (a route that declares nonsense is closed).
  [['*'], 'posts', false, false],
  [['*'], ':read', false, false],
  [['*'], 'posts:', false, false],
  [['*'], 'a:b:c', false, false],
  [['*'], '', false, false],
  [['posts:*'], 'posts:read:x', false, false],
  [['public:read'], 'posts', true, false],
  // A wildcard in the need is not a wildcard: one collection's grant does not cover it.
  [['posts:read'], '*:read', false, false],
  [['*:read'], '*:read', false, true],
  // Nothing granted, nothing allowed.
  [[], 'posts:read', false, false],
  [[], 'posts:read', true, false],
  // Several grants: any one that covers the need is enough; malformed ones beside it do not hurt.
  [['posts', 'a:b:c', 'posts:read'], 'posts:read', false, true],
  [['comments:read', 'posts:write'], 'posts:write', false, true],
  [['comments:read', 'posts:write'], 'posts:read', false, false],
];

describe('allows', () => {
  it.each(table)('%j needing %s (public %s) → %s', (granted, needed, publicResource, expected) => {
    expect(allows(granted, needed, publicResource)).toBe(expected);
  });

  it('defaults publicResource to false', () => {
    expect(allows(['public:read'], 'posts:read')).toBe(false);
    expect(allows(['*:read'], 'posts:read')).toBe(true);
  });

  it('grants a list exactly what one of its scopes grants (order and repeats do not matter)', () => {
    const grants = ['*', '*:read', '*:write', 'posts:*', 'posts:read', 'public:read', 'posts', 'a:b:c', ':read', 'sandbox:reset'];
    const needs = ['posts:read', 'posts:write', 'posts:delete', 'comments:read', 'sandbox:reset', 'sandbox:read', 'inbox:read', 'posts', 'x:y:z'];
    for (const a of grants) {
      for (const b of grants) {
        for (const needed of needs) {
          for (const publicResource of [false, true]) {
            const either = allows([a], needed, publicResource) || allows([b], needed, publicResource);
            expect(allows([a, b], needed, publicResource), `${a} ${b} → ${needed} ${publicResource}`).toBe(either);
            expect(allows([b, a, a], needed, publicResource)).toBe(either);
          }
        }
      }
    }
  });
});

describe('the roles', () => {
  const can = (role: keyof typeof roles, needed: string, publicResource = false) => allows(roles[role].scopes, needed, publicResource);

  it.each([
    // [need, public route, admin, editor, viewer, guest]
    ['posts:read', true, true, true, true, true],
    ['users:read', true, true, true, true, true],
    ['inbox:read', false, true, false, false, false],
    ['posts:write', false, true, true, false, false],
    ['posts:delete', false, true, false, false, false],
    ['sandbox:read', false, true, true, true, false],
    ['sandbox:write', false, true, true, false, false],
    ['sandbox:delete', false, true, false, false, false],
    ['sandbox:reset', false, true, false, false, false],
  ] as const)('%s (public %s): admin %s, editor %s, viewer %s, guest %s', (needed, publicResource, admin, editor, viewer, guest) => {
    expect([can('admin', needed, publicResource), can('editor', needed, publicResource), can('viewer', needed, publicResource), can('guest', needed, publicResource)]).toEqual([
      admin,
      editor,
      viewer,
      guest,
    ]);
  });

  it('are the contract scopes', () => {
    expect(roles.admin.scopes).toEqual(['*']);
    expect(roles.editor.scopes).toEqual(['*:read', '*:write']);
    expect(roles.viewer.scopes).toEqual(['*:read']);
    expect(roles.guest.scopes).toEqual(['public:read']);
  });
});

describe('scopeList', () => {
  it.each([
    ['posts:read  comments:read', ['posts:read', 'comments:read']],
    [' * ', ['*']],
    ['', []],
    ['a:b a:b\ta:b\nc:d', ['a:b', 'c:d']],
    [['x:y', '', 'x:y'], ['x:y']],
    [undefined, []],
  ] as const)('%j → %j', (value, expected) => {
    expect(scopeList(value as string | string[] | undefined)).toEqual(expected);
  });
});
