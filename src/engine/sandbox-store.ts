import { eq, sql } from 'drizzle-orm';
import type { OpenDatabase } from '../db/open.js';
import { overlay, sandboxes } from '../db/schema.js';
import type { SearchIndex } from '../db/search-index.js';

/** Sandbox id → the compact integer of its rows. Nothing is cached: another process may reset. */
export function createSandboxStore(db: OpenDatabase, search: SearchIndex) {
  const { orm } = db;
  const findSid = orm
    .select({ sid: sandboxes.sid })
    .from(sandboxes)
    .where(eq(sandboxes.key, sql.placeholder('key')))
    .prepare();
  const touch = orm
    .insert(sandboxes)
    .values({ key: sql.placeholder('key'), createdAt: sql.placeholder('now'), lastActiveAt: sql.placeholder('now') })
    .onConflictDoUpdate({ target: sandboxes.key, set: { lastActiveAt: sql`excluded.last_active_at` } })
    .returning({ sid: sandboxes.sid })
    .prepare();
  const bumpSeq = orm
    .update(sandboxes)
    .set({ seq: sql`${sandboxes.seq} + 1` })
    .where(eq(sandboxes.sid, sql.placeholder('sid')))
    .returning({ seq: sandboxes.seq })
    .prepare();
  const purgeCounts = db.sqlite.prepare(`SELECT cid, count(*) AS n FROM overlay WHERE sid = ? GROUP BY cid`);
  const purge = orm.delete(overlay).where(eq(overlay.sid, sql.placeholder('sid'))).prepare();

  return {
    /** The sid of a sandbox that holds data, or 0 (matches no row) for one that never wrote. */
    sidOf(key: string): number {
      return findSid.get({ key })?.sid ?? 0;
    },
    /** Makes sure the sandbox has a row (on its first write) and marks it active. Call inside the write transaction. */
    open(key: string): number {
      return touch.get({ key, now: Date.now() })!.sid;
    },
    /** The next value of the sandbox's monotonic counter. Call inside the write transaction. */
    nextSeq(sid: number): number {
      return bumpSeq.get({ sid })!.seq;
    },
    /** Deletes every overlay row of the sandbox and its search entries; returns how many rows each collection had. */
    purge(sid: number): Map<number, number> {
      const counts = new Map<number, number>();
      for (const row of purgeCounts.all(sid) as { cid: number; n: number }[]) counts.set(row.cid, row.n);
      purge.run({ sid });
      search.forget(sid);
      return counts;
    },
  };
}

export type SandboxStore = ReturnType<typeof createSandboxStore>;
