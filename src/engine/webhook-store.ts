import { randomUUID } from 'node:crypto';
import type { OpenDatabase } from '../db/open.js';
import { quotaExceeded } from './errors.js';
import type { SandboxStore } from './sandbox-store.js';

export type SignatureFormat = 'timestamped' | 'sha256' | 'standard';
export const signatureFormats: readonly SignatureFormat[] = ['timestamped', 'sha256', 'standard'];

/** A subscription as the API shows it (contract section 8). */
export interface Subscription {
  id: string;
  url: string;
  events: string[];
  secret: string;
  signature: SignatureFormat;
  created_at: string;
}

export interface Attempt {
  at: string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

/** A delivery as the API shows it. */
export interface Delivery {
  id: string;
  webhook_id: string;
  event: string;
  status: DeliveryStatus;
  attempts: Attempt[];
  created_at: string;
}

/** A delivery to queue: the bytes and target fixed when the event happened. */
export interface NewDelivery {
  /** `del_<uuid>`: also the body's `id` (webhooks/delivery-body.ts). */
  id: string;
  sid: number;
  webhookId: string;
  event: string;
  body: string;
  url: string;
  signature: SignatureFormat;
  secret: string | null;
  maxAttempts: number;
}

/** A queued delivery as the dispatcher sends it. */
export interface DeliveryJob extends NewDelivery {
  id: string;
  /** Attempts made so far. */
  made: number;
}

/** One ended attempt of a delivery and what follows it. */
export interface AttemptRecord {
  job: DeliveryJob;
  attempt: { at: number; statusCode: number | null; durationMs: number; error: string | null };
  next: { due: number } | { status: 'succeeded' | 'failed' };
}

/** Subscriptions one sandbox may have: each costs a delivery per matching event. */
export const maxSubscriptionsPerSandbox = 20;
/** Finished deliveries kept per subscription (about: trimmed every `trimEvery` deliveries); pending ones are never trimmed. */
const keptDeliveries = 100;
const trimEvery = 16;
const cursorKey = 'webhooks_cursor';

/** A subscription as the dispatcher sees it: it receives the events logged after position `afterN`. */
export interface DispatchedSubscription extends Subscription {
  afterN: number;
}

/** A `webhooks` row as the statements below select it. */
export interface SubscriptionRow {
  id: string;
  url: string;
  events: string;
  secret: string;
  signature: SignatureFormat;
  createdAt: number;
}

export const toSubscription = (row: SubscriptionRow): Subscription => ({
  id: row.id,
  url: row.url,
  events: JSON.parse(row.events) as string[],
  secret: row.secret,
  signature: row.signature,
  created_at: new Date(row.createdAt).toISOString(),
});

/**
 * Webhook subscriptions and deliveries on file (contract section 8). Subscriptions belong to a
 * sandbox (keyed by its sid, so no other sandbox can name them) and survive its reset; expiry and
 * eviction delete them with it. Deliveries keep every attempt, so pending ones resume after a restart.
 */
export function createWebhookStore(db: OpenDatabase, sandboxes: SandboxStore) {
  const { sqlite } = db;
  const columns = `id, url, events, secret, signature, created_at AS createdAt`;
  const listRows = sqlite.prepare(`SELECT ${columns} FROM webhooks WHERE sid = ? ORDER BY created_at, id`);
  const oneRow = sqlite.prepare(`SELECT ${columns} FROM webhooks WHERE sid = ? AND id = ?`);
  const count = sqlite.prepare(`SELECT count(*) FROM webhooks WHERE sid = ?`).pluck();
  // `after_n`: the log's end when it was made; it receives only events after it.
  const insert = sqlite.prepare(
    `INSERT INTO webhooks (sid, id, url, events, secret, signature, created_at, after_n)
     VALUES (?, ?, ?, ?, ?, ?, ?, (SELECT coalesce(max(n), 0) FROM events))`,
  );
  const earliestAfterN = sqlite.prepare(`SELECT min(after_n) FROM webhooks`).pluck();
  const anyRow = sqlite.prepare(`SELECT EXISTS (SELECT 1 FROM webhooks)`).pluck();
  const listForDispatch = sqlite.prepare(`SELECT ${columns}, after_n AS afterN FROM webhooks WHERE sid = ?`);
  const update = sqlite.prepare(`UPDATE webhooks SET url = ?, events = ?, secret = ?, signature = ? WHERE sid = ? AND id = ?`);
  const remove = sqlite.prepare(`DELETE FROM webhooks WHERE sid = ? AND id = ?`);
  const removeAll = sqlite.prepare(`DELETE FROM webhooks WHERE sid = ?`);
  const removeDeliveries = sqlite.prepare(`DELETE FROM deliveries WHERE sid = ? AND webhook_id = ?`);
  const removeAttempts = sqlite.prepare(
    `DELETE FROM delivery_attempts WHERE delivery_id IN (SELECT id FROM deliveries WHERE sid = ? AND webhook_id = ?)`,
  );

  const insertDelivery = sqlite.prepare(
    `INSERT INTO deliveries (id, sid, webhook_id, event, body, url, signature, secret, status, due, max_attempts, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?) RETURNING n`,
  ).pluck();
  const oldFinished = `SELECT id FROM deliveries WHERE sid = ? AND webhook_id = ? AND status != 'pending' AND n <= ?`;
  const keptFrom = sqlite.prepare(`SELECT n FROM deliveries WHERE sid = ? AND webhook_id = ? ORDER BY n DESC LIMIT 1 OFFSET ${keptDeliveries}`).pluck();
  const trimAttempts = sqlite.prepare(`DELETE FROM delivery_attempts WHERE delivery_id IN (${oldFinished})`);
  const trimDeliveries = sqlite.prepare(`DELETE FROM deliveries WHERE id IN (${oldFinished}) RETURNING length(CAST(body AS BLOB))`).pluck();
  const deliveryCount = sqlite.prepare(`SELECT count(*) FROM deliveries WHERE sid = ? AND webhook_id = ?`).pluck();
  const deliveryPage = sqlite.prepare(
    `SELECT id, webhook_id AS webhookId, event, status, created_at AS createdAt FROM deliveries
      WHERE sid = ? AND webhook_id = ? ORDER BY n DESC LIMIT (? + 0) OFFSET (? + 0)`,
  );
  const deliveryOne = sqlite.prepare(`SELECT id, webhook_id AS webhookId, event, status, created_at AS createdAt FROM deliveries WHERE sid = ? AND id = ?`);
  const attemptsOf = sqlite.prepare(
    `SELECT at, status_code AS statusCode, duration_ms AS durationMs, error FROM delivery_attempts WHERE delivery_id = ? ORDER BY n`,
  );
  const dueJobs = sqlite.prepare(
    `SELECT d.id, d.sid, d.webhook_id AS webhookId, d.event, d.body, d.url, d.signature, d.secret, d.max_attempts AS maxAttempts,
            (SELECT count(*) FROM delivery_attempts a WHERE a.delivery_id = d.id) AS made
       FROM deliveries d WHERE d.due <= ? ORDER BY d.due, d.n LIMIT (? + 0)`,
  );
  const nextDue = sqlite.prepare(`SELECT min(due) FROM deliveries WHERE due IS NOT NULL`).pluck();
  // Only for a delivery still on file: its sandbox may have expired, or its subscription gone, meanwhile.
  const insertAttempt = sqlite.prepare(
    `INSERT INTO delivery_attempts (sid, delivery_id, at, status_code, duration_ms, error)
     SELECT sid, id, ?, ?, ?, ? FROM deliveries WHERE id = ?`,
  );
  const finish = sqlite.prepare(`UPDATE deliveries SET status = ?, due = ? WHERE id = ? AND status = 'pending'`);
  const requeue = sqlite.prepare(
    `UPDATE deliveries SET status = 'pending', due = ?, max_attempts = (SELECT count(*) FROM delivery_attempts a WHERE a.delivery_id = deliveries.id) + 1
      WHERE sid = ? AND id = ? AND status != 'pending'`,
  );
  const readCursor = sqlite.prepare(`SELECT value FROM meta WHERE key = '${cursorKey}'`).pluck();
  const writeCursor = sqlite.prepare(`INSERT INTO meta (key, value) VALUES ('${cursorKey}', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`);
  const attemptsAfter = sqlite.prepare(
    `SELECT a.n, a.at, a.status_code AS statusCode, a.duration_ms AS durationMs, a.error, d.id, d.event, d.url, d.status, d.webhook_id AS webhookId,
            s.key AS sandbox, d.max_attempts AS maxAttempts, (SELECT count(*) FROM delivery_attempts b WHERE b.delivery_id = d.id AND b.n <= a.n) AS attempt,
            (SELECT count(*) FROM delivery_attempts b WHERE b.delivery_id = d.id) AS made
       FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id JOIN sandboxes s ON s.sid = a.sid
      WHERE a.n > ? ORDER BY a.n LIMIT (? + 0)`,
  );
  const lastAttempt = sqlite.prepare(`SELECT coalesce(max(n), 0) FROM delivery_attempts`).pluck();

  const toDelivery = (row: { id: string; webhookId: string; event: string; status: DeliveryStatus; createdAt: number }): Delivery => ({
    id: row.id,
    webhook_id: row.webhookId,
    event: row.event,
    status: row.status,
    attempts: (attemptsOf.all(row.id) as { at: number; statusCode: number | null; durationMs: number; error: string | null }[]).map((a) => ({
      at: new Date(a.at).toISOString(),
      status_code: a.statusCode,
      duration_ms: a.durationMs,
      error: a.error,
    })),
    created_at: new Date(row.createdAt).toISOString(),
  });

  const store = {
    list(sandbox: string): Subscription[] {
      const sid = sandboxes.sidOf(sandbox);
      return sid ? (listRows.all(sid) as SubscriptionRow[]).map(toSubscription) : [];
    },

    /** The sandbox's subscriptions by sid, with the log position after which they receive events (the dispatcher's view). */
    ofSid(sid: number): DispatchedSubscription[] {
      return (listForDispatch.all(sid) as (SubscriptionRow & { afterN: number })[]).map((row) => ({ ...toSubscription(row), afterN: row.afterN }));
    },

    get(sandbox: string, id: string): Subscription | undefined {
      const sid = sandboxes.sidOf(sandbox);
      const row = sid ? (oneRow.get(sid, id) as SubscriptionRow | undefined) : undefined;
      return row && toSubscription(row);
    },

    /** Adds a subscription; the sandbox gets a row but does not start holding data. 403 past `maxSubscriptionsPerSandbox`. */
    create(sandbox: string, fields: Omit<Subscription, 'id' | 'created_at'>): Subscription {
      return sandboxes.write(() => {
        const sid = sandboxes.ensureRow(sandbox);
        if ((count.get(sid) as number) >= maxSubscriptionsPerSandbox) {
          throw quotaExceeded(`a sandbox may have at most ${maxSubscriptionsPerSandbox} webhook subscriptions; delete one`);
        }
        const row: SubscriptionRow = { id: `wh_${randomUUID()}`, ...fields, events: JSON.stringify(fields.events), createdAt: Date.now() };
        insert.run(sid, row.id, row.url, row.events, row.secret, row.signature, row.createdAt);
        return toSubscription(row);
      });
    },

    /** Changes some fields; undefined when the sandbox has no such subscription. */
    update(sandbox: string, id: string, fields: Partial<Omit<Subscription, 'id' | 'created_at'>>): Subscription | undefined {
      return sandboxes.write(() => {
        const sid = sandboxes.sidOf(sandbox);
        const row = sid ? (oneRow.get(sid, id) as SubscriptionRow | undefined) : undefined;
        if (!row) return undefined;
        const next = { ...toSubscription(row), ...fields };
        update.run(next.url, JSON.stringify(next.events), next.secret, next.signature, sid, id);
        return next;
      });
    },

    /** Deletes a subscription and its deliveries (pending ones are not sent). */
    remove(sandbox: string, id: string): boolean {
      return sandboxes.write(() => {
        const sid = sandboxes.sidOf(sandbox);
        if (!sid || remove.run(sid, id).changes === 0) return false;
        removeAttempts.run(sid, id);
        removeDeliveries.run(sid, id);
        // Its deliveries' bytes are freed (and the sandbox may hold no data now).
        sandboxes.recount(sid);
        return true;
      });
    },

    /** Replaces every subscription of a sandbox (an import; call inside its transaction). Ids are kept. */
    replaceAll(sid: number, subscriptions: Subscription[]): void {
      for (const row of listRows.all(sid) as SubscriptionRow[]) {
        removeAttempts.run(sid, row.id);
        removeDeliveries.run(sid, row.id);
      }
      removeAll.run(sid);
      for (const s of subscriptions) {
        insert.run(sid, s.id, s.url, JSON.stringify(s.events), s.secret, s.signature, Date.parse(s.created_at));
      }
    },

    /** A page of a subscription's deliveries, newest first. */
    deliveries(sandbox: string, webhookId: string, limit: number, offset: number): { rows: Delivery[]; total: number } {
      const sid = sandboxes.sidOf(sandbox);
      if (!sid) return { rows: [], total: 0 };
      const rows = deliveryPage.all(sid, webhookId, limit, offset) as Parameters<typeof toDelivery>[0][];
      return { rows: rows.map(toDelivery), total: deliveryCount.get(sid, webhookId) as number };
    },

    delivery(sandbox: string, id: string): Delivery | undefined {
      const sid = sandboxes.sidOf(sandbox);
      const row = sid ? (deliveryOne.get(sid, id) as Parameters<typeof toDelivery>[0] | undefined) : undefined;
      return row && toDelivery(row);
    },

    /** One more attempt of a finished delivery, due now; undefined when the sandbox has no such delivery. */
    retry(sandbox: string, id: string): Delivery | undefined {
      return sandboxes.write(() => {
        const sid = sandboxes.sidOf(sandbox);
        if (!sid) return undefined;
        requeue.run(Date.now(), sid, id);
        return store.delivery(sandbox, id);
      });
    },

    /**
     * Queues deliveries (call inside `sandboxes.write`); now and then, finished ones beyond a
     * subscription's newest `keptDeliveries` go, and past `limits.sandboxBytes` the oldest finished ones.
     */
    enqueue(deliveries: NewDelivery[], now = Date.now()): string[] {
      const ids: string[] = [];
      for (const d of deliveries) {
        const { id } = d;
        const n = insertDelivery.get(id, d.sid, d.webhookId, d.event, d.body, d.url, d.signature, d.secret, now, d.maxAttempts, now) as number;
        ids.push(id);
        // The body counts in the sandbox's bytes; past its bound, older finished deliveries make room.
        sandboxes.addLogBytes(d.sid, Buffer.byteLength(d.body));
        if (n % trimEvery !== 0) continue;
        const from = keptFrom.get(d.sid, d.webhookId) as number | undefined;
        if (from === undefined) continue;
        trimAttempts.run(d.sid, d.webhookId, from);
        const trimmed = trimDeliveries.all(d.sid, d.webhookId, from) as number[];
        sandboxes.addLogBytes(d.sid, -trimmed.reduce((sum, bytes) => sum + bytes, 0));
      }
      return ids;
    },

    /** Pending deliveries due by `now`, oldest first. */
    due(now: number, limit: number): DeliveryJob[] {
      return dueJobs.all(now, limit) as DeliveryJob[];
    },

    /** When the next pending delivery is due (ms), or undefined when none is pending. */
    nextDue(): number | undefined {
      return (nextDue.get() as number | null) ?? undefined;
    },

    /** Records attempts and what follows each (`due` for another attempt, else the final status), in one transaction. */
    recordAttempts(records: AttemptRecord[]): void {
      sqlite.transaction(() => {
        const finished = new Set<number>();
        for (const { job, attempt, next } of records) {
          insertAttempt.run(attempt.at, attempt.statusCode, attempt.durationMs, attempt.error, job.id);
          if ('due' in next) finish.run('pending', next.due, job.id);
          else if (finish.run(next.status, null, job.id).changes) finished.add(job.sid);
        }
        // Finished deliveries may go now, if pending ones had taken the sandbox past its bound.
        for (const sid of finished) sandboxes.fitLogs(sid);
      }).immediate();
    },

    /** Where the dispatcher stands in the change log (kept in the file, so a restart neither skips nor repeats). */
    cursor(): number | undefined {
      const value = readCursor.get() as string | undefined;
      return value === undefined ? undefined : Number(value);
    },
    setCursor(n: number): void {
      writeCursor.run(String(n));
    },

    /** The earliest log position after which any subscription receives events; undefined when there is none. */
    earliestInterest(): number | undefined {
      return (earliestAfterN.get() as number | null) ?? undefined;
    },

    /** Whether any sandbox has a subscription (one row read, where `earliestInterest` reads them all). */
    any(): boolean {
      return anyRow.get() === 1;
    },

    /** Attempts of every sandbox after position `n` (for `webhook tail`). */
    attemptsAfter(n: number, limit = 500) {
      return attemptsAfter.all(n, limit) as {
        n: number;
        at: number;
        statusCode: number | null;
        durationMs: number;
        error: string | null;
        id: string;
        event: string;
        url: string;
        status: DeliveryStatus;
        webhookId: string;
        sandbox: string;
        maxAttempts: number;
        attempt: number;
        made: number;
      }[];
    },
    lastAttempt(): number {
      return lastAttempt.get() as number;
    },
  };
  return store;
}

export type WebhookStore = ReturnType<typeof createWebhookStore>;
