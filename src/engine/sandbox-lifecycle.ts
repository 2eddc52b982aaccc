import type { ActivityLog } from './activity.js';
import type { SandboxStore } from './sandbox-store.js';

export interface LifecycleLimits {
  /** Seconds; 0 never expires. */
  sandboxTtl: number;
}

const clamp = (value: number, min: number, max: number) => Math.min(Math.max(value, min), max);

/**
 * The server's timer over sandboxes: every few seconds it writes the last-seen times that reads
 * kept in memory to `sandboxes.last_active_at` (one transaction, so reads stay write-free), and
 * about once per TTL (at most every minute) it drops the sandboxes idle past `limits.sandboxTtl`
 * that no request came back to (a returning one is dropped lazily by `sidOf`). The first sweep
 * waits a full period, so a start never does that work before the first answer. The timer is
 * unref'd; the returned stop writes the pending times once more (call it before closing the file).
 */
export function startSandboxLifecycle(
  sandboxes: SandboxStore,
  activity: ActivityLog,
  limits: LifecycleLimits,
  // The WAL's quiet clock does not count these writes (db/checkpoints.ts).
  bookkeeping: (write: () => void) => void = (write) => write(),
): () => void {
  const ttlMs = () => limits.sandboxTtl * 1000;
  const tickMs = ttlMs() > 0 ? clamp(ttlMs() / 4, 250, 5_000) : 5_000;
  const sweepMs = clamp(ttlMs(), 1_000, 60_000);
  let lastSweep = Date.now();

  const saveSeen = () => {
    const seen = activity.takeSeen();
    try {
      bookkeeping(() => sandboxes.saveSeen(seen));
    } catch {
      activity.returnSeen(seen); // busy (another process writes): the next tick tries again
    }
  };
  const tick = () => {
    saveSeen();
    const now = Date.now();
    if (ttlMs() <= 0 || now - lastSweep < sweepMs) return;
    lastSweep = now;
    try {
      sandboxes.expire(now);
    } catch {
      // busy: the next sweep tries again
    }
    activity.forgetIdle(now - ttlMs());
  };

  const timer = setInterval(tick, tickMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    saveSeen();
  };
}
