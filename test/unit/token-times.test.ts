import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors.js';
import { checkTimes, type Claims } from '../../src/auth/tokens.js';

const now = 1_800_000_000.25;
const claims = (times: { iat: number; exp: number; nbf?: number }): Claims & { nbf?: number } => ({
  iss: 'mockapi',
  sub: 'persona:admin',
  sid: 's',
  role: 'admin',
  scope: '*',
  jti: 'j',
  fam: 'f',
  ...times,
});

/** The code checkTimes throws, or 'valid'. */
function outcome(times: { iat: number; exp: number; nbf?: number }, tolerance = 0, at = now): string {
  try {
    checkTimes(claims(times), { now: at, tolerance });
    return 'valid';
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(401);
    expect((error as ApiError).headers?.['www-authenticate']).toMatch(/^Bearer error="invalid_token"/);
    return (error as ApiError).code;
  }
}

describe('checkTimes: exp', () => {
  it.each([
    ['exp == now: expired (an expiry of 0 fails at once)', { iat: now, exp: now }, 0, 'TOKEN_EXPIRED'],
    ['exp just after now: valid', { iat: now - 10, exp: now + 0.001 }, 0, 'valid'],
    ['exp just before now: expired', { iat: now - 10, exp: now - 0.001 }, 0, 'TOKEN_EXPIRED'],
    ['exp == floor(now) (a ttl of 0 issued this second): expired', { iat: Math.floor(now), exp: Math.floor(now) }, 0, 'TOKEN_EXPIRED'],
    ['exp an hour ago: expired', { iat: now - 7200, exp: now - 3600 }, 0, 'TOKEN_EXPIRED'],
    ['exp 5 s ago within a tolerance of 10 s: valid', { iat: now - 60, exp: now - 5 }, 10, 'valid'],
    ['exp exactly the tolerance ago: expired', { iat: now - 60, exp: now - 10 }, 10, 'TOKEN_EXPIRED'],
    ['exp more than the tolerance ago: expired', { iat: now - 60, exp: now - 10.5 }, 10, 'TOKEN_EXPIRED'],
    ['exp == now with a tolerance: valid', { iat: now, exp: now }, 1, 'valid'],
  ])('%s', (_, times, tolerance, expected) => {
    expect(outcome(times, tolerance)).toBe(expected);
  });
});

describe('checkTimes: iat in the future', () => {
  it.each([
    ['iat == now: valid', { iat: now, exp: now + 900 }, 0, 'valid'],
    ['iat 1 s ahead, no tolerance: not yet valid', { iat: now + 1, exp: now + 901 }, 0, 'TOKEN_NOT_YET_VALID'],
    ['iat a millisecond ahead, no tolerance: not yet valid', { iat: now + 0.001, exp: now + 900 }, 0, 'TOKEN_NOT_YET_VALID'],
    ['iat 120 s ahead (a skew of +120 s at login), no tolerance: not yet valid', { iat: now + 120, exp: now + 1020 }, 0, 'TOKEN_NOT_YET_VALID'],
    ['iat 120 s ahead, tolerance 180: valid', { iat: now + 120, exp: now + 1020 }, 180, 'valid'],
    ['iat exactly the tolerance ahead: valid', { iat: now + 180, exp: now + 1080 }, 180, 'valid'],
    ['iat past the tolerance: not yet valid', { iat: now + 180.5, exp: now + 1080 }, 180, 'TOKEN_NOT_YET_VALID'],
    ['iat in the past: valid', { iat: now - 100, exp: now + 100 }, 0, 'valid'],
  ])('%s', (_, times, tolerance, expected) => {
    expect(outcome(times, tolerance)).toBe(expected);
  });
});

describe('checkTimes: nbf', () => {
  it.each([
    ['nbf == now: valid', { iat: now - 1, exp: now + 60, nbf: now }, 0, 'valid'],
    ['nbf in the past: valid', { iat: now - 100, exp: now + 60, nbf: now - 50 }, 0, 'valid'],
    ['nbf 1 s ahead: not yet valid', { iat: now - 1, exp: now + 60, nbf: now + 1 }, 0, 'TOKEN_NOT_YET_VALID'],
    ['nbf 30 s ahead within a tolerance of 30: valid', { iat: now - 1, exp: now + 60, nbf: now + 30 }, 30, 'valid'],
    ['nbf past the tolerance: not yet valid', { iat: now - 1, exp: now + 60, nbf: now + 31 }, 30, 'TOKEN_NOT_YET_VALID'],
    ['no nbf: only iat and exp count', { iat: now - 1, exp: now + 60 }, 0, 'valid'],
  ])('%s', (_, times, tolerance, expected) => {
    expect(outcome(times, tolerance)).toBe(expected);
  });
});

describe('checkTimes: both wrong', () => {
  it('reports expiry first when a token is both expired and issued in the future', () => {
    expect(outcome({ iat: now + 100, exp: now - 100 })).toBe('TOKEN_EXPIRED');
  });

  it('moves with the request clock (X-Simulate-Clock-Skew shifts now)', () => {
    const times = { iat: now, exp: now + 900 };
    expect(outcome(times, 0, now + 899)).toBe('valid');
    expect(outcome(times, 0, now + 900)).toBe('TOKEN_EXPIRED');
    expect(outcome(times, 0, now - 1)).toBe('TOKEN_NOT_YET_VALID');
  });
});
