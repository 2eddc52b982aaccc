import { afterEach, beforeEach, vi } from 'vitest';

/**
 * A clock the test moves, for what the server does with time (TTLs, the idle sweep, rate-limit
 * windows), instead of sleeping. It fakes `Date` and `setInterval` in this test file's worker,
 * so it works with servers started in-process (the default of `startServer`) after it is
 * installed, before each test: their timers (the sandbox sweep, activity flushes) run only when
 * the test advances the clock. Time stands still otherwise; `setTimeout` stays real (HTTP,
 * latency, webhook retries).
 */
export function fakeClock() {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  return {
    /** Time passes: every interval due on the way runs, in order, at its time. */
    advance(ms: number): void {
      vi.advanceTimersByTime(ms);
    },
    /** The clock jumps forward and no timer runs (as if the sweep had not come round yet). */
    jump(ms: number): void {
      vi.setSystemTime(Date.now() + ms);
    },
  };
}
