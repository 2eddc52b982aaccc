/** One answered request of a sandbox, as `GET /sandbox/activity` shows it (`at`: ms since the epoch). */
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
  /** A ring of at most `limits.activity` entries; `next` is the oldest once it is full. */
  log: ActivityEntry[];
  next: number;
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
  const ttlMs = () => (limits.sandboxTtl ?? 0) * 1000;
  const expired = (entry: SeenSandbox, now: number) => ttlMs() > 0 && entry.lastSeen < now - ttlMs();

  return {
    /** Records an answered request of a sandbox (called after the answer is ready). */
    record(sandbox: string, method: string, path: string, status: number, durationMs: number, now: number): void {
      let entry = tracked.get(sandbox);
      if (entry) tracked.delete(sandbox);
      if (!entry || expired(entry, now)) entry = { firstSeen: now - durationMs, lastSeen: now, requests: 0, log: [], next: 0 };
      tracked.set(sandbox, entry);
      entry.lastSeen = now;
      entry.requests++;
      unsaved.set(sandbox, now);

      const cap = limits.activity ?? 100;
      const item = { method, path, status, durationMs, at: now - durationMs };
      if (entry.log.length !== cap && entry.next) {
        // The limit changed (a config reload) after the ring wrapped: back to oldest-first order.
        entry.log = recentFirst(entry).reverse();
        entry.next = 0;
      }
      if (entry.log.length > cap) entry.log.splice(0, entry.log.length - cap);
      if (entry.log.length < cap) entry.log.push(item);
      else if (cap > 0) {
        entry.log[entry.next] = item;
        entry.next = (entry.next + 1) % cap;
      }

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
        entry = { firstSeen: arrivedAt, lastSeen: arrivedAt, requests: 0, log: [], next: 0 };
        tracked.set(sandbox, entry);
      }
      return { firstSeen: entry.firstSeen, lastSeen: entry.lastSeen, requests: entry.requests };
    },

    /** The sandbox's recent requests, newest first. */
    recent(sandbox: string, now = Date.now()): ActivityEntry[] {
      const entry = tracked.get(sandbox);
      if (!entry || expired(entry, now)) return [];
      return recentFirst(entry);
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

function recentFirst(entry: Tracked): ActivityEntry[] {
  return [...entry.log.slice(entry.next), ...entry.log.slice(0, entry.next)].reverse();
}

export type ActivityLog = ReturnType<typeof createActivityLog>;
