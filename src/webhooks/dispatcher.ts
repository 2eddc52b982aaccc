import type { LoggedEvent } from '../engine/change-log.js';
import { compilePatterns } from '../engine/event-pattern.js';
import type { Engine } from '../engine/engine.js';
import type { AttemptRecord, DeliveryJob, DispatchedSubscription, NewDelivery } from '../engine/webhook-store.js';
import { deliveryBody, newDeliveryId } from './delivery-body.js';
import { hostAllowed } from './subscription-input.js';
import { signatureHeaders } from './signature.js';
import { postJson, socketsPerHost } from './post.js';
import { webhookSettings, type ConfigSubscription, type WebhookSettings } from './webhook-config.js';

/** At most this many attempts run at once against one host (a slow receiver must not starve the others), and in all. */
const perHost = socketsPerHost;
const inAll = 128;
/** Due deliveries read ahead of the attempts that run. */
const readAhead = 256;
/** Events read from the log per transaction. */
const batch = 500;
export const userAgent = 'Service-Webhook-Dispatcher/1.0';

export interface Dispatcher {
  /** Looks for due deliveries now (after a ping or a manual retry). */
  kick(): void;
  /** Stops timers and abandons attempts in flight (they stay pending on file and resume after a restart). */
  stop(): void;
}

/**
 * Delivers the change log to webhook subscriptions (contract section 8). It reads the log, not the
 * writes of this process, so events written by CLI commands are delivered too: each batch of new
 * events becomes pending deliveries in the same transaction that moves its cursor (kept in the
 * file), so a restart neither loses nor repeats one. Attempts run off the request path, bounded per
 * target host; each is recorded with its outcome, and 5xx, timeouts and connection errors are tried
 * again with exponential backoff and jitter until `webhooks.attempts` attempts were made.
 */
export function startDispatcher(engine: Engine, config: () => object): Dispatcher {
  const store = engine.webhooks;
  const active = new Map<string, number>();
  const inFlight = new Map<string, AbortController>();
  let stopped = false;
  let pumpQueued = false;
  let timer: NodeJS.Timeout | undefined;
  let timerAt = Infinity;

  /**
   * Where the dispatcher stands in the log. It is written to the file with every batch that queues
   * deliveries, in that batch's transaction; a write of the API that no subscription wants costs no
   * commit here (only a read), so the file may lag behind, and a restart reads those events again:
   * harmless, since they queued nothing then and a subscription never receives events logged
   * before it was made. `persistEveryMs` bounds the lag.
   */
  let cursor: number | undefined;
  let persisted = true;
  let persistedAt = Date.now();
  const persistEveryMs = 10_000;

  /** Moves the cursor to `next`, queuing the deliveries of the events up to it in the transaction that writes it. */
  const advance = (next: number, deliveries: NewDelivery[] = []) => {
    if (deliveries.length || (!persisted && Date.now() - persistedAt > persistEveryMs)) {
      engine.sandboxes.write(() => {
        // Another dispatcher on the same file (a second server) may have queued these already.
        if ((store.cursor() ?? 0) >= next) return;
        store.enqueue(deliveries);
        store.setCursor(next);
      });
      persisted = true;
      persistedAt = Date.now();
    } else {
      persisted = false;
    }
    cursor = next;
  };

  /** New log rows → pending deliveries. */
  const scan = () => {
    if (stopped) return;
    try {
      if (cursor === undefined) {
        // A file no dispatcher ran on starts at the beginning of its log: events CLI commands logged
        // are delivered too. A subscription only gets events logged after it was made, so what lies
        // before the earliest one (all of it, without subscriptions) is skipped, not read: a file
        // filled by imports or another tool may hold 10^5 events no one wants.
        // The log's end is read first: a subscription made after it was read starts at or past it.
        const end = engine.changes.latest();
        cursor = Math.max(store.cursor() ?? 0, store.earliestInterest() ?? end);
      }
      for (;;) {
        const settings = webhookSettings(config());
        if (!settings.subscriptions.length) {
          // Without any subscription, nothing logged up to the log's end is wanted (one made
          // later starts at or past it: the end is read first), so the log is not read.
          const end = engine.changes.latest();
          if (!store.any()) {
            if (end > cursor) advance(end);
            break;
          }
        }
        const rows = engine.changes.after(cursor, batch);
        if (!rows.length) break;
        const deliveries: NewDelivery[] = [];
        const bySid = new Map<number, DispatchedSubscription[]>();
        for (const row of rows) {
          let own = bySid.get(row.sid);
          if (!own) {
            own = store.ofSid(row.sid);
            bySid.set(row.sid, own);
          }
          deliveries.push(...deliveriesFor(row, own, settings));
        }
        advance(rows[rows.length - 1].n, deliveries);
        if (rows.length < batch) break;
      }
    } catch {
      return; // busy or closing: the next wake tries again
    }
    queuePump();
  };

  /** Writes a cursor that lags behind (at stop: a restart then starts where this run ended). */
  const persistCursor = () => {
    if (persisted || cursor === undefined) return;
    try {
      const at = cursor;
      engine.sandboxes.write(() => {
        if ((store.cursor() ?? 0) < at) store.setCursor(at);
      });
      persisted = true;
    } catch {
      // closing
    }
  };

  const queuePump = () => {
    if (pumpQueued || stopped) return;
    pumpQueued = true;
    setImmediate(pump);
  };

  /**
   * Due deliveries read ahead (`queue`), so that an attempt ending starts the next one without a
   * query: the file is read again only when the queue runs low.
   */
  const queue: DeliveryJob[] = [];
  const queued = new Set<string>();
  /** Ended attempts not yet written: their rows still say pending and due. */
  const recorded = new Set<string>();
  const refill = () => {
    let jobs: DeliveryJob[];
    try {
      jobs = store.due(Date.now(), readAhead + inFlight.size + queue.length);
    } catch {
      return;
    }
    for (const job of jobs) {
      if (inFlight.has(job.id) || queued.has(job.id) || recorded.has(job.id)) continue;
      queued.add(job.id);
      queue.push(job);
    }
  };
  const startQueued = (settings: WebhookSettings) => {
    for (let i = 0; i < queue.length && inFlight.size < inAll; ) {
      const job = queue[i];
      const host = hostOf(job.url);
      if ((active.get(host) ?? 0) >= perHost) {
        i++;
        continue;
      }
      queue.splice(i, 1);
      queued.delete(job.id);
      void attempt(job, host, settings);
    }
  };

  const pump = () => {
    pumpQueued = false;
    if (stopped) return;
    const settings = webhookSettings(config());
    if (queue.length < readAhead / 2) refill();
    startQueued(settings);
    if (!queue.length) schedule();
  };

  /** Wakes the pump when the next pending delivery falls due. */
  const schedule = () => {
    if (stopped) return;
    let next: number | undefined;
    try {
      next = store.nextDue();
    } catch {
      return;
    }
    if (next === undefined) return;
    const at = Math.max(next, Date.now() + 5);
    if (timer && timerAt <= at) return;
    clearTimeout(timer);
    timerAt = at;
    timer = setTimeout(() => {
      timer = undefined;
      timerAt = Infinity;
      pump();
    }, at - Date.now());
    timer.unref();
  };

  async function attempt(job: DeliveryJob, host: string, settings: WebhookSettings): Promise<void> {
    const controller = new AbortController();
    inFlight.set(job.id, controller);
    active.set(host, (active.get(host) ?? 0) + 1);
    const at = Date.now();
    let statusCode: number | null = null;
    let error: string | null = null;
    try {
      if (!hostAllowed(job.url, settings.allowHosts)) throw new Error('the host is not in webhooks.allowHosts');
      statusCode = await postJson(job.url, headersFor(job), job.body, settings.timeoutMs, controller.signal);
    } catch (caught) {
      error = describe(caught);
    } finally {
      inFlight.delete(job.id);
      active.set(host, (active.get(host) ?? 1) - 1);
    }
    if (stopped) return; // abandoned: still pending on file
    recorded.add(job.id);
    const made = job.made + 1;
    const ok = statusCode !== null && statusCode >= 200 && statusCode < 300;
    const retryable = !ok && (statusCode === null || statusCode >= 500) && error !== 'the host is not in webhooks.allowHosts';
    const next = ok
      ? ({ status: 'succeeded' } as const)
      : retryable && made < job.maxAttempts
        ? { due: Date.now() + backoff(settings.backoffMs, made) }
        : ({ status: 'failed' } as const);
    record({ job, attempt: { at, statusCode, durationMs: Date.now() - at, error }, next });
  }

  /**
   * Outcomes of the attempts that ended in one turn of the event loop, written in one transaction
   * (a kill before it leaves those deliveries pending: they are sent again after the restart, with
   * the same delivery id, which receivers deduplicate on).
   */
  let ended: AttemptRecord[] = [];
  const record = (outcome: AttemptRecord) => {
    ended.push(outcome);
    if (ended.length === 1) setImmediate(flush);
  };
  const flush = () => {
    const records = ended;
    ended = [];
    if (stopped || !records.length) return;
    try {
      store.recordAttempts(records);
    } catch {
      return; // closing
    }
    // A job's outcome is on file before it may be read again (the next `due` query).
    for (const { job } of records) recorded.delete(job.id);
    pump();
    if (records.some((r) => 'due' in r.next)) schedule();
  }

  const unwatch = engine.changes.watch(scan);
  // Deliveries left pending by a previous run (or a kill) resume now, and events logged while no server ran are picked up.
  setImmediate(scan);

  return {
    kick: queuePump,
    stop() {
      persistCursor();
      stopped = true;
      unwatch();
      clearTimeout(timer);
      for (const controller of inFlight.values()) controller.abort(new Error('the server is stopping'));
    },
  };
}

/**
 * The deliveries one logged event makes: the sandbox's own subscriptions that existed when it
 * happened, and the config's, that match it.
 */
function deliveriesFor(row: LoggedEvent, own: DispatchedSubscription[], settings: WebhookSettings): NewDelivery[] {
  if (!own.length && !settings.subscriptions.length) return [];
  const targets: (DispatchedSubscription | ConfigSubscription)[] = [...own.filter((s) => row.n > s.afterN), ...settings.subscriptions];
  return targets
    .filter((s) => compiled(s.events)(row.event))
    .map((s) => {
      const id = newDeliveryId();
      return {
        id,
        sid: row.sid,
        webhookId: s.id,
        event: row.event,
        body: deliveryBody(id, row),
        url: s.url,
        signature: s.signature,
        secret: s.secret,
        maxAttempts: settings.attempts,
      };
    });
}

const compiledCache = new Map<string, (name: string) => boolean>();
function compiled(patterns: string[]): (name: string) => boolean {
  const key = patterns.join(',');
  let test = compiledCache.get(key);
  if (!test) {
    if (compiledCache.size > 1000) compiledCache.clear();
    compiledCache.set(key, (test = compilePatterns(patterns)));
  }
  return test;
}

/** The request headers of one attempt (contract section 8), signed now. */
export function headersFor(job: Pick<DeliveryJob, 'id' | 'event' | 'body' | 'signature' | 'secret'>): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': userAgent,
    'x-service-event': job.event,
    'x-service-delivery': job.id,
  };
  if (job.secret !== null) Object.assign(headers, signatureHeaders(job.signature, job.secret, { body: job.body, deliveryId: job.id, timestamp: Math.floor(Date.now() / 1000) }));
  return headers;
}

/** Exponential backoff with full jitter around it: base × 2^(n-1) × [0.5, 1.5). */
export function backoff(baseMs: number, attemptsMade: number): number {
  return Math.round(baseMs * 2 ** (attemptsMade - 1) * (0.5 + Math.random()));
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code && !error.message.includes(code) ? `${error.message} (${code})` : error.message;
  }
  return String(error);
}
