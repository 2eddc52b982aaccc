import { eq, sql } from 'drizzle-orm';
import type { OpenDatabase } from '../db/open.js';
import { overlay, sandboxes } from '../db/schema.js';
import { maxPackedNumber, type SearchIndex } from '../db/search-index.js';
import { quotaExceeded } from '../errors.js';

export interface SandboxStoreOptions {
  limits?: {
    /** Seconds; a sandbox idle longer is dropped (0 never). */
    sandboxTtl?: number;
    /** Sandboxes that may hold data at once (0: no bound). */
    maxSandboxes?: number;
  };
  /** When this process last saw a sandbox; reads are not written to the file at once. */
  lastSeen?: (key: string) => number | undefined;
  /** Told, after commit, of every sandbox dropped by expiry or eviction. */
  dropped?: (key: string) => void;
}

/** The sandbox's row, for `GET /sandbox`. */
export interface SandboxTimes {
  sid: number;
  createdAt: number;
  lastActiveAt: number;
}

/** Candidates read beyond the ones to evict, so a sandbox active in memory but not yet on file is spared. */
const evictionSlack = 32;

/**
 * Sandbox id → the compact integer of its rows, and the sandbox lifecycle on file: expiry
 * (`limits.sandboxTtl`), the bound on sandboxes holding data (`limits.maxSandboxes`), and last
 * activity. Nothing is cached: another process may reset or import.
 */
export function createSandboxStore(db: OpenDatabase, search: SearchIndex, options: SandboxStoreOptions = {}) {
  const { orm, sqlite } = db;
  const limits = options.limits ?? {};
  const lastSeen = options.lastSeen ?? (() => undefined);
  // Raw and `.raw()`: this runs on every request (the answer cache asks for the sid), so it stays lean.
  const findRow = sqlite.prepare(`SELECT sid, last_active_at FROM sandboxes WHERE key = ?`).raw();
  const readRow = sqlite.prepare(`SELECT sid, created_at AS createdAt, last_active_at AS lastActiveAt FROM sandboxes WHERE key = ?`);
  const insert = orm
    .insert(sandboxes)
    .values({ key: sql.placeholder('key'), createdAt: sql.placeholder('now'), lastActiveAt: sql.placeholder('now') })
    .returning({ sid: sandboxes.sid })
    .prepare();
  const markActive = sqlite.prepare(`UPDATE sandboxes SET last_active_at = max(last_active_at, ?) WHERE sid = ?`);
  const markSeen = sqlite.prepare(`UPDATE sandboxes SET last_active_at = max(last_active_at, ?) WHERE key = ?`);
  const bumpSeq = orm
    .update(sandboxes)
    .set({ seq: sql`${sandboxes.seq} + 1` })
    .where(eq(sandboxes.sid, sql.placeholder('sid')))
    .returning({ seq: sandboxes.seq })
    .prepare();
  const purgeCounts = sqlite.prepare(`SELECT cid, count(*) AS n FROM overlay WHERE sid = ? GROUP BY cid`);
  const createdCounts = sqlite.prepare(`SELECT cid, count(*) AS n FROM overlay WHERE sid = ? AND state = 1 GROUP BY cid`);
  const restartSeq = sqlite.prepare(`UPDATE sandboxes SET seq = 0 WHERE sid = ?`);
  const purge = orm.delete(overlay).where(eq(overlay.sid, sql.placeholder('sid'))).prepare();
  // Everything a sandbox holds on file. Later per-sandbox tables add their DELETE here.
  const dropStatements = ['snapshot_rows', 'snapshots', 'sandboxes'].map((table) => sqlite.prepare(`DELETE FROM ${table} WHERE sid = ?`));
  const countRows = sqlite.prepare(`SELECT count(*) FROM sandboxes`).pluck();
  const leastActive = sqlite.prepare(
    `SELECT sid, key, last_active_at AS lastActiveAt FROM sandboxes WHERE sid != ? ORDER BY last_active_at, sid LIMIT (? + 0)`,
  );
  const idleSince = sqlite.prepare(`SELECT sid, key, last_active_at AS lastActiveAt FROM sandboxes WHERE last_active_at < ?`);
  const activeAt = sqlite.prepare(`SELECT last_active_at FROM sandboxes WHERE sid = ?`).pluck();

  const ttlMs = () => (limits.sandboxTtl ?? 0) * 1000;
  /** Last activity: the file's, or this process's memory of a later read. */
  const activeSince = (key: string, onFile: number) => Math.max(onFile, lastSeen(key) ?? 0);

  /** Tells about dropped sandboxes once their transaction committed (now, or after the caller's one). */
  const announce = (keys: string[]) => {
    if (!keys.length || !options.dropped) return;
    const tell = () => keys.forEach((key) => options.dropped!(key));
    if (sqlite.inTransaction) queueMicrotask(tell);
    else tell();
  };

  const store = {
    /**
     * The sid of a sandbox that holds data, or 0 (matches no row) for one that never wrote. A
     * sandbox idle past `limits.sandboxTtl` is dropped here first, so its next request finds it fresh.
     */
    sidOf(key: string): number {
      const row = findRow.get(key) as [number, number] | undefined;
      if (!row) return 0;
      const ttl = ttlMs();
      if (ttl > 0 && activeSince(key, row[1]) < Date.now() - ttl) {
        sqlite.transaction(() => store.drop(row[0])).immediate();
        announce([key]);
        return 0;
      }
      return row[0];
    },

    /** The sandbox's row (after the expiry check), or undefined for one that holds no data. */
    row(key: string): SandboxTimes | undefined {
      return store.sidOf(key) ? (readRow.get(key) as SandboxTimes) : undefined;
    },

    /**
     * Makes sure the sandbox has a row (on its first write) and marks it active. Call inside the
     * write transaction. A new row beyond `limits.maxSandboxes` evicts the least recently active.
     */
    open(key: string): number {
      const now = Date.now();
      const existing = store.sidOf(key);
      if (existing) {
        markActive.run(now, existing);
        return existing;
      }
      const sid = insert.get({ key, now })!.sid;
      evictBeyondLimit(sid);
      return sid;
    },

    /** The next value of the sandbox's monotonic counter. Call inside the write transaction. */
    nextSeq(sid: number): number {
      const { seq } = bumpSeq.get({ sid })!;
      // The search index packs seq into 24 bits of its rowids (search-index.ts).
      if (seq > maxPackedNumber) throw quotaExceeded(`this sandbox has made ${maxPackedNumber} writes; reset it to go on`);
      return seq;
    },

    /** Live created records by collection number. */
    createdCounts(sid: number): Map<number, number> {
      const counts = new Map<number, number>();
      if (sid) for (const row of createdCounts.all(sid) as { cid: number; n: number }[]) counts.set(row.cid, row.n);
      return counts;
    },

    /** Deletes every overlay row of the sandbox and its search entries; returns how many rows each collection had. */
    purge(sid: number): Map<number, number> {
      const counts = new Map<number, number>();
      for (const row of purgeCounts.all(sid) as { cid: number; n: number }[]) counts.set(row.cid, row.n);
      purge.run({ sid });
      // Nothing holds a seq any more (the search rows go below), so the counter starts over.
      restartSeq.run(sid);
      search.forget(sid);
      return counts;
    },

    /** Deletes everything of the sandbox: overlay, search entries, snapshots and its row. Call inside a write transaction. */
    drop(sid: number): void {
      store.purge(sid);
      for (const statement of dropStatements) statement.run(sid);
    },

    /** Writes last-seen times (kept in memory by reads) to the rows, in one transaction. */
    saveSeen(times: Map<string, number>): void {
      if (!times.size) return;
      sqlite.transaction(() => {
        for (const [key, at] of times) markSeen.run(at, key);
      }).immediate();
    },

    /** Drops every sandbox idle past `limits.sandboxTtl`; returns their ids. */
    expire(now = Date.now()): string[] {
      const ttl = ttlMs();
      if (ttl <= 0) return [];
      const cutoff = now - ttl;
      const idle = (idleSince.all(cutoff) as { sid: number; key: string; lastActiveAt: number }[]).filter(
        (row) => activeSince(row.key, row.lastActiveAt) < cutoff,
      );
      if (!idle.length) return [];
      const dropped = sqlite.transaction(() =>
        idle.filter((row) => {
          // Another process may have written to it since the read above.
          const onFile = activeAt.get(row.sid) as number | undefined;
          if (onFile === undefined || onFile >= cutoff) return false;
          store.drop(row.sid);
          return true;
        }),
      ).immediate();
      const keys = dropped.map((row) => row.key);
      announce(keys);
      return keys;
    },
  };

  /** Purges the least recently active sandboxes while more than `limits.maxSandboxes` hold data. */
  function evictBeyondLimit(newSid: number): void {
    const max = limits.maxSandboxes ?? 0;
    if (max <= 0) return;
    const excess = (countRows.get() as number) - max;
    if (excess <= 0) return;
    const candidates = (leastActive.all(newSid, excess + evictionSlack) as { sid: number; key: string; lastActiveAt: number }[])
      .map((row) => ({ ...row, active: activeSince(row.key, row.lastActiveAt) }))
      .sort((a, b) => a.active - b.active || a.sid - b.sid)
      .slice(0, excess);
    for (const row of candidates) store.drop(row.sid);
    announce(candidates.map((row) => row.key));
  }

  return store;
}

export type SandboxStore = ReturnType<typeof createSandboxStore>;
