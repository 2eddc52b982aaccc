import type { OpenDatabase } from '../db/open.js';
import type { MergedViewStatements } from '../db/merged-view.js';
import type { BaselineMemo } from './baseline-memo.js';
import type { createListCompiler } from '../db/list-sql.js';
import type { ListQuery } from './list-query.js';
import { listPage, type Page } from './list-page.js';
import { attachRelations } from './relations.js';
import { conflict, quotaExceeded, validationFailed, type FieldProblem } from './errors.js';
import type { CollectionDefinition } from './definition.js';
import { applyMergePatch } from './merge-patch.js';
import { newRecordId, parseRecordId, type RecordId } from './record-id.js';
import { rowBytes, type SandboxStore } from './sandbox-store.js';
import { searchText, type SearchIndex } from '../db/search-index.js';
import { createRecordValidator } from './validate.js';
import type { ChangeLog } from './change-log.js';

export type Json = Record<string, unknown>;
/** A record a write stored, and the JSON text it stored it as (the change log's data and REST's answer, both as they are). */
type Written = [record: Json, json: string];

/** Overlay row states. */
export const CREATED = 1;
export const UPDATED = 2;
export const DELETED = 3;


export interface ChangeEvent {
  action: 'created' | 'updated' | 'deleted';
  collection: CollectionDefinition;
  sandbox: string;
  /** The record after the change; for deletes, as it was. */
  record: Json;
}

export interface StoreContext {
  db: OpenDatabase;
  view: MergedViewStatements;
  /** Values worked out from the baseline alone (record counts, search hits), kept until it may change. */
  baseline: BaselineMemo;
  compileList: ReturnType<typeof createListCompiler>;
  sandboxes: SandboxStore;
  search: SearchIndex;
  limits: { createdPerCollection: number; customRecords?: number };
  /** The change log: each write appends its event in its own transaction. */
  changes: ChangeLog;
  /** Looks up another collection (foreign keys name them by name). */
  collection: (name: string) => CollectionDefinition | undefined;
  /** Who outside the collection holds a unique field's value, if anyone: a record may not take it. */
  reserved?: ReservedValues;
  /** Says a record changed, after its write: the engine drops the sandbox's cached answers (listeners read the change log). */
  emit: (event: ChangeEvent) => void;
}

/** `(collection, field, value)` → who holds the value outside the collection (`a persona`), or undefined. */
export type ReservedValues = (collection: string, field: string, value: string) => string | undefined;

/**
 * The overlay writes, prepared once per engine with the collection number bound like every other
 * value: a store is then cheap enough to make per request (custom collections are).
 */
const overlayWrites = new WeakMap<OpenDatabase, ReturnType<typeof prepareOverlayWrites>>();
function prepareOverlayWrites({ sqlite }: OpenDatabase) {
  // Raw statements with positional parameters: drizzle's prepared queries map an object per run.
  const insert = sqlite.prepare(`INSERT INTO overlay (sid, cid, id, state, seq, doc) VALUES (?, ?, ?, ?, ?, ?)`);
  const rewrite = sqlite.prepare(`UPDATE overlay SET state = ?, doc = ? WHERE sid = ? AND cid = ? AND id = ?`);
  const drop = sqlite.prepare(`DELETE FROM overlay WHERE sid = ? AND cid = ? AND id = ?`);
  // Whether the sandbox sees a record, without reading its doc (a foreign key's target).
  const visible = sqlite
    .prepare(`SELECT coalesce((SELECT state != ${DELETED} FROM overlay WHERE sid = ? AND cid = ? AND id = ?), EXISTS (SELECT 1 FROM base WHERE cid = ? AND id = ?))`)
    .pluck();
  return { insert, rewrite, drop, visible };
}

/**
 * The engine's operations on one collection, for any sandbox. No h3 here; rule violations throw
 * the service's problem errors (`errors.ts`), a missing record is `undefined`.
 */
export function createCollectionStore(definition: CollectionDefinition, context: StoreContext) {
  const { db, view, sandboxes, search, limits, emit, changes } = context;
  const { cid } = definition;
  const eventName = (action: ChangeEvent['action']) => `${definition.event ?? definition.singular}.${action}`;
  // A core collection's validator compiles on its first write (ajv took a third of a start for
  // them all); a user's schema compiles at once, so a broken one still fails the start.
  let validator = definition.schema ? createRecordValidator(definition) : undefined;
  const validate = (record: Json) => (validator ??= createRecordValidator(definition))(record);
  const capName = definition.cap ?? 'createdPerCollection';
  // Every write goes through the sandbox store's transaction: evictions it causes are told only after commit.
  const immediate = <T>(fn: () => T): T => sandboxes.write(fn);
  let prepared = overlayWrites.get(db);
  if (!prepared) overlayWrites.set(db, (prepared = prepareOverlayWrites(db)));
  const { insert, rewrite, drop, visible } = prepared;

  /** The record as the sandbox sees it, with its overlay state (0 = untouched baseline) and the bytes its overlay row stores. */
  function current(sid: number, id: RecordId): { state: number; seq: number; bytes: number; fields: Json } | undefined {
    const row = view.get.get({ sid, cid, id }) as { state: number; seq: number; doc: string | null } | undefined;
    if (!row || row.state === DELETED || row.doc === null) return undefined;
    const { id: _id, _sandbox, ...fields } = JSON.parse(row.doc) as Json;
    return { state: row.state, seq: row.seq, bytes: row.state ? rowBytes(id, row.doc) : 0, fields };
  }

  /** Foreign keys must name a record visible in the sandbox; checked only where the value changes. */
  function checkReferences(sid: number, fields: Json, before?: Json): FieldProblem[] {
    const problems: FieldProblem[] = [];
    for (const key of definition.foreignKeys) {
      const value = fields[key.field];
      if (value === undefined || (before && before[key.field] === value)) continue;
      const target = context.collection(key.references);
      if (!target || visible.get(sid, target.cid, value, target.cid, value) !== 1) {
        problems.push({ path: `/${key.field}`, message: `names no ${key.references} record visible in this sandbox` });
      }
    }
    return problems;
  }

  /** Unique fields must be free in the sandbox's view; a value the write leaves unchanged is not looked up again. */
  function checkUnique(sid: number, fields: Json, id: RecordId | null, before?: Json): void {
    for (const field of definition.unique) {
      const value = fields[field];
      if (typeof value !== 'string' || value === before?.[field]) continue;
      const holder = context.reserved?.(definition.name, field, value);
      if (holder) throw conflict(`${holder} already has this ${field}`, [{ path: `/${field}`, message: 'is already taken' }]);
      if (view.duplicate.get({ sid, cid, path: `$.${field}`, value, id }) !== undefined) {
        throw conflict(`another ${definition.singular} already has this ${field}`, [{ path: `/${field}`, message: 'is already taken' }]);
      }
    }
  }

  /** Validates a complete record and normalises foreign keys (`"7"` → 7). Throws 422. */
  function validated(sid: number, fields: Json, before?: Json): Json {
    const problems = validate(fields);
    if (problems.length) throw validationFailed(problems);
    for (const key of definition.foreignKeys) {
      if (fields[key.field] !== undefined) fields[key.field] = parseRecordId(fields[key.field]);
    }
    const references = checkReferences(sid, fields, before);
    if (references.length) throw validationFailed(references);
    return fields;
  }

  /**
   * Writes the record's overlay row (reusing its seq when it has one) and its search entry, and
   * counts its bytes against the sandbox's bound (`oldBytes`: what the row it replaces stored;
   * `before`: its fields). Returns the record and its stored JSON text (which the change log
   * stores as it is).
   */
  function store(sid: number, id: RecordId, state: number, fields: Json, existingSeq: number, oldBytes: number, before?: Json): Written {
    const record: Json = { id, ...fields, _sandbox: state === CREATED ? 'created' : 'updated' };
    const doc = JSON.stringify(record);
    const bytes = rowBytes(id, doc) - oldBytes;
    let seq = existingSeq;
    if (seq) {
      sandboxes.addBytes(sid, bytes);
      rewrite.run(state, doc, sid, cid, id);
    } else insert.run(sid, cid, id, state, (seq = sandboxes.nextSeq(sid, bytes)), doc);
    const text = searchText(definition.searchable, record);
    // A row that keeps its seq and its searchable text keeps its index entry as it is (a PATCH of
    // a todo's `completed`): re-writing it cost a third of such a write.
    if (!existingSeq || !before || text !== searchText(definition.searchable, { id, ...before })) search.put(sid, cid, seq, text, !existingSeq);
    return [record, doc];
  }

  /** A write to an existing record: PUT (replace) and PATCH share everything but the merge. */
  function change(sandbox: string, id: RecordId, merge: (before: Json) => Json): Written | undefined {
    const written = immediate(() => {
      const found = current(sandboxes.sidOf(sandbox), id);
      if (!found) return undefined;
      const sid = sandboxes.open(sandbox);
      const fields = validated(sid, merge(found.fields), found.fields);
      checkUnique(sid, fields, id, found.fields);
      const state = found.state === CREATED ? CREATED : UPDATED;
      const written = store(sid, id, state, fields, found.seq, found.bytes, found.fields);
      changes.append(sid, eventName('updated'), written[0], written[1]);
      return written;
    });
    if (written) emit({ action: 'updated', collection: definition, sandbox, record: written[0] });
    return written;
  }

  function create(sandbox: string, body: Json): Written {
    const { id: _ignoredId, _sandbox, ...fields } = body;
    if (definition.createdAt && fields[definition.createdAt] === undefined) fields[definition.createdAt] = new Date().toISOString();
    const written = immediate(() => {
      const sid = sandboxes.open(sandbox);
      const checked = validated(sid, fields);
      checkUnique(sid, checked, null);
      // Read per write: the limits read through to the config in force (`runtime.reconfigure`).
      const cap = limits[capName] ?? limits.createdPerCollection;
      if ((view.createdCount.get({ sid, cid }) as number) >= cap) {
        throw quotaExceeded(`a sandbox may hold at most ${cap} created ${definition.name} (limits.${capName}); delete one or reset the sandbox`);
      }
      const written = store(sid, newRecordId(), CREATED, checked, 0, 0);
      changes.append(sid, eventName('created'), written[0], written[1]);
      return written;
    });
    emit({ action: 'created', collection: definition, sandbox, record: written[0] });
    return written;
  }

  /** PUT: every required field present; omitted optional fields keep their values (an open collection's: the body is the record). */
  function replace(sandbox: string, rawId: unknown, body: Json): Written | undefined {
    const id = parseRecordId(rawId);
    if (id === undefined) return undefined;
    const fields = withoutIdentity(body, id);
    return change(sandbox, id, (before) => {
      // The body itself must be a complete record; only then do kept optional fields fill in.
      const problems = validate(fields);
      if (problems.length) throw validationFailed(problems);
      // An open collection has no schema to say which fields a record must have: PUT is the whole record.
      return definition.open ? fields : { ...before, ...fields };
    });
  }

  /** PATCH: a JSON merge patch; `null` clears a field. */
  function patch(sandbox: string, rawId: unknown, body: Json): Written | undefined {
    const id = parseRecordId(rawId);
    if (id === undefined) return undefined;
    const fields = withoutIdentity(body, id);
    return change(sandbox, id, (before) => applyMergePatch(before, fields) as Json);
  }

  return {
    definition,

    list(sandbox: string, query: ListQuery): Page {
      return listPage(context, definition, sandboxes.sidOf(sandbox), query);
    },

    /**
     * The record's JSON text as stored, or undefined when the sandbox cannot see it. With
     * relations (`_embed`/`_expand` names), those are added to it.
     */
    getJson(sandbox: string, rawId: unknown, relations: string[] = []): string | undefined {
      const id = parseRecordId(rawId);
      if (id === undefined) return undefined;
      const sid = sandboxes.sidOf(sandbox);
      const row = view.get.get({ sid, cid, id }) as { state: number; doc: string | null } | undefined;
      if (!row || row.state === DELETED || row.doc === null) return undefined;
      if (!relations.length) return row.doc;
      const record = JSON.parse(row.doc) as Json;
      attachRelations(context, definition, sid, [record], relations);
      return JSON.stringify(record);
    },

    /** The visible record whose text field equals `value` case-insensitively (a unique field: username, email). */
    findBy(sandbox: string, field: string, value: string): Json | undefined {
      const sid = sandboxes.sidOf(sandbox);
      const id = view.duplicate.get({ sid, cid, path: `$.${field}`, value, id: null }) as RecordId | undefined;
      return id === undefined ? undefined : this.get(sandbox, id);
    },

    get(sandbox: string, rawId: unknown): Json | undefined {
      const json = this.getJson(sandbox, rawId);
      return json === undefined ? undefined : (JSON.parse(json) as Json);
    },

    create: (sandbox: string, body: Json): Json => create(sandbox, body)[0],
    /** The created record as the JSON text it was stored as (REST's answer, sent as it is). */
    createJson: (sandbox: string, body: Json): string => create(sandbox, body)[1],
    replace: (sandbox: string, id: unknown, body: Json): Json | undefined => replace(sandbox, id, body)?.[0],
    replaceJson: (sandbox: string, id: unknown, body: Json): string | undefined => replace(sandbox, id, body)?.[1],
    patch: (sandbox: string, id: unknown, body: Json): Json | undefined => patch(sandbox, id, body)?.[0],
    patchJson: (sandbox: string, id: unknown, body: Json): string | undefined => patch(sandbox, id, body)?.[1],

    /** Returns the record as it was, or undefined when the sandbox cannot see it. */
    remove(sandbox: string, rawId: unknown): Json | undefined {
      const id = parseRecordId(rawId);
      if (id === undefined) return undefined;
      const record = immediate(() => {
        const found = current(sandboxes.sidOf(sandbox), id);
        if (!found) return undefined;
        const sid = sandboxes.open(sandbox);
        if (found.state !== 0) search.remove(sid, cid, found.seq);
        if (found.state === CREATED) {
          drop.run(sid, cid, id);
          sandboxes.addBytes(sid, -found.bytes);
          // Its last row may have gone: then it no longer counts toward maxSandboxes.
          sandboxes.refreshHolds(sid);
        } else {
          // A tombstone stores its id.
          const bytes = rowBytes(id, null) - found.bytes;
          if (found.state === UPDATED) {
            sandboxes.addBytes(sid, bytes);
            rewrite.run(DELETED, null, sid, cid, id);
          } else insert.run(sid, cid, id, DELETED, sandboxes.nextSeq(sid, bytes), null);
        }
        const record = { id, ...found.fields, ...(found.state ? { _sandbox: found.state === CREATED ? 'created' : 'updated' } : {}) };
        changes.append(sid, eventName('deleted'), record);
        return record;
      });
      if (record) emit({ action: 'deleted', collection: definition, sandbox, record });
      return record;
    },
  };
}

/** Drops the read-only `id` and `_sandbox` from a body; an `id` that names another record is a 422. */
function withoutIdentity(body: Json, id: RecordId): Json {
  const { id: bodyId, _sandbox, ...fields } = body;
  if (bodyId !== undefined && parseRecordId(bodyId) !== id) {
    throw validationFailed([{ path: '/id', message: 'must equal the id in the path' }]);
  }
  return fields;
}

export type CollectionStore = ReturnType<typeof createCollectionStore>;
