import { sql } from 'drizzle-orm';
import { sqliteTable, integer, text, primaryKey, index, customType, unique, type SQLiteTable } from 'drizzle-orm/sqlite-core';

/** NUMERIC affinity: integers stay integers, `local-<uuid>` text stays text. */
const recordId = customType<{ data: number | string }>({ dataType: () => 'numeric' });

/**
 * Every table of the database, the one place its shape is written: `migrate.ts` derives the DDL
 * from these (`ddl.ts`), adding WITHOUT ROWID to the tables in `withoutRowid` below. Only the FTS5
 * table is raw SQL, in `search-index.ts`: drizzle has no virtual tables.
 */

/** Key/value facts about the file: schema version, the hash of the loaded fixtures. */
export const meta = sqliteTable('meta', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
});

/**
 * One row per sandbox that has written (it may hold nothing again after a reset). A visitor who
 * only reads has no row. `sid` is the compact integer used in every overlay key; `key` is the client-visible sandbox id; `seq` is the
 * sandbox's monotonic counter for ordering created records.
 */
export const sandboxes = sqliteTable(
  'sandboxes',
  {
    sid: integer('sid').primaryKey({ autoIncrement: true }),
    key: text('key').notNull().unique(),
    seq: integer('seq').notNull().default(0),
    createdAt: integer('created_at').notNull(),
    lastActiveAt: integer('last_active_at').notNull(),
    /** 1 while it has overlay rows or snapshots: only those count toward `limits.maxSandboxes`. */
    holds: integer('holds').notNull().default(0),
    /** UTF-8 bytes of the record JSON it stores, overlay and snapshots (`limits.sandboxBytes`). */
    bytes: integer('bytes').notNull().default(0),
    /** The number of its last logged event (`events.eseq`): event ids count per sandbox, and a reset does not reuse one. */
    eventSeq: integer('event_seq').notNull().default(0),
  },
  // Eviction reads by activity among those holding data, the TTL sweep by activity in both
  // halves (holds 0 and 1). One index: every index here is one more page each write commits.
  (t) => [index('sandboxes_holding').on(t.holds, t.lastActiveAt)],
);

/**
 * The shared baseline, loaded from fixtures and never written afterwards. `doc` is the record's
 * JSON text exactly as it is sent, so reads never parse and re-serialise it.
 */
export const base = sqliteTable(
  'base',
  {
    cid: integer('cid').notNull(),
    id: integer('id').notNull(),
    doc: text('doc').notNull(),
  },
  (t) => [primaryKey({ columns: [t.cid, t.id] })],
);

/**
 * One sandbox's changes: created records (state 1), changed copies of baseline records
 * (state 2) and tombstones (state 3, doc null). `id` is NUMERIC so baseline ids stay integers
 * and created ids (`local-<uuid>`) stay text. `seq` orders created records (newest first).
 */
export const overlay = sqliteTable(
  'overlay',
  {
    sid: integer('sid').notNull(),
    cid: integer('cid').notNull(),
    id: recordId('id').notNull(),
    state: integer('state').notNull(),
    seq: integer('seq').notNull(),
    doc: text('doc'),
  },
  // overlay_newest: the created records in page order (newest first) for the merged view's pages
  // and counts, and a search hit's row by seq. One index besides the key: each is one more page
  // every write commits.
  (t) => [primaryKey({ columns: [t.sid, t.cid, t.id] }), index('overlay_newest').on(t.sid, t.cid, t.state, sql`-${t.seq}`)],
);

/**
 * The number of each custom collection a sandbox has written to (`/custom/{name}`), from
 * `customCidBase` up, so its records sit in `overlay` like any other. A collection is listed while
 * it holds records; its number is kept while a snapshot still holds rows of it.
 */
export const customCollections = sqliteTable(
  'custom_collections',
  {
    cid: integer('cid').primaryKey(),
    sid: integer('sid').notNull(),
    name: text('name').notNull(),
  },
  (t) => [unique('custom_collections_sid_name_unique').on(t.sid, t.name)],
);

/**
 * A named copy of a sandbox's overlay, taken by `POST /sandbox/snapshots` and put back by
 * restore. `seq` is the sandbox's counter when it was taken.
 */
export const snapshots = sqliteTable(
  'snapshots',
  {
    sid: integer('sid').notNull(),
    name: text('name').notNull(),
    createdAt: integer('created_at').notNull(),
    seq: integer('seq').notNull(),
  },
  (t) => [primaryKey({ columns: [t.sid, t.name] })],
);

/** The overlay rows of each snapshot, copied as they were. */
export const snapshotRows = sqliteTable(
  'snapshot_rows',
  {
    sid: integer('sid').notNull(),
    name: text('name').notNull(),
    cid: integer('cid').notNull(),
    id: recordId('id').notNull(),
    state: integer('state').notNull(),
    seq: integer('seq').notNull(),
    doc: text('doc'),
  },
  (t) => [primaryKey({ columns: [t.sid, t.name, t.cid, t.id] })],
);

/**
 * Passwords set in a sandbox (scrypt hashes): users registered there, and baseline users or
 * personas whose password was reset there. Others use `auth.password`. Never exported.
 */
export const authPasswords = sqliteTable(
  'auth_passwords',
  {
    sid: integer('sid').notNull(),
    userId: text('user_id').notNull(),
    hash: text('hash').notNull(),
  },
  (t) => [primaryKey({ columns: [t.sid, t.userId] })],
);

/** The sandbox's logged-in user (set by login, cleared by logout): the cookie alone then authenticates `GET /auth/me`. */
export const authSessions = sqliteTable('auth_sessions', {
  sid: integer('sid').primaryKey(),
  userId: text('user_id').notNull(),
});

/** Profile changes of personas (`PATCH /auth/me`); users keep theirs in the users overlay. */
export const authProfiles = sqliteTable(
  'auth_profiles',
  {
    sid: integer('sid').notNull(),
    userId: text('user_id').notNull(),
    doc: text('doc').notNull(),
  },
  (t) => [primaryKey({ columns: [t.sid, t.userId] })],
);

/**
 * Every refresh token issued, by its `jti`: state 0 live, 1 consumed (by a refresh), 2 revoked
 * (its family was, on reuse, logout or a password reset). A family is one login's chain.
 */
export const refreshTokens = sqliteTable(
  'refresh_tokens',
  {
    jti: text('jti').primaryKey(),
    family: text('family').notNull(),
    sid: integer('sid').notNull(),
    userId: text('user_id').notNull(),
    state: integer('state').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [index('refresh_tokens_by_family').on(t.family), index('refresh_tokens_by_sandbox').on(t.sid, t.userId)],
);

/** The one live password-reset token of a user in a sandbox: a newer request replaces (supersedes) it. */
export const resetTokens = sqliteTable(
  'reset_tokens',
  {
    sid: integer('sid').notNull(),
    userId: text('user_id').notNull(),
    token: text('token').notNull(),
    used: integer('used').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.sid, t.userId] })],
);

/** The sandbox's mailbox: messages as the API sends them (`doc`), in arrival order (`seq`). */
export const mailbox = sqliteTable(
  'mailbox',
  {
    sid: integer('sid').notNull(),
    seq: integer('seq').notNull(),
    doc: text('doc').notNull(),
  },
  (t) => [primaryKey({ columns: [t.sid, t.seq] })],
);

/**
 * A sandbox's own records in the search index (DDL in `search-index.ts`, with the baseline's
 * FTS5 table): each record's terms as FTS5's tokenizer makes them, with how often each occurs,
 * and under the term '' (no token is empty) the record itself: `count` its length in tokens,
 * `terms` its terms as a JSON array (to delete them). One table for both, so a write commits one
 * b-tree's pages where two tables took about 1.2 pages more (issue 29).
 */
export const searchTerms = sqliteTable(
  'search_terms',
  {
    sid: integer('sid').notNull(),
    cid: integer('cid').notNull(),
    term: text('term').notNull(),
    seq: integer('seq').notNull(),
    count: integer('count').notNull(),
    terms: text('terms'),
  },
  (t) => [primaryKey({ columns: [t.sid, t.cid, t.term, t.seq] })],
);

/**
 * The change log (contract section 15): one row per committed change of a sandbox, written in the
 * change's own transaction. `n` orders the whole log (never reused: AUTOINCREMENT) for the
 * dispatcher's and the streams' cursors; `eseq` numbers the sandbox's own events (from
 * `sandboxes.event_seq`): event ids encode it, and trimming to `limits.eventsPerSandbox` is one
 * index range delete.
 * `upto` bounds its bytes to `limits.sandboxBytes`, so the file stays bounded whatever the records weigh.
 */
export const events = sqliteTable(
  'events',
  {
    n: integer('n').primaryKey({ autoIncrement: true }),
    sid: integer('sid').notNull(),
    eseq: integer('eseq').notNull(),
    /** UTF-8 bytes of `data` of the sandbox's events up to this one: the log is bounded in bytes too. */
    upto: integer('upto').notNull(),
    event: text('event').notNull(),
    /** ms since the epoch */
    at: integer('at').notNull(),
    /** JSON text */
    data: text('data').notNull(),
  },
  (t) => [index('events_by_sandbox').on(t.sid, t.eseq)],
);

/** Webhook subscriptions of a sandbox (contract section 8); they survive its reset. `events` is a JSON array of patterns. */
export const webhooks = sqliteTable(
  'webhooks',
  {
    sid: integer('sid').notNull(),
    id: text('id').notNull(),
    url: text('url').notNull(),
    events: text('events').notNull(),
    secret: text('secret').notNull(),
    signature: text('signature').notNull(),
    createdAt: integer('created_at').notNull(),
    /** The log's last position when it was made (or imported): it receives only later events. */
    afterN: integer('after_n').notNull(),
  },
  (t) => [primaryKey({ columns: [t.sid, t.id] })],
);

/**
 * One event sent to one subscription: its body and target are kept as they were when the event
 * happened, so retries (and restarts) send the same bytes. `due` is when the next attempt may start
 * (null once it succeeded or failed). `webhook_id` is `config:<n>` for the config's subscriptions.
 */
export const deliveries = sqliteTable(
  'deliveries',
  {
    n: integer('n').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    sid: integer('sid').notNull(),
    webhookId: text('webhook_id').notNull(),
    event: text('event').notNull(),
    body: text('body').notNull(),
    url: text('url').notNull(),
    signature: text('signature').notNull(),
    secret: text('secret'),
    status: text('status').notNull(),
    due: integer('due'),
    maxAttempts: integer('max_attempts').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('deliveries_by_webhook').on(t.sid, t.webhookId, t.n), index('deliveries_due').on(t.due)],
);

/** Every attempt of every delivery, appended as it ends (so `webhook tail` can follow them by `n`). */
export const deliveryAttempts = sqliteTable(
  'delivery_attempts',
  {
    n: integer('n').primaryKey({ autoIncrement: true }),
    sid: integer('sid').notNull(),
    deliveryId: text('delivery_id').notNull(),
    at: integer('at').notNull(),
    statusCode: integer('status_code'),
    durationMs: integer('duration_ms').notNull(),
    error: text('error'),
  },
  // By sandbox too: expiry and eviction delete a sandbox's rows without a scan.
  (t) => [index('delivery_attempts_by_delivery').on(t.deliveryId), index('delivery_attempts_by_sandbox').on(t.sid)],
);

/**
 * The tables stored WITHOUT ROWID: the primary key is the table's b-tree, so each sandbox's rows
 * sit together on disk and a lookup by key is one descent. drizzle cannot declare it (it has no
 * table option for it); `migrate.ts` writes it into these tables' DDL.
 */
export const withoutRowid: ReadonlySet<SQLiteTable> = new Set<SQLiteTable>([
  base,
  overlay,
  snapshots,
  snapshotRows,
  authPasswords,
  authProfiles,
  resetTokens,
  mailbox,
  searchTerms,
  webhooks,
]);
