import { ActivityRing } from './activity-ring.js';

/**
 * One answered request of a sandbox, as `GET /sandbox/activity` shows it (`at`: ms since the
 * epoch; `durationMs` is kept to 0.01 ms, the path to 1 KiB of UTF-8).
 */
export interface ActivityEntry {
  method: string;
  path: string;
  status: number;
  durationMs: number;
  at: number;
}

/** What this server process saw of one sandbox. */
export interface SeenSandbox {
  firstSeen: number;
  lastSeen: number;
  requests: number;
}

interface Tracked extends SeenSandbox {
  /** The recent requests, packed; none until the first one. */
  ring?: ActivityRing;
}

export interface ActivityLimits {
  /** Entries kept per sandbox. */
  activity?: number;
  /** Sandboxes tracked at most (0: the default below); the least recently seen are forgotten. */
  maxSandboxes?: number;
  /** Seconds; a sandbox idle longer starts over (0 never). */
  sandboxTtl?: number;
}

/** Reader-only visitors count too, so the tracked set has a floor even when `maxSandboxes` is tiny. */
const minTracked = 1_000;
const defaultTracked = 10_000;

/**
 * Request counts, last-seen times and the recent requests of each sandbox, in memory only: they
 * are telemetry of this server process, and a read must not cost a SQLite write. Bounded twice:
 * `limits.activity` entries per sandbox, and a least-recently-seen set of sandboxes (a Map keeps
 * insertion order, so re-inserting on every request makes its first key the least recent).
 *
 * Last-seen times also feed sandbox expiry: `takeSeen()` hands the times not yet written to the
 * file to the lifecycle, which writes them to `sandboxes.last_active_at` in one batch.
 */
export function createActivityLog(limits: ActivityLimits) {
  const tracked = new Map<string, Tracked>();
  let unsaved = new Map<string, number>();
  /** The key last (re-)inserted into `tracked`, i.e. its last key, unless since deleted. */
  let newest: string | undefined;
  const ttlMs = () => (limits.sandboxTtl ?? 0) * 1000;
  const expired = (entry: SeenSandbox, now: number) => ttlMs() > 0 && entry.lastSeen < now - ttlMs();

  return {
    /** Records an answered request of a sandbox (called after the answer is ready). */
    record(sandbox: string, method: string, path: string, status: number, durationMs: number, now: number): void {
      let entry = tracked.get(sandbox);
      if (!entry || expired(entry, now)) {
        tracked.delete(sandbox);
        entry = { firstSeen: now - durationMs, lastSeen: now, requests: 0, ring: undefined };
        tracked.set(sandbox, entry);
        newest = sandbox;
      } else if (sandbox !== newest) {
        // Re-inserted to be the most recent; the sandbox of the last request already is.
        tracked.delete(sandbox);
        tracked.set(sandbox, entry);
        newest = sandbox;
      }
      entry.lastSeen = now;
      entry.requests++;
      unsaved.set(sandbox, now);

      const limit = limits.activity ?? 100;
      if (limit > 0) {
        if (!entry.ring) entry.ring = new ActivityRing(limit);
        else if (entry.ring.limit !== limit) entry.ring.relimit(limit);
        entry.ring.push(method, path, status, durationMs, now - durationMs);
      } else entry.ring = undefined;

      const max = Math.max(limits.maxSandboxes || defaultTracked, minTracked);
      if (tracked.size > max) tracked.delete(tracked.keys().next().value!);
    },

    /**
     * Counts and times of a sandbox, starting them at `arrivedAt` for one this process has not
     * seen (or that expired since), so the request asking sees the times its answer will count.
     */
    open(sandbox: string, arrivedAt: number): SeenSandbox {
      let entry = tracked.get(sandbox);
      if (!entry || expired(entry, arrivedAt)) {
        tracked.delete(sandbox);
        entry = { firstSeen: arrivedAt, lastSeen: arrivedAt, requests: 0, ring: undefined };
        tracked.set(sandbox, entry);
        newest = sandbox;
      }
      return { firstSeen: entry.firstSeen, lastSeen: entry.lastSeen, requests: entry.requests };
    },

    /** The sandbox's recent requests, newest first. */
    recent(sandbox: string, now = Date.now()): ActivityEntry[] {
      const entry = tracked.get(sandbox);
      if (!entry?.ring || expired(entry, now)) return [];
      // At most the current limit, also when a reload lowered it since this sandbox's last request.
      return entry.ring.recent(limits.activity ?? 100);
    },

    /** The last time this process saw the sandbox, if it remembers (for expiry and eviction). */
    lastSeen(sandbox: string): number | undefined {
      return unsaved.get(sandbox) ?? tracked.get(sandbox)?.lastSeen;
    },

    /** Forgets a sandbox (it was purged: it starts over). */
    forget(sandbox: string): void {
      tracked.delete(sandbox);
      unsaved.delete(sandbox);
    },

    /** Drops the tracked sandboxes not seen since `cutoff` (the least recent come first). */
    forgetIdle(cutoff: number): void {
      for (const [sandbox, entry] of tracked) {
        if (entry.lastSeen >= cutoff) break;
        tracked.delete(sandbox);
      }
    },

    /** Last-seen times not yet written to the file; the caller writes them or gives them back. */
    takeSeen(): Map<string, number> {
      const taken = unsaved;
      unsaved = new Map();
      return taken;
    },

    /** Gives back times that could not be written (the file was busy), keeping newer ones. */
    returnSeen(times: Map<string, number>): void {
      for (const [sandbox, at] of times) if (!(unsaved.get(sandbox)! >= at)) unsaved.set(sandbox, at);
    },
  };
}

export type ActivityLog = ReturnType<typeof createActivityLog>;
