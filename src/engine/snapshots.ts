import type { OpenDatabase } from '../db/open.js';
import type { SearchIndex } from '../db/search-index.js';
import { quotaExceeded, validationFailed, type FieldProblem } from './errors.js';
import type { SandboxStore } from './sandbox-store.js';
import type { ChangeLog } from './change-log.js';

/** Contract section 12. */
export const snapshotName = /^[A-Za-z0-9_.-]{1,64}$/;
/** Each snapshot copies the overlay; this bounds what one sandbox can keep on disk. */
export const maxSnapshotsPerSandbox = 20;

export interface SnapshotInfo {
  name: string;
  /** ms since the epoch */
  createdAt: number;
  /** overlay rows it holds (created, changed and deleted records) */
  records: number;
}

interface SnapshotDeps {
  sandboxes: SandboxStore;
  search: SearchIndex;
  changes: ChangeLog;
  /** Announces that what a sandbox sees changed (after a restore commits). */
  sandboxChanged: (sandbox: string) => void;
}

/**
 * Named copies of a sandbox's overlay, kept beside it in SQLite and keyed by its sid, so no other
 * sandbox can name them. A reset keeps them (reset between tests, restore later); an expired or
 * evicted sandbox loses them with everything else.
 */
export function createSnapshotStore(db: OpenDatabase, deps: SnapshotDeps) {
  const { sqlite } = db;
  const { sandboxes, search } = deps;
  const list = sqlite.prepare(
    `SELECT s.name, s.created_at AS createdAt,
            (SELECT count(*) FROM snapshot_rows r WHERE r.sid = s.sid AND r.name = s.name) AS records
       FROM snapshots s WHERE s.sid = ? ORDER BY s.created_at DESC, s.name`,
  );
  const find = sqlite.prepare(`SELECT seq FROM snapshots WHERE sid = ? AND name = ?`).pluck();
  const count = sqlite.prepare(`SELECT count(*) FROM snapshots WHERE sid = ?`).pluck();
  const removeRows = sqlite.prepare(`DELETE FROM snapshot_rows WHERE sid = ? AND name = ?`);
  const remove = sqlite.prepare(`DELETE FROM snapshots WHERE sid = ? AND name = ?`);
  const insert = sqlite.prepare(`INSERT INTO snapshots (sid, name, created_at, seq) SELECT sid, ?, ?, seq FROM sandboxes WHERE sid = ?`);
  const copyOverlay = sqlite.prepare(
    `INSERT INTO snapshot_rows (sid, name, cid, id, state, seq, doc) SELECT sid, ?, cid, id, state, seq, doc FROM overlay WHERE sid = ?`,
  );
  const clearOverlay = sqlite.prepare(`DELETE FROM overlay WHERE sid = ?`);
  const copyBack = sqlite.prepare(
    `INSERT INTO overlay (sid, cid, id, state, seq, doc) SELECT sid, cid, id, state, seq, doc FROM snapshot_rows WHERE sid = ? AND name = ?`,
  );
  // New created records must sort above restored ones (newest first) and keep unique search rowids.
  const restoreSeq = sqlite.prepare(`UPDATE sandboxes SET seq = max(seq, ?) WHERE sid = ?`);

  const one = sqlite.prepare(
    `SELECT s.name, s.created_at AS createdAt,
            (SELECT count(*) FROM snapshot_rows r WHERE r.sid = s.sid AND r.name = s.name) AS records
       FROM snapshots s WHERE s.sid = ? AND s.name = ?`,
  );
  const info = (sid: number, name: string) => one.get(sid, name) as SnapshotInfo | undefined;

  return {
    /** The sandbox's snapshots, newest first. */
    list(sandbox: string): SnapshotInfo[] {
      const sid = sandboxes.sidOf(sandbox);
      return sid ? (list.all(sid) as SnapshotInfo[]) : [];
    },

    /** One snapshot of the sandbox, or undefined. */
    find(sandbox: string, name: string): SnapshotInfo | undefined {
      const sid = sandboxes.sidOf(sandbox);
      return sid ? info(sid, name) : undefined;
    },

    count(sid: number): number {
      return sid ? (count.get(sid) as number) : 0;
    },

    /** Copies the sandbox's overlay under `name` (replacing a snapshot of that name). 422 for a bad name. */
    take(sandbox: string, name: unknown): SnapshotInfo {
      checkName(name);
      return sandboxes.write(() => {
        // A sandbox that never wrote gets its row here: an empty snapshot is still one to restore.
        const sid = sandboxes.open(sandbox);
        const replacing = find.get(sid, name) !== undefined;
        if (!replacing && (count.get(sid) as number) >= maxSnapshotsPerSandbox) {
          throw quotaExceeded(`a sandbox may keep at most ${maxSnapshotsPerSandbox} snapshots; delete one or reuse a name`);
        }
        const before = sandboxes.bytesOf(sid);
        removeRows.run(sid, name);
        remove.run(sid, name);
        const createdAt = Date.now();
        insert.run(name, createdAt, sid);
        const records = copyOverlay.run(name, sid).changes;
        // A copy of the overlay counts toward limits.sandboxBytes (403, rolled back, when it passes it).
        sandboxes.recount(sid, before);
        return { name, createdAt, records };
      });
    },

    /** Makes the sandbox's overlay exactly the snapshot's; undefined when it has none of that name. */
    restore(sandbox: string, name: string): SnapshotInfo | undefined {
      const restored = sandboxes.write(() => {
        const sid = sandboxes.sidOf(sandbox);
        const seq = sid ? (find.get(sid, name) as number | undefined) : undefined;
        if (seq === undefined) return undefined;
        const before = sandboxes.bytesOf(sid);
        clearOverlay.run(sid);
        copyBack.run(sid, name);
        restoreSeq.run(seq, sid);
        sandboxes.recount(sid, before);
        search.reindexSandbox(sid);
        deps.changes.append(sid, 'sandbox.restored', { sandbox, snapshot: name });
        return info(sid, name);
      });
      if (restored) deps.sandboxChanged(sandbox);
      return restored;
    },

    /** Deletes a snapshot; false when the sandbox has none of that name. */
    delete(sandbox: string, name: string): boolean {
      return sandboxes.write(() => {
        const sid = sandboxes.sidOf(sandbox);
        if (!sid) return false;
        removeRows.run(sid, name);
        const removed = remove.run(sid, name).changes > 0;
        // Its last snapshot may have gone: then it may no longer hold data.
        if (removed) sandboxes.recount(sid);
        return removed;
      });
    },
  };
}

/** What is wrong with a snapshot name, if anything (a JSON Pointer problem at `/name`). */
export function snapshotNameProblem(name: unknown): FieldProblem | undefined {
  if (name === undefined) return { path: '/name', message: 'is required' };
  if (typeof name !== 'string' || !snapshotName.test(name)) return { path: '/name', message: 'must be 1-64 characters of A-Z a-z 0-9 _ . -' };
  // "." and ".." would be path segments URLs resolve away: such a snapshot could never be addressed.
  if (name === '.' || name === '..') return { path: '/name', message: 'must not be "." or ".."' };
  return undefined;
}

function checkName(name: unknown): asserts name is string {
  const problem = snapshotNameProblem(name);
  if (problem) throw validationFailed([problem]);
}

export type SnapshotStore = ReturnType<typeof createSnapshotStore>;
