import type { CollectionDefinition, Relation } from './definition.js';
import type { Json, StoreContext } from './collection-store.js';

/**
 * `_embed` and `_expand`: each relation costs one query per page, whatever the page size. The
 * related records are read with the parents' keys as one JSON array (`IN json_each(...)`), then
 * handed out to their parents here.
 */
export function attachRelations(context: StoreContext, definition: CollectionDefinition, sid: number, records: Json[], names: string[]): void {
  for (const name of names) {
    const relation = definition.relations.find((r) => r.name === name);
    if (!relation) continue;
    const values = relatedOf(context, sid, relation, records);
    if (values) records.forEach((record, i) => (record[relation.name] = values[i]));
  }
}

/**
 * Each record's related value in one statement: `many`, the children (default order); `one`, the
 * parent, or null when the sandbox cannot see it. Undefined when the target collection is unknown.
 * GraphQL's per-request loaders batch through this too.
 */
export function relatedOf(context: StoreContext, sid: number, relation: Relation, records: Json[]): (Json[] | Json | null)[] | undefined {
  const target = context.collection(relation.collection);
  if (!target) return undefined;
  if (relation.kind === 'many') {
    const key = relation.key ?? 'id';
    const children = relatedRecords(context, target, sid, relation, records.map((r) => r[key]));
    const byKey = new Map<unknown, Json[]>();
    for (const child of children) {
      const list = byKey.get(child[relation.field]);
      if (list) list.push(child);
      else byKey.set(child[relation.field], [child]);
    }
    return records.map((record) => byKey.get(record[key]) ?? []);
  }
  const parents = relatedRecords(context, target, sid, relation, records.map((r) => r[relation.field]));
  const byId = new Map(parents.map((p) => [p.id, p]));
  // A parent the sandbox deleted is absent: null says so without failing the page.
  return records.map((record) => byId.get(record[relation.field]) ?? null);
}

function relatedRecords(context: StoreContext, target: CollectionDefinition, sid: number, relation: Relation, keys: unknown[]): Json[] {
  const values = [...new Set(keys.filter((k) => typeof k === 'number' || typeof k === 'string'))];
  if (!values.length) return [];
  const bind = { sid, cid: target.cid, values: JSON.stringify(values) };
  const docs = (relation.kind === 'one' ? context.view.relatedById.all(bind) : context.view.relatedByField.all({ ...bind, path: `$.${relation.field}` })) as string[];
  return docs.map((doc) => JSON.parse(doc) as Json);
}
