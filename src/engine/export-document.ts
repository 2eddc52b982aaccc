import type { OpenDatabase } from '../db/open.js';
import type { CollectionDefinition } from './definition.js';
import { CREATED, DELETED, UPDATED, type Json } from './collection-store.js';
import { customPrefix } from './custom-collections.js';
import { toSubscription, type Subscription, type SubscriptionRow } from './webhook-store.js';

/**
 * The export document (contract section 12), described by `schemas/mockapi-export.schema.json`.
 * A sandbox travels as its overlay, never as merged records, so an import onto the same baseline
 * gives back exactly the same sandbox. No seq or sid appears: an import assigns its own. Webhook
 * subscriptions travel with their secrets (a subscription is its secret too: receivers set up with it
 * keep verifying after an import); their deliveries and the event log stay behind.
 * Later layers add optional keys beside `collections` and `snapshots` (custom collections,
 * webhook subscriptions) and keep version 1.
 */
export interface ExportDocument {
  format: 'mockapi-export';
  version: 1;
  exportedAt: string;
  sandboxes: ExportedSandbox[];
}

export interface ExportedSandbox {
  id: string;
  /** ISO times of the sandbox's row; null for a sandbox that holds no data. */
  createdAt: string | null;
  lastActiveAt: string | null;
  collections: Record<string, ExportedOverlay>;
  /** Present only when the sandbox has snapshots. */
  snapshots?: ExportedSnapshot[];
  /** The sandbox mailbox, oldest first; present only when it holds messages (no password hash ever travels). */
  mailbox?: Json[];
  /** Present only when the sandbox has webhook subscriptions; without `secret` where the exporter may not see secrets. */
  webhooks?: ExportedWebhook[];
  /** What this export leaves out because its caller may not read it (`webhooks.secret`, `mailbox`); absent when nothing. */
  withheld?: Withheld[];
}

export type ExportedWebhook = Omit<Subscription, 'secret'> & { secret?: string };
export type Withheld = 'webhooks.secret' | 'mailbox';

/** A subscription as a reader without `webhooks:write` sees it: no signing secret, with which it could forge deliveries. */
export const withoutSecret = ({ secret: _secret, ...hook }: Subscription): ExportedWebhook => hook;

/**
 * An exported sandbox without what its caller may not read (contract sections 7 and 8): the
 * webhook secrets (`webhooks:write` only), the mailbox with its reset tokens (`inbox:read` only).
 * The document says what it left out; an import gives such subscriptions new secrets.
 */
export function withhold(sandbox: ExportedSandbox, left: readonly Withheld[]): ExportedSandbox {
  const out: ExportedSandbox = { ...sandbox };
  const withheld: Withheld[] = [];
  if (left.includes('webhooks.secret') && out.webhooks) {
    out.webhooks = out.webhooks.map((hook) => withoutSecret(hook as Subscription));
    withheld.push('webhooks.secret');
  }
  if (left.includes('mailbox') && out.mailbox) {
    delete out.mailbox;
    withheld.push('mailbox');
  }
  if (withheld.length) out.withheld = withheld;
  return out;
}

export interface ExportedOverlay {
  /** Created records, newest first, as the API lists them. */
  created: Json[];
  /** Changed copies of baseline records, by id. */
  updated: Json[];
  /** Ids of deleted baseline records. */
  deleted: number[];
}

export interface ExportedSnapshot {
  name: string;
  createdAt: string;
  collections: Record<string, ExportedOverlay>;
}

export const exportFormat = 'mockapi-export';
export const exportVersion = 1;

interface OverlayRow {
  cid: number;
  id: number | string;
  state: number;
  doc: string | null;
}

/**
 * Builds the document for the given sandbox ids, in one read transaction (a consistent picture
 * while a server writes). A sandbox that holds no data is exported with an empty overlay: it sees
 * exactly the baseline.
 */
export function buildExportDocument(
  db: OpenDatabase,
  collections: CollectionDefinition[],
  keys: string[],
  onProgress?: (done: number, total: number) => void,
): ExportDocument {
  const { sqlite } = db;
  // Created records newest first (by seq), the rest by id: the order the API shows them in.
  const order = `cid, state, CASE state WHEN ${CREATED} THEN -seq ELSE id END`;
  const sandboxRow = sqlite.prepare(`SELECT sid, created_at AS createdAt, last_active_at AS lastActiveAt FROM sandboxes WHERE key = ?`);
  const overlayRows = sqlite.prepare(`SELECT cid, id, state, doc FROM overlay WHERE sid = ? ORDER BY ${order}`);
  const snapshotList = sqlite.prepare(`SELECT name, created_at AS createdAt FROM snapshots WHERE sid = ? ORDER BY created_at, name`);
  const snapshotRows = sqlite.prepare(`SELECT cid, id, state, doc FROM snapshot_rows WHERE sid = ? AND name = ? ORDER BY ${order}`);
  const customNames = sqlite.prepare(`SELECT cid, name FROM custom_collections WHERE sid = ?`);
  const messages = sqlite.prepare(`SELECT doc FROM mailbox WHERE sid = ? ORDER BY seq`).pluck();
  const webhookRows = sqlite.prepare(
    `SELECT id, url, events, secret, signature, created_at AS createdAt FROM webhooks WHERE sid = ? ORDER BY created_at, id`,
  );

  return sqlite.transaction(() => {
    const sandboxes = keys.map((key, index): ExportedSandbox => {
      const row = sandboxRow.get(key) as { sid: number; createdAt: number; lastActiveAt: number } | undefined;
      const custom = new Map(row ? (customNames.all(row.sid) as { cid: number; name: string }[]).map((c) => [c.cid, `${customPrefix}${c.name}`]) : []);
      const sandbox: ExportedSandbox = {
        id: key,
        createdAt: row ? new Date(row.createdAt).toISOString() : null,
        lastActiveAt: row ? new Date(row.lastActiveAt).toISOString() : null,
        collections: toCollections(collections, custom, row ? (overlayRows.all(row.sid) as OverlayRow[]) : []),
      };
      const snapshots = row ? (snapshotList.all(row.sid) as { name: string; createdAt: number }[]) : [];
      if (snapshots.length) {
        sandbox.snapshots = snapshots.map((snapshot) => ({
          name: snapshot.name,
          createdAt: new Date(snapshot.createdAt).toISOString(),
          collections: toCollections(collections, custom, snapshotRows.all(row!.sid, snapshot.name) as OverlayRow[]),
        }));
      }
      const mailbox = row ? (messages.all(row.sid) as string[]) : [];
      if (mailbox.length) sandbox.mailbox = mailbox.map((doc) => JSON.parse(doc) as Json);
      const hooks = row ? (webhookRows.all(row.sid) as SubscriptionRow[]) : [];
      if (hooks.length) sandbox.webhooks = hooks.map(toSubscription);
      onProgress?.(index + 1, keys.length);
      return sandbox;
    });
    return { format: exportFormat, version: exportVersion, exportedAt: new Date().toISOString(), sandboxes } as ExportDocument;
  })();
}

/** Ids of the sandboxes that hold data (overlay rows or snapshots), sorted, for `--all`. */
export function sandboxesHoldingData(db: OpenDatabase): string[] {
  return db.sqlite
    .prepare(
      `SELECT key FROM sandboxes s
        WHERE EXISTS (SELECT 1 FROM overlay o WHERE o.sid = s.sid)
           OR EXISTS (SELECT 1 FROM snapshots n WHERE n.sid = s.sid)
        ORDER BY key`,
    )
    .pluck()
    .all() as string[];
}

/**
 * Every collection of the engine, in registry order, even without rows: a diff-friendly fixed
 * shape; then the sandbox's custom collections that have rows here (`custom.<name>`), by name.
 */
function toCollections(collections: CollectionDefinition[], custom: Map<number, string>, rows: OverlayRow[]): Record<string, ExportedOverlay> {
  const byCid = new Map<number, ExportedOverlay>();
  const result: Record<string, ExportedOverlay> = {};
  for (const definition of collections) {
    const overlay: ExportedOverlay = { created: [], updated: [], deleted: [] };
    byCid.set(definition.cid, overlay);
    result[definition.name] = overlay;
  }
  const customOverlays: [string, ExportedOverlay][] = [];
  for (const row of rows) {
    let overlay = byCid.get(row.cid);
    const customName = overlay ? undefined : custom.get(row.cid);
    if (customName !== undefined) {
      byCid.set(row.cid, (overlay = { created: [], updated: [], deleted: [] }));
      customOverlays.push([customName, overlay]);
    }
    if (!overlay) continue;
    if (row.state === CREATED) overlay.created.push(JSON.parse(row.doc!) as Json);
    else if (row.state === UPDATED) overlay.updated.push(JSON.parse(row.doc!) as Json);
    else if (row.state === DELETED) overlay.deleted.push(Number(row.id));
  }
  for (const [name, overlay] of customOverlays.sort(([a], [b]) => (a < b ? -1 : 1))) result[name] = overlay;
  return result;
}
