import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors.js';
import { normalizeOrigin } from '../../src/http/cors.js';
import { parseLatency } from '../../src/simulate/latency.js';
import { createRateLimiter, parseRateLimit } from '../../src/simulate/rate-limit.js';

const code = (work: () => unknown) => {
  try {
    work();
    return 'ok';
  } catch (error) {
    return error instanceof ApiError ? error.code : String(error);
  }
};

describe('parseLatency', () => {
  it.each([
    ['250', 250, 250],
    ['250ms', 250, 250],
    ['1s', 1000, 1000],
    ['1.5s', 1500, 1500],
    [' 100-400 ', 100, 400],
    ['100ms-1s', 100, 1000],
    ['0', 0, 0],
    ['30s', 30_000, 30_000],
    ['30000', 30_000, 30_000],
    ['5-5', 5, 5],
  ])('%j is %i to %i ms', (text, min, max) => {
    expect(parseLatency(text, 'x')).toEqual({ min, max });
  });

  it('takes a number of milliseconds from the config', () => {
    expect(parseLatency(120, 'simulate.latency')).toEqual({ min: 120, max: 120 });
    expect(code(() => parseLatency(30_001, 'simulate.latency'))).toBe('INVALID_SIMULATION');
  });

  it.each(['', '-1', '30001', '31s', '1m', '1h', '400-100', '100-', '-', 'abc', '1e3', '250 ms', '1..5s', '100-200-300', 'NaN', 'Infinity'])(
    '%j is INVALID_SIMULATION',
    (text) => {
      expect(code(() => parseLatency(text, 'X-Simulate-Latency'))).toBe('INVALID_SIMULATION');
    },
  );
});

describe('parseRateLimit', () => {
  it.each([
    ['5/10s', 5, 10_000],
    ['100/m', 100, 60_000],
    ['3/500ms', 3, 500],
    ['2/h', 2, 3_600_000],
    ['7/30', 7, 30_000],
    ['1/', 1, 1000],
  ])('%j is %i per %i ms', (text, limit, windowMs) => {
    expect(parseRateLimit(text, 'x')).toMatchObject({ limit, windowMs });
  });

  it.each(['', '5', '0/1s', '5/0s', '5/25h', 'a/1s', '5/1d', '-1/1s', '5 per 10s'])('%j is INVALID_SIMULATION', (text) => {
    expect(code(() => parseRateLimit(text, 'x'))).toBe('INVALID_SIMULATION');
  });
});

describe('createRateLimiter', () => {
  it('keeps one budget per sandbox, refused requests use none, and a window ends', () => {
    const limiter = createRateLimiter();
    const rule = parseRateLimit('2/1s', 'x');
    expect(limiter.take('a', rule, 0)).toEqual({ allowed: true, limit: 2, remaining: 1, resetSeconds: 1 });
    expect(limiter.take('a', rule, 10).remaining).toBe(0);
    expect(limiter.take('a', rule, 20)).toMatchObject({ allowed: false, remaining: 0 });
    expect(limiter.take('b', rule, 30)).toMatchObject({ allowed: true, remaining: 1 });
    expect(limiter.take('a', rule, 1000)).toMatchObject({ allowed: true, remaining: 1 });
  });

  it('a different rule starts a new window', () => {
    const limiter = createRateLimiter();
    limiter.take('a', parseRateLimit('1/1h', 'x'), 0);
    expect(limiter.take('a', parseRateLimit('1/1h', 'x'), 1).allowed).toBe(false);
    expect(limiter.take('a', parseRateLimit('5/1h', 'x'), 2)).toMatchObject({ allowed: true, remaining: 4 });
  });

  it('bounds its memory: ended windows go first, then the oldest', () => {
    const limiter = createRateLimiter(100);
    const rule = parseRateLimit('1/1s', 'x');
    for (let i = 0; i < 10_000; i++) limiter.take(`sandbox-${i}`, rule, i);
    expect(limiter.size).toBeLessThanOrEqual(100);
    // The newest budget is still there.
    expect(limiter.take('sandbox-9999', rule, 10_000).allowed).toBe(false);
  });
});

describe('normalizeOrigin', () => {
  it.each([
    ['http://localhost:3000', 'http://localhost:3000'],
    ['HTTP://LocalHost:3000/', 'http://localhost:3000'],
    ['http://localhost:80', 'http://localhost'],
    ['https://App.Example.test:443', 'https://app.example.test'],
    ['null', 'null'],
  ])('%j → %j', (origin, normal) => {
    expect(normalizeOrigin(origin)).toBe(normal);
  });
});
