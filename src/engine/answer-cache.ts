import type { OpenDatabase } from '../db/open.js';
import type { SandboxStore } from './sandbox-store.js';

/** Bounds: a visitor cycling through query strings, or through sandbox ids, cannot grow the cache past these. */
const maxAnswersPerSandbox = 256;
const maxSandboxes = 20_000;
const maxTotalChars = 32 * 1024 * 1024;
/** The longest request (a GraphQL body) whose answer `answerLater` keeps. */
const maxKeptRequest = 16 * 1024;

interface Entry {
  /** The sandbox's answers; for a sandbox that holds no data, the baseline's shared map. */
  answers: Map<string, string>;
  usedAt: number;
}

/**
 * Finished answers of reads (list pages, records), per sandbox and request, so a repeated read
 * costs a few map lookups instead of the SQL. It stays true by dropping:
 *   - a sandbox's answers when the engine announces a change to it (every write in this process,
 *     resets, imports, restores, expiry and eviction);
 *   - everything when another process committed to the file (`mockapi reset/import` on the same
 *     database): SQLite bumps `PRAGMA data_version` for every other connection's commit; it is
 *     read once per turn of the event loop (`oncePerTurn`), which every request after such a
 *     commit sees.
 * Every visitor who only reads shares the baseline's answers. A hit skips the sandbox lookup, so
 * a sandbox idle past `sandboxTtl` is looked up again (where expiry happens) before it is served.
 */
export function createAnswerCache(db: OpenDatabase, sandboxes: SandboxStore, limits: { sandboxTtl?: number } = {}) {
  const otherCommits = oncePerTurn(db.sqlite);
  let version = otherCommits();
  const bySandbox = new Map<string, Entry>();
  let baseline = new Map<string, string>();
  let totalChars = 0;

  const clear = () => {
    bySandbox.clear();
    baseline = new Map();
    totalChars = 0;
  };
  const forget = (sandbox: string) => {
    const entry = bySandbox.get(sandbox);
    if (!entry) return;
    bySandbox.delete(sandbox);
    if (entry.answers !== baseline) for (const [request, body] of entry.answers) totalChars -= request.length + body.length;
  };

  function entryOf(sandbox: string, now: number): Entry {
    let entry = bySandbox.get(sandbox);
    const ttlMs = (limits.sandboxTtl ?? 0) * 1000;
    if (entry && ttlMs > 0 && now - entry.usedAt > ttlMs) {
      forget(sandbox);
      entry = undefined;
    }
    if (!entry) {
      if (bySandbox.size >= maxSandboxes) forget(bySandbox.keys().next().value!);
      entry = { answers: sandboxes.sidOf(sandbox) ? new Map() : baseline, usedAt: now };
      bySandbox.set(sandbox, entry);
    }
    entry.usedAt = now;
    return entry;
  }

  return {
    /**
     * The cached answer of this sandbox to this read (the engine surface's key of its typed query) for this role, or
     * `produce()`'s (kept when it returns). The role is part of the key, so nothing answered to
     * one role is served to another; the caller authorized the request before asking.
     */
    answer(sandbox: string, role: string, request: string, produce: () => string): string {
      return cached(sandbox, role === 'owner' ? request : `${role} ${request}`, produce);
    },
    /**
     * Whether a token's subject exists and its family is live in its sandbox (`produce` works it
     * out), kept with the sandbox's answers so a token used again costs no SQL, and dropped with them.
     */
    tokenVerdict(sandbox: string, subject: string, family: string, produce: () => string): string {
      // A read's key starts with a letter (`sandbox-view.ts`): this one cannot meet one.
      return cached(sandbox, `\u0000account ${subject} ${family}`, produce);
    },
    /**
     * `answer` for an answer made asynchronously (a GraphQL document's): `produce` says whether
     * its answer may be kept; it is kept only if nothing changed the sandbox's answers meanwhile.
     * A hit is returned as it is, not in a promise.
     */
    answerLater(sandbox: string, role: string, request: string, produce: () => Promise<{ body: string; keep: boolean }>): string | Promise<string> {
      const key = role === 'owner' ? request : `${role} ${request}`;
      const answers = currentAnswers(sandbox);
      const hit = answers.get(key);
      if (hit !== undefined) return hit;
      return produce().then(({ body, keep }) => {
        // A document and its variables are the client's to make long (1 MB of variables): answered, not kept.
        if (keep && key.length <= maxKeptRequest && version === otherCommits()) store(sandbox, answers, key, body);
        return body;
      });
    },
    /** Forgets a sandbox's answers. */
    drop: forget,
    /** Forgets every answer (a baseline or config reload). */
    clear,
  };

  /** The sandbox's answers, after everything was dropped if another process committed to the file. */
  function currentAnswers(sandbox: string): Map<string, string> {
    const now = otherCommits();
    if (now !== version) {
      version = now;
      clear();
    }
    return entryOf(sandbox, Date.now()).answers;
  }

  function cached(sandbox: string, request: string, produce: () => string): string {
    const answers = currentAnswers(sandbox);
    const hit = answers.get(request);
    if (hit !== undefined) return hit;

    const body = produce();
    store(sandbox, answers, request, body);
    return body;
  }

  /** Keeps an answer in `answers`, if that is still the sandbox's current map (`produce()` may have announced a change). */
  function store(sandbox: string, answers: Map<string, string>, request: string, body: string): void {
    // Keys count too: a query string is the client's to make long.
    const size = request.length + body.length;
    if (answers.size >= maxAnswersPerSandbox) {
      const oldest = answers.keys().next().value!;
      totalChars -= oldest.length + answers.get(oldest)!.length;
      answers.delete(oldest);
    }
    if (totalChars + size > maxTotalChars) clear();
    // `produce()` may have announced a change (a lazily expired sandbox): keep only a current entry's answer.
    const current = bySandbox.get(sandbox);
    if (current && current.answers === answers) {
      answers.set(request, body);
      totalChars += size;
    }
  }
}

export type AnswerCache = ReturnType<typeof createAnswerCache>;

/**
 * `PRAGMA data_version`, read at most once per turn of the event loop: it moves when another
 * connection (`mockapi reset/import`, another server) commits to the file, never on this one's own
 * writes. A request that arrives after another process's commit always comes in a later turn, and
 * the read (an autocommit read transaction: two locks and an fstat, 2.5-4 µs on a WAL file) was a
 * sixth of a cached answer's time when paid per request. One reader per connection, shared by
 * everything that asks (the answer cache, the sandbox lookup, the baseline memo): one read a turn.
 */
export function oncePerTurn(sqlite: OpenDatabase['sqlite']): () => number {
  let reader = readers.get(sqlite);
  if (!reader) readers.set(sqlite, (reader = dataVersionReader(sqlite)));
  return reader;
}
const readers = new WeakMap<OpenDatabase['sqlite'], () => number>();

function dataVersionReader(sqlite: OpenDatabase['sqlite']): () => number {
  const statement = sqlite.prepare('PRAGMA data_version').pluck();
  let value = 0;
  let fresh = false;
  const expire = () => {
    fresh = false;
  };
  return () => {
    if (!fresh) {
      value = statement.get() as number;
      fresh = true;
      setImmediate(expire);
    }
    return value;
  };
}
