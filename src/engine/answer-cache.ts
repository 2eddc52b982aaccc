import type { OpenDatabase } from '../db/open.js';
import type { SandboxStore } from './sandbox-store.js';

/** Bounds: a visitor cycling through query strings cannot grow the cache past these. */
const maxAnswersPerSandbox = 256;
const maxTotalChars = 32 * 1024 * 1024;

/**
 * Finished answers of reads (list pages, records), per sandbox and request, so a repeated read
 * costs two map lookups instead of the SQL. It stays true by dropping:
 *   - a sandbox's answers when the engine announces a change to it (every write in this process);
 *   - everything when another process committed to the file (`mockapi reset/import` on the same
 *     database): SQLite bumps `PRAGMA data_version` for every other connection's commit, and
 *     reading it costs well under a microsecond, so it is checked on every request.
 * Answers are keyed by the sandbox's row (sid), so every visitor who only reads (sid 0) shares
 * the baseline's answers.
 */
export function createAnswerCache(db: OpenDatabase, sandboxes: SandboxStore) {
  const dataVersion = db.sqlite.prepare('PRAGMA data_version').pluck();
  let version = dataVersion.get();
  const bySid = new Map<number, Map<string, string>>();
  /** Sandbox key → sid of the answers kept for it, to drop them by key. */
  const sidOfKey = new Map<string, number>();
  let totalChars = 0;

  const clear = () => {
    bySid.clear();
    sidOfKey.clear();
    totalChars = 0;
  };
  const dropSid = (sid: number) => {
    const answers = bySid.get(sid);
    if (!answers) return;
    for (const body of answers.values()) totalChars -= body.length;
    bySid.delete(sid);
  };

  return {
    /** The cached answer of this sandbox to this request, or `produce()`'s (kept when it returns). */
    answer(sandbox: string, request: string, produce: () => string): string {
      const now = dataVersion.get();
      if (now !== version) {
        version = now;
        clear();
      }
      const sid = sandboxes.sidOf(sandbox);
      let answers = bySid.get(sid);
      const hit = answers?.get(request);
      if (hit !== undefined) return hit;

      const body = produce();
      if (!answers) bySid.set(sid, (answers = new Map()));
      if (answers.size >= maxAnswersPerSandbox) {
        const oldest = answers.keys().next().value!;
        totalChars -= answers.get(oldest)!.length;
        answers.delete(oldest);
      }
      if (totalChars + body.length > maxTotalChars) clear();
      answers.set(request, body);
      totalChars += body.length;
      if (sid) sidOfKey.set(sandbox, sid);
      return body;
    },
    /** Forgets a sandbox's answers (`*`: every sandbox's, for a baseline or config reload). */
    drop(sandbox: string): void {
      if (sandbox === '*') return clear();
      const sid = sidOfKey.get(sandbox);
      if (sid === undefined) return;
      sidOfKey.delete(sandbox);
      dropSid(sid);
    },
  };
}

export type AnswerCache = ReturnType<typeof createAnswerCache>;
