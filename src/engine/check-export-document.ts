import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { OpenDatabase } from '../db/open.js';
import { maxPackedNumber } from '../db/search-index.js';
import type { FieldProblem } from './errors.js';
import { CREATED, DELETED, UPDATED, type Json } from './collection-store.js';
import type { CollectionDefinition } from './definition.js';
import { customDefinition, customNamePattern, customPrefix } from './custom-collections.js';
import { exportFormat, exportVersion, type ExportDocument, type ExportedOverlay } from './export-document.js';
import { parseRecordId } from './record-id.js';
import { maxSnapshotsPerSandbox } from './snapshots.js';
import { createRecordValidator } from './validate.js';
import type { Subscription } from './webhook-store.js';
import { generateSecret } from '../webhooks/signature.js';

/** Problems beyond these are not looked for: a broken document would otherwise list thousands. */
export const maxProblems = 10;

/** An overlay row to write, in the order its seq is assigned (oldest created record first). */
export interface PlannedRow {
  /** The collection's number; for a custom collection 0 (the sandbox gives it one as it is written), named by `custom`. */
  cid: number;
  custom?: string;
  id: number | string;
  state: number;
  doc: string | null;
}

/** One sandbox of a checked document, ready to write. Times are ms; undefined = keep or now. */
export interface PlannedSandbox {
  key: string;
  createdAt?: number;
  lastActiveAt?: number;
  rows: PlannedRow[];
  snapshots: { name: string; createdAt: number; rows: PlannedRow[] }[];
  /** Mailbox messages as JSON texts, oldest first. */
  mailbox: string[];
  /** Overlay rows by collection name. */
  counts: Record<string, number>;
  /** Webhook subscriptions; an import replaces the sandbox's with these (none when absent). */
  webhooks: Subscription[];
}

export interface CheckOptions {
  /** Import over HTTP: the document must hold one sandbox, written to this id (its own id is ignored). */
  into?: string;
}

export type CheckResult = { ok: true; plan: PlannedSandbox[] } | { ok: false; problems: FieldProblem[] };

interface CheckContext {
  collections: CollectionDefinition[];
  limits: { createdPerCollection: number; customCollections?: number; customRecords?: number };
}

const schemaFile = fileURLToPath(new URL('../../schemas/mockapi-export.schema.json', import.meta.url));
let schemaValidator: ValidateFunction | undefined;
const recordValidators = new WeakMap<CollectionDefinition, (record: unknown) => FieldProblem[]>();

/**
 * Checks a whole export document before anything is written: its shape (the JSON Schema), then the
 * engine's rules against the view each sandbox (and each snapshot) would have: fields, foreign
 * keys, unique fields, the created-records cap, created ids, baseline ids. Problems carry JSON
 * Pointer paths into the document; at most `maxProblems` are reported.
 */
export function checkExportDocument(db: OpenDatabase, context: CheckContext, input: unknown, options: CheckOptions = {}): CheckResult {
  const problems = new Problems();
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return problems.fail('', 'must be a JSON object (a mockapi export document)');
  }
  let document = input as Record<string, unknown>;
  if (document.format !== exportFormat) {
    return problems.fail('/format', `must be "${exportFormat}" (this is not a mockapi export document)`);
  }
  if (document.version !== exportVersion) {
    return problems.fail('/version', `${JSON.stringify(document.version)} is not supported; this mockapi reads version ${exportVersion}`);
  }
  if (options.into !== undefined && Array.isArray(document.sandboxes)) {
    if (document.sandboxes.length !== 1) {
      return problems.fail('/sandboxes', `must hold exactly one sandbox (an import replaces your own sandbox), not ${document.sandboxes.length}`);
    }
    const [only] = document.sandboxes as unknown[];
    if (typeof only === 'object' && only !== null && !Array.isArray(only)) {
      document = { ...document, sandboxes: [{ ...only, id: options.into }] };
    }
  }
  const validate = (schemaValidator ??= compileSchema());
  if (!validate(document)) {
    for (const problem of toSchemaProblems(validate.errors ?? [])) problems.add(problem.path, problem.message);
    return { ok: false, problems: problems.list };
  }

  const checker = createOverlayChecker(db, context, problems);
  const seen = new Set<string>();
  const plan = (document as unknown as ExportDocument).sandboxes.map((sandbox, i): PlannedSandbox => {
    const path = `/sandboxes/${i}`;
    if (seen.has(sandbox.id)) problems.add(`${path}/id`, 'names a sandbox that appears earlier in the document');
    seen.add(sandbox.id);
    const overlay = checker.check(`${path}/collections`, sandbox.collections);
    const names = new Set<string>();
    if ((sandbox.snapshots?.length ?? 0) > maxSnapshotsPerSandbox) {
      problems.add(`${path}/snapshots`, `holds ${sandbox.snapshots!.length} snapshots; a sandbox may keep at most ${maxSnapshotsPerSandbox}`);
    }
    const snapshots = (sandbox.snapshots ?? []).map((snapshot, j) => {
      if (names.has(snapshot.name)) problems.add(`${path}/snapshots/${j}/name`, 'names a snapshot that appears earlier in this sandbox');
      names.add(snapshot.name);
      const createdAt = toTime(snapshot.createdAt, `${path}/snapshots/${j}/createdAt`, problems)!;
      return { name: snapshot.name, createdAt, rows: checker.check(`${path}/snapshots/${j}/collections`, snapshot.collections).rows };
    });
    const hookIds = new Set<string>();
    (sandbox.webhooks ?? []).forEach((hook, j) => {
      if (hookIds.has(hook.id)) problems.add(`${path}/webhooks/${j}/id`, 'names a webhook that appears earlier in this sandbox');
      hookIds.add(hook.id);
      toTime(hook.created_at, `${path}/webhooks/${j}/created_at`, problems);
    });
    const total = overlay.rows.length + snapshots.reduce((sum, s) => sum + s.rows.length, 0);
    if (total >= maxPackedNumber) problems.add(path, `holds ${total} records with its snapshots; at most ${maxPackedNumber - 1} fit in one sandbox`);
    const times = options.into === undefined;
    return {
      key: sandbox.id,
      createdAt: times ? toTime(sandbox.createdAt, `${path}/createdAt`, problems) : undefined,
      lastActiveAt: times ? toTime(sandbox.lastActiveAt, `${path}/lastActiveAt`, problems) : undefined,
      rows: overlay.rows,
      snapshots,
      mailbox: (sandbox.mailbox ?? []).map((message) => JSON.stringify(message)),
      counts: overlay.counts,
      // A document exported without the secrets (`withheld`): its subscriptions get new ones.
      webhooks: (sandbox.webhooks ?? []).map((hook) => ({ ...hook, secret: hook.secret ?? generateSecret() })),
    };
  });
  return problems.list.length ? { ok: false, problems: problems.list } : { ok: true, plan };
}

class Problems {
  readonly list: FieldProblem[] = [];
  add(path: string, message: string): void {
    if (this.list.length < maxProblems) this.list.push({ path: path || '/', message });
  }
  get full(): boolean {
    return this.list.length >= maxProblems;
  }
  fail(path: string, message: string): CheckResult {
    this.add(path, message);
    return { ok: false, problems: this.list };
  }
}

/** What one collection of an overlay holds, once its records passed their own checks. */
interface CollectionView {
  definition: CollectionDefinition;
  path: string;
  created: Map<string, Json>;
  updated: Map<number, Json>;
  deleted: Set<number>;
  /** Records whose fields are valid, with their document paths: the ones foreign keys and unique fields are checked on. */
  valid: { path: string; id: number | string; fields: Json }[];
}

/** Checks overlays (a sandbox's or a snapshot's) against the baseline, read once per document. */
function createOverlayChecker(db: OpenDatabase, context: CheckContext, problems: Problems) {
  const byName = new Map(context.collections.map((c) => [c.name, c]));
  const baseIds = new Map<number, Set<number>>();
  const baseValues = new Map<string, Map<number, string>>();
  const idsOf = (cid: number): Set<number> => {
    let ids = baseIds.get(cid);
    if (!ids) baseIds.set(cid, (ids = new Set(db.sqlite.prepare(`SELECT id FROM base WHERE cid = ?`).pluck().all(cid) as number[])));
    return ids;
  };
  /** Lowered values of a unique field across the baseline, by record id. */
  const valuesOf = (definition: CollectionDefinition, field: string): Map<number, string> => {
    const key = `${definition.cid}\0${field}`;
    let values = baseValues.get(key);
    if (!values) {
      const rows = db.sqlite.prepare(`SELECT id, json_extract(doc, ?) AS value FROM base WHERE cid = ?`).all(`$.${field}`, definition.cid) as {
        id: number;
        value: unknown;
      }[];
      values = new Map(rows.filter((r) => typeof r.value === 'string').map((r) => [r.id, lowerAscii(r.value as string)]));
      baseValues.set(key, values);
    }
    return values;
  };

  function checkRecords(view: CollectionView, overlay: Partial<ExportedOverlay>): void {
    const { definition, path } = view;
    const validate = validatorOf(definition);
    const baseline = idsOf(definition.cid);
    const created = overlay.created ?? [];
    const capName = definition.cap ?? 'createdPerCollection';
    const cap = context.limits[capName] ?? context.limits.createdPerCollection;
    if (created.length > cap) {
      problems.add(`${path}/created`, `holds ${created.length} records, over the cap of ${cap} created ${definition.name} per sandbox (limits.${capName})`);
    }
    for (const [state, records] of [
      [CREATED, created],
      [UPDATED, overlay.updated ?? []],
    ] as const) {
      records.forEach((record, k) => {
        const at = `${path}/${state === CREATED ? 'created' : 'updated'}/${k}`;
        const { id, _sandbox, ...fields } = record as Json & { id: number | string };
        if (state === CREATED) {
          if (view.created.has(id as string)) problems.add(`${at}/id`, 'appears twice in this collection');
          view.created.set(id as string, record);
        } else {
          if (!baseline.has(id as number)) problems.add(`${at}/id`, `names no ${definition.name} record of the baseline`);
          else if (view.updated.has(id as number)) problems.add(`${at}/id`, 'appears twice in this collection');
          view.updated.set(id as number, record);
        }
        const invalid = validate(fields);
        for (const problem of invalid) problems.add(`${at}${problem.path === '/' ? '' : problem.path}`, problem.message);
        if (!invalid.length) view.valid.push({ path: at, id, fields });
      });
    }
    (overlay.deleted ?? []).forEach((id, k) => {
      const at = `${path}/deleted/${k}`;
      if (!baseline.has(id)) problems.add(at, `names no ${definition.name} record of the baseline`);
      else if (view.deleted.has(id)) problems.add(at, 'appears twice in this collection');
      else if (view.updated.has(id)) problems.add(at, 'names a record that is also in "updated"');
      view.deleted.add(id);
    });
  }

  /**
   * Foreign keys name a record of the baseline or a created record. Not necessarily a visible one:
   * deletes do not cascade, so a reference to a tombstoned baseline record, or to a created record
   * deleted since (which leaves no trace), is a state the API produces, and its export must import.
   * An integer id that is not in the baseline at all never is.
   */
  function checkReferences(view: CollectionView): void {
    for (const record of view.valid) {
      for (const key of view.definition.foreignKeys) {
        const value = record.fields[key.field];
        if (value === undefined) continue;
        const id = parseRecordId(value)!;
        record.fields[key.field] = id;
        const target = byName.get(key.references);
        if (target === undefined || (typeof id === 'number' && !idsOf(target.cid).has(id))) {
          problems.add(`${record.path}/${escapePointer(key.field)}`, `names no ${key.references} record (neither in the baseline nor created in this sandbox)`);
        }
      }
    }
  }

  /** Unique fields, case-insensitively (ASCII, as SQLite's lower() compares them), over the resulting view. */
  function checkUnique(view: CollectionView): void {
    for (const field of view.definition.unique) {
      const taken = new Map<string, string>();
      for (const [id, value] of valuesOf(view.definition, field)) {
        if (!view.deleted.has(id) && !view.updated.has(id)) taken.set(value, `${view.definition.singular} ${id}`);
      }
      // Updated records first: they sit at their baseline place, before created ones in any order.
      const ordered = [...view.valid.filter((r) => typeof r.id === 'number'), ...view.valid.filter((r) => typeof r.id !== 'number')];
      for (const record of ordered) {
        const value = record.fields[field];
        if (typeof value !== 'string') continue;
        const lowered = lowerAscii(value);
        const owner = taken.get(lowered);
        if (owner !== undefined) problems.add(`${record.path}/${escapePointer(field)}`, `is already taken by ${owner} in this sandbox`);
        else taken.set(lowered, `${view.definition.singular} ${JSON.stringify(record.id)}`);
      }
    }
  }

  const customDefinitions = new Map<string, CollectionDefinition>();
  /** `custom.<name>`: a sandbox's custom collection (created records only: it has no baseline). */
  const customDefinitionOf = (name: string): CollectionDefinition | undefined => {
    const bare = name.slice(customPrefix.length);
    if (!name.startsWith(customPrefix) || !customNamePattern.test(bare)) return undefined;
    let definition = customDefinitions.get(name);
    if (!definition) customDefinitions.set(name, (definition = customDefinition(bare)));
    return definition;
  };

  return {
    check(path: string, collections: Record<string, Partial<ExportedOverlay>>): { rows: PlannedRow[]; counts: Record<string, number> } {
      const views = new Map<string, CollectionView>();
      let customHolding = 0;
      for (const [name, overlay] of Object.entries(collections)) {
        const definition = byName.get(name) ?? customDefinitionOf(name);
        const at = `${path}/${escapePointer(name)}`;
        if (!definition) {
          problems.add(at, `is not a collection of this mockapi (${[...byName.keys(), 'custom.<name>'].join(', ')})`);
          continue;
        }
        if (definition.open && overlay.created?.length && ++customHolding > (context.limits.customCollections ?? 20)) {
          problems.add(at, `is one custom collection more than limits.customCollections (${context.limits.customCollections ?? 20}) allows`);
        }
        const view: CollectionView = { definition, path: at, created: new Map(), updated: new Map(), deleted: new Set(), valid: [] };
        views.set(name, view);
        if (!problems.full) checkRecords(view, overlay);
      }
      for (const view of views.values()) {
        if (problems.full) break;
        checkReferences(view);
        checkUnique(view);
      }
      return toRows(views);
    },
  };
}

/** The rows to write: created records oldest first (so the newest gets the highest seq), then changes, then tombstones. */
function toRows(views: Map<string, CollectionView>): { rows: PlannedRow[]; counts: Record<string, number> } {
  const rows: PlannedRow[] = [];
  const counts: Record<string, number> = {};
  for (const [name, view] of views) {
    const { cid, open } = view.definition;
    const custom = open ? { custom: view.definition.name } : {};
    const fieldsOf = new Map(view.valid.map((r) => [r.id, r.fields]));
    const doc = (id: number | string, record: Json, sandbox: string) => {
      const { id: _id, _sandbox, ...fields } = record;
      return JSON.stringify({ id, ...(fieldsOf.get(id) ?? fields), _sandbox: sandbox });
    };
    for (const [id, record] of [...view.created].reverse()) rows.push({ cid, ...custom, id, state: CREATED, doc: doc(id, record, 'created') });
    for (const [id, record] of view.updated) rows.push({ cid, id, state: UPDATED, doc: doc(id, record, 'updated') });
    for (const id of view.deleted) rows.push({ cid, id, state: DELETED, doc: null });
    counts[name] = view.created.size + view.updated.size + view.deleted.size;
  }
  return { rows, counts };
}

function validatorOf(definition: CollectionDefinition): (record: unknown) => FieldProblem[] {
  let validate = recordValidators.get(definition);
  if (!validate) recordValidators.set(definition, (validate = createRecordValidator(definition)));
  return validate;
}

function compileSchema(): ValidateFunction {
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  (addFormats as unknown as (ajv: Ajv2020, formats: string[]) => void)(ajv, ['date-time']);
  return ajv.compile(JSON.parse(readFileSync(schemaFile, 'utf8')) as object);
}

/** Readable messages for the schema's patterns (ajv would print the regular expression). */
const patternMessages: Record<string, string> = {
  '^[A-Za-z0-9_-]{1,128}$': 'must be a sandbox id: 1-128 characters of A-Z a-z 0-9 _ -',
  '^(?!\\.\\.?$)[A-Za-z0-9_.-]{1,64}$': 'must be a snapshot name: 1-64 characters of A-Z a-z 0-9 _ . -, not "." or ".."',
  '^[a-z][a-z0-9_-]{0,63}$': 'is not a collection name',
  '^wh_[A-Za-z0-9_-]{1,64}$': 'must be a webhook id: wh_ and 1-64 characters of A-Z a-z 0-9 _ -',
  '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s]+$': 'must be an http(s) URL',
  '^(\\*|[a-z0-9_-]+(\\.[a-z0-9_-]+)*(\\.\\*)?)$': 'is not an event pattern (post.created, posts.*, *)',
  '^whsec_(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$': 'must be whsec_<base64 key> for the standard signature',
  '^local-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$': 'must be a created record id: local-<uuid v4>',
};

/** One problem per path, in the document's terms. */
function toSchemaProblems(errors: ErrorObject[]): FieldProblem[] {
  const byPath = new Map<string, FieldProblem>();
  for (const error of errors) {
    if (error.keyword === 'propertyNames') continue; // its inner error names the property itself
    let path = error.instancePath;
    let message = error.message ?? 'is invalid';
    if (error.propertyName !== undefined) path += `/${escapePointer(error.propertyName)}`;
    if (error.keyword === 'required') {
      path += `/${escapePointer(String(error.params.missingProperty))}`;
      message = 'is required';
    } else if (error.keyword === 'additionalProperties') {
      path += `/${escapePointer(String(error.params.additionalProperty))}`;
      message = 'is not allowed here';
    } else if (error.keyword === 'const') {
      message = `must be ${JSON.stringify(error.params.allowedValue)}`;
    } else if (error.keyword === 'pattern') {
      message = patternMessages[String(error.params.pattern)] ?? message;
    } else if (error.keyword === 'format') {
      message = 'must be an ISO 8601 date-time such as 2026-01-01T00:00:00.000Z';
    }
    if (!byPath.has(path || '/')) byPath.set(path || '/', { path: path || '/', message });
  }
  return [...byPath.values()];
}

function toTime(value: string | null | undefined, path: string, problems: Problems): number | undefined {
  if (value === null || value === undefined) return undefined;
  const time = Date.parse(value);
  if (Number.isNaN(time)) problems.add(path, 'must be a valid date-time');
  return time;
}

/** SQLite's lower() folds ASCII only; the engine's unique check uses it, so this must too. */
function lowerAscii(value: string): string {
  return value.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

function escapePointer(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}
