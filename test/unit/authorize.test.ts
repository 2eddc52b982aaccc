import { describe, expect, it } from 'vitest';
import { authorize, collectionAccess, holds, type Caller } from '../../src/auth/authorize.js';
import { toHttpError } from '../../src/http/problem.js';

const owner: Caller = { role: 'owner', scopes: ['*'] };
const guest: Caller = { role: 'guest', scopes: ['public:read'] };
const guestToken: Caller = { role: 'guest', scopes: ['public:read'], token: {} };
const viewer: Caller = { role: 'viewer', scopes: ['*:read'], token: {} };
const reader: Caller = { role: 'viewer', scopes: ['posts:read'], token: {} };

/** The status `authorize`'s domain error answers with (200: allowed). */
const status = (caller: Caller, needed: Parameters<typeof authorize>[1], publicResource?: boolean): number => {
  try {
    authorize(caller, needed, publicResource);
    return 200;
  } catch (error) {
    return toHttpError(error)!.status;
  }
};

describe('authorize: the one decision (contract section 7)', () => {
  it.each([
    ['owner, anything', owner, ['sandbox:reset'], false, 200],
    ['guest, a public read', guest, ['posts:read'], true, 200],
    ['guest, a public read of several collections', guest, ['posts:read', 'comments:read'], true, 200],
    ['guest, a write marked public', guest, ['posts:write'], true, 401],
    ['guest, no scope named, not public (a bare custom route)', guest, [], false, 401],
    ['guest, no scope named, public (a public custom route)', guest, [], true, 200],
    ['guest-role token, a read not public', guestToken, ['sandbox:read'], false, 403],
    ['viewer, an embedded read', viewer, ['posts:read', 'comments:read'], true, 200],
    ['posts reader, an embedded read of comments', reader, ['posts:read', 'comments:read'], true, 403],
    ['viewer, the mailbox', viewer, ['inbox:read'], false, 403],
    ['viewer, either of two', viewer, [['invoices:write', 'custom:read']], false, 200],
    ['posts reader, neither of two', reader, [['invoices:read', 'custom:read']], false, 403],
  ] as const)('%s: %d', (_, caller, needed, publicResource, expected) => {
    expect(status(caller, needed, publicResource)).toBe(expected);
  });

  it('makes custom collections private and baseline reads public', () => {
    expect(collectionAccess('posts', 'read')).toEqual({ needed: 'posts:read', public: true });
    expect(collectionAccess('posts', 'write')).toEqual({ needed: 'posts:write', public: false });
    expect(collectionAccess('custom.notes', 'read')).toEqual({ needed: ['notes:read', 'custom:read'], public: false });
  });

  it('holds: the owner and a token with the scope, never a guest', () => {
    expect(holds(owner, 'webhooks:write')).toBe(true);
    expect(holds(guest, 'webhooks:write')).toBe(false);
    expect(holds(viewer, 'webhooks:write')).toBe(false);
    expect(holds({ role: 'editor', scopes: ['*:read', '*:write'], token: {} }, 'webhooks:write')).toBe(true);
  });
});
