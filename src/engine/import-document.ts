import type { OpenDatabase } from '../db/open.js';
import { quotaExceeded, type FieldProblem } from './errors.js';
import { checkExportDocument, type PlannedRow, type PlannedSandbox } from './check-export-document.js';
import { customPrefix } from './custom-collections.js';
import type { Engine } from './engine.js';
import { rowBytes } from './sandbox-store.js';
import { maxRecordDepth } from './validate.js';

/**
 * How deep an export document may nest: its records sit at level 9 (document, sandboxes, a
 * sandbox, snapshots, a snapshot, collections, a collection, created, the record), so every
 * record the engine stores fits; each record is then held to {@link maxRecordDepth} itself.
 */
export const maxDocumentDepth = maxRecordDepth + 8;

export interface TransferContext {
  db: OpenDatabase;
  engine: Engine;
  /** `sandboxTtl` in seconds (0 or absent: never expires); `maxSandboxes` and `sandboxBytes` 0 or absent: no bound. */
  limits: { createdPerCollection: number; customCollections?: number; customRecords?: number; sandboxTtl?: number; maxSandboxes?: number; sandboxBytes?: number };
}

export interface ImportOptions {
  /** Over HTTP: the document holds one sandbox, and it replaces this one (the document's id is ignored). */
  into?: string;
  /** Check only; write nothing. */
  dryRun?: boolean;
  onProgress?: (done: number, total: number) => void;
}

export interface ImportedSandbox {
  id: string;
  /** Overlay rows by collection name. */
  records: Record<string, number>;
  snapshots: number;
}

export type ImportResult = { ok: true; sandboxes: ImportedSandbox[] } | { ok: false; problems: FieldProblem[] };

/**
 * Imports an export document: checks all of it first (nothing is written if any part is invalid),
 * then, in one immediate transaction, replaces each of its sandboxes' overlay and snapshots by the
 * document's. Sandboxes not in the document are untouched. Seqs are assigned afresh, keeping the
 * order of created records.
 */
export function importDocument(context: TransferContext, document: unknown, options: ImportOptions = {}): ImportResult {
  const { db, engine } = context;
  const checked = checkExportDocument(db, { collections: engine.collections, limits: context.limits }, document, { into: options.into });
  if (!checked.ok) return checked;
  const bounds = checkBounds(checked.plan, context.limits);
  if (bounds) return { ok: false, problems: [bounds] };
  checkBytes(checked.plan, context.limits.sandboxBytes ?? 0);
  const summary = checked.plan.map((sandbox) => ({
    id: sandbox.key,
    records: {
      ...Object.fromEntries(engine.collections.map((c) => [c.name, sandbox.counts[c.name] ?? 0])),
      ...Object.fromEntries(Object.entries(sandbox.counts).filter(([name]) => name.startsWith(customPrefix))),
    },
    snapshots: sandbox.snapshots.length,
  }));
  if (options.dryRun) return { ok: true, sandboxes: summary };

  const write = createWriter(context);
  engine.sandboxes.write(() => {
    const sids = checked.plan.map((sandbox, index) => {
      const sid = write(sandbox);
      options.onProgress?.(index + 1, checked.plan.length);
      return sid;
    });
    // Like a first write: beyond limits.maxSandboxes the least recently active others go, never the document's own.
    engine.sandboxes.evictBeyondLimit(sids.filter((sid) => sid > 0));
  });
  for (const sandbox of checked.plan) engine.sandboxChanged(sandbox.key);
  return { ok: true, sandboxes: summary };
}

const holdsData = (sandbox: PlannedSandbox) => sandbox.rows.length > 0 || sandbox.snapshots.length > 0 || sandbox.mailbox.length > 0;

/** A document with more sandboxes holding data than `limits.maxSandboxes` could never be there at once. */
function checkBounds(plan: PlannedSandbox[], limits: TransferContext['limits']): FieldProblem | undefined {
  const max = limits.maxSandboxes ?? 0;
  const holding = plan.filter(holdsData).length;
  if (max <= 0 || holding <= max) return undefined;
  return { path: '/sandboxes', message: `holds ${holding} sandboxes with data, more than limits.maxSandboxes (${max}) allows at once` };
}

/** 403 QUOTA_EXCEEDED when a sandbox of the document stores more than `limits.sandboxBytes` (records, snapshots, mailbox). */
function checkBytes(plan: PlannedSandbox[], max: number): void {
  if (max <= 0) return;
  for (const sandbox of plan) {
    let bytes = 0;
    for (const row of [...sandbox.rows, ...sandbox.snapshots.flatMap((snapshot) => snapshot.rows)]) bytes += rowBytes(row.id, row.doc);
    // Its mailbox counts too (sandbox-store.ts); webhook deliveries are not carried.
    for (const message of sandbox.mailbox) bytes += Buffer.byteLength(message);
    if (bytes > max) {
      throw quotaExceeded(`sandbox ${sandbox.key} stores ${bytes} bytes of records and mail, more than limits.sandboxBytes (${max}); nothing was imported`);
    }
  }
}

function createWriter({ db, engine, limits }: TransferContext) {
  const { sqlite } = db;
  const find = sqlite.prepare<[string], { sid: number; createdAt: number }>(`SELECT sid, created_at AS createdAt FROM sandboxes WHERE key = ?`);
  const insertSandbox = sqlite.prepare(`INSERT INTO sandboxes (key, seq, created_at, last_active_at) VALUES (?, 0, ?, ?) RETURNING sid`).pluck();
  const setTimes = sqlite.prepare(`UPDATE sandboxes SET created_at = ?, last_active_at = ? WHERE sid = ?`);
  const setSeq = sqlite.prepare(`UPDATE sandboxes SET seq = ? WHERE sid = ?`);
  const clear = [
    sqlite.prepare(`DELETE FROM overlay WHERE sid = ?`),
    sqlite.prepare(`DELETE FROM snapshot_rows WHERE sid = ?`),
    sqlite.prepare(`DELETE FROM snapshots WHERE sid = ?`),
    sqlite.prepare(`DELETE FROM mailbox WHERE sid = ?`),
    // Live reset tokens belong to the mailbox being replaced.
    sqlite.prepare(`DELETE FROM reset_tokens WHERE sid = ?`),
  ];
  const insertMessage = sqlite.prepare(`INSERT INTO mailbox (sid, seq, doc) VALUES (?, ?, ?)`);
  const insertRow = sqlite.prepare(`INSERT INTO overlay (sid, cid, id, state, seq, doc) VALUES (?, ?, ?, ?, ?, ?)`);
  const insertSnapshot = sqlite.prepare(`INSERT INTO snapshots (sid, name, created_at, seq) VALUES (?, ?, ?, ?)`);
  const insertSnapshotRow = sqlite.prepare(`INSERT INTO snapshot_rows (sid, name, cid, id, state, seq, doc) VALUES (?, ?, ?, ?, ?, ?, ?)`);
  const ttlMs = (limits.sandboxTtl ?? 0) * 1000;

  /** The sandbox's row with the document's times, kept exactly so that export → import → export is the identity. */
  const rowWithTimes = (sandbox: PlannedSandbox, now: number): number => {
    const existing = find.get(sandbox.key) as { sid: number; createdAt: number } | undefined;
    const createdAt = sandbox.createdAt ?? existing?.createdAt ?? now;
    let lastActiveAt = sandbox.lastActiveAt ?? now;
    // Except that an import is no reason to purge: a sandbox idle past the TTL would expire at
    // once (an export kept for weeks as a test fixture), so it counts as active now.
    if (ttlMs > 0 && lastActiveAt < now - ttlMs) lastActiveAt = now;
    if (!existing) return insertSandbox.get(sandbox.key, createdAt, lastActiveAt) as number;
    setTimes.run(createdAt, lastActiveAt, existing.sid);
    return existing.sid;
  };

  /** Writes one sandbox of the document; returns its sid (0 when it holds nothing and never wrote). */
  return (sandbox: PlannedSandbox): number => {
    let sid: number;
    if (sandbox.createdAt === undefined && sandbox.lastActiveAt === undefined) {
      // No times (an import over HTTP, a hand-written document): active now, like any write. A
      // sandbox that holds nothing and never wrote keeps having no row.
      sid = engine.sandboxes.sidOf(sandbox.key);
      if (!sid && !holdsData(sandbox) && !sandbox.webhooks.length) return 0;
      const now = Date.now();
      if (sid) setTimes.run(find.get(sandbox.key)!.createdAt, now, sid);
      else sid = insertSandbox.get(sandbox.key, now, now) as number;
    } else {
      sid = rowWithTimes(sandbox, Date.now());
    }
    for (const statement of clear) statement.run(sid);

    // A custom collection's rows go under the number this sandbox has (or now gets) for its name.
    const cidOf = (row: PlannedRow) => (row.custom === undefined ? row.cid : engine.custom.numberFor(sid, row.custom));
    let seq = 0;
    for (const row of sandbox.rows) insertRow.run(sid, cidOf(row), row.id, row.state, ++seq, row.doc);
    for (const snapshot of sandbox.snapshots) {
      for (const row of snapshot.rows) insertSnapshotRow.run(sid, snapshot.name, cidOf(row), row.id, row.state, ++seq, row.doc);
      // A restore sets the sandbox's counter to at least this, so it covers the snapshot's rows.
      insertSnapshot.run(sid, snapshot.name, snapshot.createdAt, seq);
    }
    setSeq.run(seq, sid);
    sandbox.mailbox.forEach((doc, i) => insertMessage.run(sid, i + 1, doc));
    engine.search.reindexSandbox(sid);
    engine.webhooks.replaceAll(sid, sandbox.webhooks);
    engine.changes.append(sid, 'sandbox.imported', { sandbox: sandbox.key });
    // What it holds now: whether it counts toward maxSandboxes, and its bytes (checked above).
    engine.sandboxes.recount(sid);
    return sid;
  };
}
