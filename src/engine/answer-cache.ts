import type { OpenDatabase } from '../db/open.js';
import type { SandboxStore } from './sandbox-store.js';

/** Bounds: a visitor cycling through query strings, or through sandbox ids, cannot grow the cache past these. */
const maxAnswersPerSandbox = 256;
const maxSandboxes = 20_000;
const maxTotalChars = 32 * 1024 * 1024;
/** The longest request (a GraphQL body) whose answer `answerLater` keeps. */
const maxKeptRequest = 16 * 1024;

/** Answers by request, and the collections each was read from (none kept: any change drops it). */
interface Answers {
  bodies: Map<string, string>;
  readFrom: Map<string, readonly string[]>;
}

interface Entry {
  /** The sandbox's answers; for a sandbox that holds no data, the baseline's shared ones. */
  answers: Answers;
  usedAt: number;
  /** Counts the drops of some of its answers: an answer produced across one (asynchronously) is not kept. */
  drops: number;
}

const noAnswers = (): Answers => ({ bodies: new Map(), readFrom: new Map() });

/**
 * Finished answers of reads (list pages, records), per sandbox and request, so a repeated read
 * costs a few map lookups instead of the SQL. It stays true by dropping:
 *   - a sandbox's answers read from a collection when a record of it is written in this process
 *     (`collectionChanged`: a PATCH of a todo keeps the sandbox's posts pages; an answer that names
 *     no collections it was read from, a GraphQL document's, goes with any write);
 *   - all of a sandbox's answers when the engine announces a change to the sandbox (resets,
 *     imports, restores, sign-in state, expiry and eviction);
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
  let baseline = noAnswers();
  let totalChars = 0;

  const clear = () => {
    bySandbox.clear();
    baseline = noAnswers();
    totalChars = 0;
  };
  const forget = (sandbox: string) => {
    const entry = bySandbox.get(sandbox);
    if (!entry) return;
    bySandbox.delete(sandbox);
    if (entry.answers !== baseline) for (const [request, body] of entry.answers.bodies) totalChars -= request.length + body.length;
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
      entry = { answers: sandboxes.sidOf(sandbox) ? noAnswers() : baseline, usedAt: now, drops: 0 };
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
    answer(sandbox: string, role: string, request: string, produce: () => string, readFrom?: readonly string[]): string {
      return cached(sandbox, role === 'owner' ? request : `${role} ${request}`, produce, readFrom);
    },
    /**
     * Whether a token's subject exists and its family is live in its sandbox (`produce` works it
     * out), kept with the sandbox's answers so a token used again costs no SQL, and dropped with them.
     */
    tokenVerdict(sandbox: string, subject: string, family: string, produce: () => string): string {
      // A read's key starts with a letter (`sandbox-view.ts`): this one cannot meet one. It names
      // no collection it was read from, so any write of the sandbox drops it (a user deleted).
      return cached(sandbox, `\u0000account ${subject} ${family}`, produce, undefined);
    },
    /**
     * `answer` for an answer made asynchronously (a GraphQL document's): `produce` says whether
     * its answer may be kept; it is kept only if nothing changed the sandbox's answers meanwhile.
     * A hit is returned as it is, not in a promise.
     */
    answerLater(sandbox: string, role: string, request: string, produce: () => Promise<{ body: string; keep: boolean }>): string | Promise<string> {
      const key = role === 'owner' ? request : `${role} ${request}`;
      const entry = currentEntry(sandbox);
      const hit = entry.answers.bodies.get(key);
      if (hit !== undefined) return hit;
      const { drops } = entry;
      return produce().then(({ body, keep }) => {
        // A document and its variables are the client's to make long (1 MB of variables): answered, not kept.
        if (keep && key.length <= maxKeptRequest && version === otherCommits()) store(sandbox, entry, drops, key, body, undefined);
        return body;
      });
    },
    /** Forgets a sandbox's answers. */
    drop: forget,
    /** Forgets a sandbox's answers read from `collection` (a record of it was written), and those that name nothing they were read from. */
    collectionChanged(sandbox: string, collection: string): void {
      const entry = bySandbox.get(sandbox);
      if (!entry) return;
      // The baseline's answers are every reader's: a sandbox that now holds data starts its own.
      if (entry.answers === baseline) return forget(sandbox);
      entry.drops++;
      const { bodies, readFrom } = entry.answers;
      for (const [request, body] of bodies) {
        const names = readFrom.get(request);
        if (names !== undefined && !names.includes(collection)) continue;
        bodies.delete(request);
        readFrom.delete(request);
        totalChars -= request.length + body.length;
      }
    },
    /** Forgets every answer (a baseline or config reload). */
    clear,
  };

  /** The sandbox's entry, after everything was dropped if another process committed to the file. */
  function currentEntry(sandbox: string): Entry {
    const now = otherCommits();
    if (now !== version) {
      version = now;
      clear();
    }
    return entryOf(sandbox, Date.now());
  }

  function cached(sandbox: string, request: string, produce: () => string, readFrom: readonly string[] | undefined): string {
    const entry = currentEntry(sandbox);
    const hit = entry.answers.bodies.get(request);
    if (hit !== undefined) return hit;

    const { drops } = entry;
    const body = produce();
    store(sandbox, entry, drops, request, body, readFrom);
    return body;
  }

  /**
   * Keeps an answer in `entry`, if it is still the sandbox's current one and none of its answers
   * was dropped since it counted `drops` (`produce()` may have announced a change: a lazily expired
   * sandbox; a write may have come while a GraphQL document was read).
   */
  function store(sandbox: string, entry: Entry, drops: number, request: string, body: string, readFrom: readonly string[] | undefined): void {
    const { answers } = entry;
    const { bodies } = answers;
    // Keys count too: a query string is the client's to make long.
    const size = request.length + body.length;
    if (bodies.size >= maxAnswersPerSandbox) {
      const oldest = bodies.keys().next().value!;
      totalChars -= oldest.length + bodies.get(oldest)!.length;
      bodies.delete(oldest);
      answers.readFrom.delete(oldest);
    }
    if (totalChars + size > maxTotalChars) clear();
    if (bySandbox.get(sandbox) === entry && entry.drops === drops) {
      bodies.set(request, body);
      if (readFrom) answers.readFrom.set(request, readFrom);
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
