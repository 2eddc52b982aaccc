import { eq, sql } from 'drizzle-orm';
import type { OpenDatabase } from '../db/open.js';
import { holdsSql, rowBytesSql } from '../db/migrate.js';
import { overlay } from '../db/schema.js';
import { maxPackedNumber, type SearchIndex } from '../db/search-index.js';
import { oncePerTurn } from './answer-cache.js';
import { quotaExceeded } from './errors.js';

export interface SandboxStoreOptions {
  limits?: {
    /** Seconds; a sandbox idle longer is dropped (0 never). */
    sandboxTtl?: number;
    /** Sandboxes that may hold data at once (0: no bound). */
    maxSandboxes?: number;
    /** UTF-8 bytes one sandbox may store: record JSON (overlay and snapshots), mailbox messages, webhook delivery bodies (0: no bound). */
    sandboxBytes?: number;
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
  bytes: number;
}

/** Candidates read beyond the ones to evict, so a sandbox active in memory but not yet on file is spared. */
const evictionSlack = 32;
/**
 * A write moves `last_active_at` on file only when it is older than this: each move rewrites the
 * activity index (two of a write's ~10 WAL pages). The server's memory of requests (`lastSeen`)
 * keeps the exact time, as it does for reads, which reach the file only every few seconds.
 */
const activeGrainMs = 1_000;
/** Keys whose row (or its absence) is remembered at most; past it the memory starts over. */
const maxKnownKeys = 50_000;

/** A sandbox's row as `findRow` reads it: sid, last_active_at, holds (1 or 0). */
type Row = [number, number, number];

/**
 * Besides records, a sandbox stores two logs: its mailbox and its webhook deliveries (a body is
 * an event with its record, kept up to 100 times for each of 20 subscriptions). They count in its
 * bytes and make it hold data like records, or a few requests could grow the file without bound.
 */
const logBytesSql = `(SELECT coalesce(sum(length(CAST(doc AS BLOB))), 0) FROM mailbox WHERE sid = sandboxes.sid)
  + (SELECT coalesce(sum(length(CAST(body AS BLOB))), 0) FROM deliveries WHERE sid = sandboxes.sid)`;
const holdsDataSql = `(${holdsSql} OR EXISTS (SELECT 1 FROM mailbox WHERE sid = sandboxes.sid) OR EXISTS (SELECT 1 FROM deliveries WHERE sid = sandboxes.sid))`;

/** The stored size of one overlay or snapshot row: its JSON's UTF-8 bytes, or its id's for a tombstone. */
export function rowBytes(id: number | string, doc: string | null): number {
  return Buffer.byteLength(doc ?? String(id));
}

/**
 * Sandbox id → the compact integer of its rows, and the sandbox lifecycle on file: expiry
 * (`limits.sandboxTtl`), the bound on sandboxes holding data (`limits.maxSandboxes`), the bytes
 * each stores (`limits.sandboxBytes`) and last activity. The key → sid lookup of reads is
 * remembered while no other process commits (`oncePerTurn`) and this one neither opens the
 * key nor drops a sandbox; writes always read the file.
 *
 * Writes that may open, evict or expire sandboxes run in `write(fn)`: the notices of sandboxes
 * dropped inside it go out only once it commits, so a write that fails drops nothing, not even
 * another sandbox's telemetry.
 */
export function createSandboxStore(db: OpenDatabase, search: SearchIndex, options: SandboxStoreOptions = {}) {
  const { orm, sqlite } = db;
  const limits = options.limits ?? {};
  const lastSeen = options.lastSeen ?? (() => undefined);
  // Raw and `.raw()`: this runs on every request (the answer cache asks for the sid), so it stays lean.
  const findRow = sqlite.prepare(`SELECT sid, last_active_at, holds FROM sandboxes WHERE key = ?`).raw();
  const readRow = sqlite.prepare(`SELECT sid, created_at AS createdAt, last_active_at AS lastActiveAt, bytes FROM sandboxes WHERE key = ?`);
  // Raw statements on the write path: drizzle's prepared queries map their parameters on every run.
  const insert = sqlite.prepare(`INSERT INTO sandboxes (key, created_at, last_active_at, holds) VALUES (?, ?, ?, 1) RETURNING sid`).pluck();
  const insertEmpty = sqlite.prepare(`INSERT INTO sandboxes (key, created_at, last_active_at, holds) VALUES (?, ?, ?, 0) RETURNING sid`).pluck();
  const holdsOf = sqlite.prepare(`SELECT holds FROM sandboxes WHERE sid = ?`).pluck();
  const markActive = sqlite.prepare(`UPDATE sandboxes SET last_active_at = max(last_active_at, ?) WHERE sid = ?`);
  const markHolding = sqlite.prepare(`UPDATE sandboxes SET holds = 1 WHERE sid = ?`);
  const markSeen = sqlite.prepare(`UPDATE sandboxes SET last_active_at = max(last_active_at, ?) WHERE key = ?`);
  const bumpSeq = sqlite.prepare(`UPDATE sandboxes SET bytes = bytes + ?, seq = seq + 1 WHERE sid = ? RETURNING bytes, seq`).raw();
  const storedBytes = sqlite.prepare(`SELECT bytes FROM sandboxes WHERE sid = ?`).pluck();
  const addBytes = sqlite.prepare(`UPDATE sandboxes SET bytes = bytes + ? WHERE sid = ? RETURNING bytes`).pluck();
  const recount = sqlite
    .prepare(`UPDATE sandboxes SET holds = ${holdsDataSql}, bytes = ${rowBytesSql('overlay')} + ${rowBytesSql('snapshot_rows')} + ${logBytesSql} WHERE sid = ? RETURNING bytes`)
    .pluck();
  // The logs' oldest entries, which make room when the sandbox reaches its bound: finished
  // deliveries (pending ones are still to be sent), then messages (never the newest).
  const oldestDeliveries = sqlite.prepare(
    `SELECT id, length(CAST(body AS BLOB)) AS bytes FROM deliveries WHERE sid = ? AND status != 'pending' ORDER BY n LIMIT 64`,
  );
  const dropAttempts = sqlite.prepare(`DELETE FROM delivery_attempts WHERE delivery_id = ?`);
  const dropDelivery = sqlite.prepare(`DELETE FROM deliveries WHERE id = ?`);
  const oldestMessages = sqlite.prepare(
    `SELECT seq, length(CAST(doc AS BLOB)) AS bytes FROM mailbox WHERE sid = :sid AND seq < (SELECT max(seq) FROM mailbox WHERE sid = :sid) ORDER BY seq LIMIT 64`,
  );
  const dropMessage = sqlite.prepare(`DELETE FROM mailbox WHERE sid = ? AND seq = ?`);
  // A custom collection's number goes once no overlay or snapshot row uses it (after a reset, restore or snapshot delete).
  const forgetUnusedCustom = sqlite.prepare(
    `DELETE FROM custom_collections WHERE sid = :sid
        AND NOT EXISTS (SELECT 1 FROM overlay o WHERE o.sid = :sid AND o.cid = custom_collections.cid)
        AND NOT EXISTS (SELECT 1 FROM snapshot_rows r WHERE r.sid = :sid AND r.cid = custom_collections.cid)`,
  );
  const refreshHolds = sqlite.prepare(`UPDATE sandboxes SET holds = ${holdsDataSql} WHERE sid = ?`);
  const purgeCounts = sqlite.prepare(`SELECT cid, count(*) AS n FROM overlay WHERE sid = ? GROUP BY cid`);
  const createdCounts = sqlite.prepare(`SELECT cid, count(*) AS n FROM overlay WHERE sid = ? AND state = 1 GROUP BY cid`);
  const restartSeq = sqlite.prepare(`UPDATE sandboxes SET seq = 0 WHERE sid = ?`);
  const purge = orm.delete(overlay).where(eq(overlay.sid, sql.placeholder('sid'))).prepare();
  // Per-sandbox state beside the overlay that a reset purges too: the mailbox, reset tokens,
  // passwords and persona profiles set in it (not the logged-in user, refresh tokens, webhooks or
  // the change log, which the reset itself purges and then appends to).
  const purgeAlso = ['mailbox', 'reset_tokens', 'auth_passwords', 'auth_profiles'].map((table) => sqlite.prepare(`DELETE FROM ${table} WHERE sid = ?`));
  // Everything else a sandbox holds on file. Later per-sandbox tables add their DELETE here.
  const dropStatements = [
    'auth_sessions',
    'refresh_tokens',
    'snapshot_rows',
    'snapshots',
    'custom_collections',
    'events',
    'webhooks',
    'delivery_attempts',
    'deliveries',
    'sandboxes',
  ].map((table) => sqlite.prepare(`DELETE FROM ${table} WHERE sid = ?`));
  const countHolding = sqlite.prepare(`SELECT count(*) FROM sandboxes WHERE holds = 1`).pluck();
  const leastActive = sqlite.prepare(
    `SELECT sid, key, last_active_at AS lastActiveAt FROM sandboxes INDEXED BY sandboxes_holding
      WHERE holds = 1 AND sid NOT IN (SELECT value FROM json_each(?)) ORDER BY last_active_at, sid LIMIT (? + 0)`,
  );
  // Changed copies and tombstones (states 2 and 3) of baseline records that are gone from it.
  const orphaned = (table: string) =>
    `DELETE FROM ${table} WHERE state IN (2, 3) AND NOT EXISTS (SELECT 1 FROM base b WHERE b.cid = ${table}.cid AND b.id = ${table}.id)`;
  const deleteOrphans = sqlite.prepare(`${orphaned('overlay')} RETURNING sid, cid, state, seq`);
  const deleteSnapshotOrphans = sqlite.prepare(`${orphaned('snapshot_rows')} RETURNING sid`).pluck();
  // holds is 0 or 1: both ranges of the holding index, read by activity.
  const idleSince = sqlite.prepare(`SELECT sid, key, last_active_at AS lastActiveAt FROM sandboxes WHERE holds IN (0, 1) AND last_active_at < ?`);
  const activeAt = sqlite.prepare(`SELECT last_active_at FROM sandboxes WHERE sid = ?`).pluck();

  const ttlMs = () => (limits.sandboxTtl ?? 0) * 1000;
  /** Last activity: the file's, or this process's memory of a later read. */
  const activeSince = (key: string, onFile: number) => Math.max(onFile, lastSeen(key) ?? 0);

  // One wrapper for every write: better-sqlite3's `transaction(fn)` builds four closures a call.
  // Called inside a transaction it runs a savepoint instead.
  const transaction = sqlite.transaction((fn: () => unknown) => fn());

  /** Keys dropped inside the running `write`, told once it commits (undefined outside one). */
  let pending: string[] | undefined;
  const tell = (keys: string[]) => {
    if (options.dropped) for (const key of keys) options.dropped(key);
  };
  const announce = (keys: string[]) => {
    if (!keys.length) return;
    if (pending) pending.push(...keys);
    else tell(keys);
  };

  // Key → [sid, last_active_at, holds] as last read, or null for a key without a row, while no
  // other process has committed since `knownAt`. Writes read the file (inside a transaction).
  const known = new Map<string, Row | null>();
  const otherCommits = oncePerTurn(sqlite);
  let knownAt = otherCommits();
  function rowOf(key: string): Row | undefined {
    if (sqlite.inTransaction) return findRow.get(key) as Row | undefined;
    const version = otherCommits();
    if (version !== knownAt) {
      known.clear();
      knownAt = version;
    }
    let row = known.get(key);
    if (row === undefined) {
      row = (findRow.get(key) as Row | undefined) ?? null;
      if (known.size >= maxKnownKeys) known.clear();
      known.set(key, row);
    }
    return row ?? undefined;
  }

  // How many sandboxes hold data: counted (a scan of the holding index) once, then kept by this
  // process's writes while no other process commits and no write of this one rolls back.
  const otherCommitsNow = sqlite.prepare('PRAGMA data_version').pluck();
  let holding: { count: number; at: number } | undefined;
  function holdingCount(): number {
    const at = otherCommitsNow.get() as number;
    if (holding?.at !== at) holding = { count: countHolding.get() as number, at };
    return holding.count;
  }
  const holdingChanged = (delta: number) => {
    if (holding) holding.count += delta;
  };

  /** The row of a sandbox that has written, after the expiry check (which may drop it). */
  function live(key: string): Row | undefined {
    const row = rowOf(key);
    if (!row) return undefined;
    const ttl = ttlMs();
    if (ttl > 0 && activeSince(key, row[1]) < Date.now() - ttl) {
      store.write(() => {
        store.drop(row[0]);
        announce([key]);
      });
      return undefined;
    }
    return row;
  }

  const store = {
    /**
     * Runs `fn` in an immediate transaction (or a savepoint inside one already running) and tells
     * of the sandboxes it dropped only after the outermost one commits; a rollback tells nothing.
     */
    write<T>(fn: () => T): T {
      const outer = pending;
      if (outer) {
        const mark = outer.length;
        try {
          return transaction(fn) as T;
        } catch (error) {
          outer.length = mark;
          holding = undefined;
          throw error;
        }
      }
      pending = [];
      try {
        const result = transaction.immediate(fn) as T;
        const keys = pending;
        pending = undefined;
        tell(keys);
        return result;
      } catch (error) {
        holding = undefined;
        throw error;
      } finally {
        pending = undefined;
      }
    },

    /**
     * The sid of a sandbox that has written, or 0 (matches no row) for one that never did. A
     * sandbox idle past `limits.sandboxTtl` is dropped here first, so its next request finds it fresh.
     */
    sidOf(key: string): number {
      return live(key)?.[0] ?? 0;
    },

    /** Forgets what reads remembered of the key's row (another write of this process changed it), or of every key. */
    forget(key?: string): void {
      if (key === undefined) known.clear();
      else known.delete(key);
    },

    /** The sandbox's row (after the expiry check), or undefined for one that never wrote. */
    row(key: string): SandboxTimes | undefined {
      return store.sidOf(key) ? (readRow.get(key) as SandboxTimes) : undefined;
    },

    /**
     * Makes sure the sandbox has a row and counts as holding data, and marks it active. Call inside
     * the write's `write()`. A sandbox that starts holding data beyond `limits.maxSandboxes` evicts
     * the least recently active of the others that hold data.
     */
    open(key: string): number {
      const now = Date.now();
      known.delete(key);
      const existing = live(key);
      if (existing) {
        if (now - existing[1] >= activeGrainMs) markActive.run(now, existing[0]);
        if (existing[2] !== 1) {
          markHolding.run(existing[0]);
          holdingChanged(1);
          evictBeyondLimit([existing[0]]);
        }
        return existing[0];
      }
      const sid = insert.get(key, now, now) as number;
      holdingChanged(1);
      evictBeyondLimit([sid]);
      return sid;
    },

    /**
     * Makes sure the sandbox has a row (for what belongs to it but is not data: webhook
     * subscriptions, the change log of a login) and marks it active, without making it hold data:
     * it neither counts toward `limits.maxSandboxes` nor evicts another. Call inside `write()`.
     */
    ensureRow(key: string): number {
      const now = Date.now();
      known.delete(key);
      const existing = live(key);
      if (existing) {
        if (now - existing[1] >= activeGrainMs) markActive.run(now, existing[0]);
        return existing[0];
      }
      return insertEmpty.get(key, now, now) as number;
    },

    /** Whether the sandbox holds data (overlay rows, snapshots, mailbox messages or webhook deliveries), as its row says. */
    holdsData(sid: number): boolean {
      return sid > 0 && holdsOf.get(sid) === 1;
    },

    /**
     * The next value of the sandbox's monotonic counter, for a new overlay row that stores `bytes`
     * (counted as `addBytes` does, in the same statement). Call inside the write transaction.
     */
    nextSeq(sid: number, bytes = 0): number {
      const [total, seq] = bumpSeq.get(bytes, sid) as [number, number];
      // The search index packs seq into 24 bits of its rowids (search-index.ts).
      if (seq > maxPackedNumber) throw quotaExceeded(`this sandbox has made ${maxPackedNumber} writes; reset it to go on`);
      checkBytes(sid, total, total - bytes);
      return seq;
    },

    /**
     * Adds a write's change in stored bytes; 403 QUOTA_EXCEEDED (rolling the write back) when it
     * grows the sandbox past `limits.sandboxBytes` even once the logs' oldest entries made room.
     * A write that does not grow it always passes.
     */
    addBytes(sid: number, delta: number): void {
      if (delta === 0) return;
      const total = addBytes.get(delta, sid) as number;
      checkBytes(sid, total, total - delta);
    },

    /**
     * Counts a change in the sandbox's logs (a mailbox message, a webhook delivery, stored or
     * trimmed). Never refuses: a stored entry makes the sandbox hold data (which may evict another
     * beyond `limits.maxSandboxes`), and past `limits.sandboxBytes` the oldest entries make room.
     * Call inside `write()`.
     */
    addLogBytes(sid: number, delta: number): void {
      if (delta === 0) return;
      const total = addBytes.get(delta, sid) as number;
      if (delta < 0) return;
      if (holdsOf.get(sid) !== 1) {
        markHolding.run(sid);
        evictBeyondLimit([sid]);
      }
      fitLogs(sid, total);
    },

    /**
     * Past `limits.sandboxBytes` (pending deliveries, never dropped, may take it there), the logs'
     * oldest finished entries make room: after an entry is stored and when a delivery finishes.
     */
    fitLogs,

    /** The bytes the sandbox's row says it stores (kept by every write; `recount` works them out anew). */
    bytesOf(sid: number): number {
      return (storedBytes.get(sid) as number | undefined) ?? 0;
    },

    /**
     * Works out again what the sandbox holds after a bulk change (purge, restore, snapshot, import,
     * a baseline reload); 403 when its bytes grew past `limits.sandboxBytes` (`before`: the total
     * before the change, when the caller knows it).
     */
    recount(sid: number, before = Infinity): number {
      holding = undefined;
      const total = (recount.get(sid) as number | undefined) ?? 0;
      forgetUnusedCustom.run({ sid });
      return checkBytes(sid, total, before);
    },

    /** Works out again whether the sandbox holds data (after a write removed an overlay row). */
    refreshHolds(sid: number): void {
      holding = undefined;
      refreshHolds.run(sid);
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
      for (const statement of purgeAlso) statement.run(sid);
      // Nothing holds a seq any more (the search rows go below), so the counter starts over.
      restartSeq.run(sid);
      search.forget(sid);
      // Without snapshots it holds nothing now: it no longer counts toward maxSandboxes.
      store.recount(sid);
      return counts;
    },

    /** Deletes everything of the sandbox: overlay, search entries, snapshots and its row. Call inside a write transaction. */
    drop(sid: number): void {
      known.clear();
      holding = undefined;
      purge.run({ sid });
      for (const statement of purgeAlso) statement.run(sid);
      search.forget(sid);
      for (const statement of dropStatements) statement.run(sid);
    },

    /**
     * Evicts the least recently active sandboxes holding data, other than `spared`, while more
     * than `limits.maxSandboxes` hold data. Call inside `write()`.
     */
    evictBeyondLimit,

    /**
     * After a baseline reload (inside its transaction): a changed copy or tombstone of a record
     * that left the baseline goes with it, in overlays and snapshots alike, so every view (get,
     * list, count, search, export) agrees that the record is gone.
     */
    forgetRemovedBaseline(): void {
      const touched = new Set<number>();
      for (const row of deleteOrphans.all() as { sid: number; cid: number; state: number; seq: number }[]) {
        if (row.state !== 3) search.remove(row.sid, row.cid, row.seq);
        touched.add(row.sid);
      }
      for (const sid of deleteSnapshotOrphans.all() as number[]) touched.add(sid);
      for (const sid of touched) store.recount(sid);
    },

    /** Writes last-seen times (kept in memory by reads) to the rows, in one transaction. */
    saveSeen(times: Map<string, number>): void {
      if (!times.size) return;
      known.clear();
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
      return store.write(() => {
        const keys = idle
          .filter((row) => {
            // Another process may have written to it since the read above.
            const onFile = activeAt.get(row.sid) as number | undefined;
            if (onFile === undefined || onFile >= cutoff) return false;
            store.drop(row.sid);
            return true;
          })
          .map((row) => row.key);
        announce(keys);
        return keys;
      });
    },
  };

  /** The total after the logs made what room they can; throws 403 when a growing write still passes the bound. */
  function checkBytes(sid: number, total: number, before: number): number {
    const max = limits.sandboxBytes ?? 0;
    if (max <= 0 || total <= max || total <= before) return total;
    const after = total - reclaim(sid, total - max);
    if (after > max) {
      throw quotaExceeded(
        `a sandbox may store at most ${max} bytes of records, mailbox and webhook deliveries (limits.sandboxBytes); this would make ${after}: delete records or snapshots, or reset it`,
      );
    }
    return after;
  }

  function fitLogs(sid: number, total = (storedBytes.get(sid) as number | undefined) ?? 0): void {
    const max = limits.sandboxBytes ?? 0;
    if (max > 0 && total > max) reclaim(sid, total - max);
  }

  /** Drops the logs' oldest entries (finished deliveries, then messages) until `need` bytes are free or none is left; returns the bytes freed. */
  function reclaim(sid: number, need: number): number {
    let freed = 0;
    while (freed < need) {
      const deliveries = oldestDeliveries.all(sid) as { id: string; bytes: number }[];
      const messages = deliveries.length ? [] : (oldestMessages.all({ sid }) as { seq: number; bytes: number }[]);
      if (!deliveries.length && !messages.length) break;
      for (const row of deliveries) {
        if (freed >= need) break;
        dropAttempts.run(row.id);
        dropDelivery.run(row.id);
        freed += row.bytes;
      }
      for (const row of messages) {
        if (freed >= need) break;
        dropMessage.run(sid, row.seq);
        freed += row.bytes;
      }
    }
    if (freed) addBytes.get(-freed, sid);
    return freed;
  }

  function evictBeyondLimit(spared: number[]): void {
    const max = limits.maxSandboxes ?? 0;
    if (max <= 0) return;
    const excess = holdingCount() - max;
    if (excess <= 0) return;
    const candidates = (leastActive.all(JSON.stringify(spared), excess + evictionSlack) as { sid: number; key: string; lastActiveAt: number }[])
      .map((row) => ({ ...row, active: activeSince(row.key, row.lastActiveAt) }))
      .sort((a, b) => a.active - b.active || a.sid - b.sid)
      .slice(0, excess);
    for (const row of candidates) store.drop(row.sid);
    announce(candidates.map((row) => row.key));
  }

  return store;
}

export type SandboxStore = ReturnType<typeof createSandboxStore>;
