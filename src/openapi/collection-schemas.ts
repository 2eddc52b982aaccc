import type { CollectionDefinition, JsonSchema } from '../engine/definition.js';
import { maxFilterValues, maxSearchWords, maxSortKeys, maxValuesPerField, operators, scalarFields, type FieldKind } from '../engine/list-query.js';
import { liftDefs } from './lift-defs.js';
import { pascal, ref, type Parameter, type Schema } from './types.js';

/** The component names of a collection's schemas: `Post`, `PostInput`, `PostPatch`, `PostList`. */
export function schemaNames(definition: CollectionDefinition) {
  const base = pascal(definition.singular === definition.name ? `${definition.name}-record` : definition.singular);
  return { record: base, input: `${base}Input`, patch: `${base}Patch`, list: `${base}List` };
}

/**
 * A collection's schemas, from its definition (the one the validator compiles): the record as
 * answered (its fields, `id`, `_sandbox`, and the relations `_embed`/`_expand` add), the body of a
 * create or replace, the merge patch, and the list envelope.
 */
export function collectionSchemas(definition: CollectionDefinition, all: readonly CollectionDefinition[]): Record<string, Schema> {
  const names = schemaNames(definition);
  // What writes are validated by: a config-declared collection's schema (its `$defs` lifted into
  // components), else the fields and no other keys.
  const { [names.record]: given, ...defs } = definition.schema ? liftDefs(definition.schema, names.record) : {};
  const own = (given as JsonSchema | undefined) ?? { type: 'object', properties: definition.fields, required: definition.required, additionalProperties: false };
  const fields = mapFields((own.properties ?? {}) as Record<string, JsonSchema>);
  // Without a schema of its own, a declared collection's fields were read from its fixture: records have them.
  const answered = { ...mapFields(definition.fields), ...fields };
  const required = (own.required ?? []) as string[];
  const closed = !definition.open && own.additionalProperties === false;
  const { $schema: _s, $id: _i, type: _t, properties: _p, required: _r, ...rest } = toDoc(own as JsonSchema) as Schema;

  const relations = Object.fromEntries(
    definition.relations.map((relation) => {
      const target = all.find((c) => c.name === relation.collection);
      const item = target ? ref(schemaNames(target).record) : { type: 'object' };
      const schema = relation.kind === 'many' ? { type: 'array', items: item } : { anyOf: [item, { type: 'null' }] };
      return [relation.name, { ...schema, description: `Added by \`${relation.kind === 'many' ? '_embed' : '_expand'}=${relation.name}\`.` }];
    }),
  );
  const server = { id: ref('RecordId'), _sandbox: ref('SandboxMark') };
  const record: Schema = {
    ...rest,
    type: 'object',
    required: ['id', ...required],
    properties: { ...server, ...answered, ...relations },
    additionalProperties: !closed,
  };
  // `id` and `_sandbox` may ride along in a body (a PUT's id must equal the path's); the server sets both.
  const input: Schema = { ...rest, type: 'object', required, properties: { ...server, ...fields }, additionalProperties: !closed };
  const patch: Schema = {
    type: 'object',
    description: 'A JSON merge patch (RFC 7396): any subset of the fields; `null` clears an optional field.',
    properties: { ...server, ...Object.fromEntries(Object.entries(fields).map(([name, schema]) => [name, required.includes(name) ? schema : nullable(schema)])) },
    additionalProperties: !closed,
  };
  const list: Schema = {
    type: 'object',
    required: ['data', 'pagination'],
    properties: { data: { type: 'array', items: ref(names.record) }, pagination: ref('Pagination') },
  };
  return { ...defs, [names.record]: record, [names.input]: input, [names.patch]: patch, [names.list]: list };
}

/** A field's schema as the document shows it: `x-record-id` (the validator's keyword) becomes `RecordId`. */
function mapFields(properties: Record<string, JsonSchema>): Record<string, Schema> {
  return Object.fromEntries(Object.entries(properties).map(([name, schema]) => [name, toDoc(schema)]));
}

function toDoc(schema: JsonSchema): Schema {
  if (schema['x-record-id']) {
    const { 'x-record-id': _x, ...rest } = schema;
    return Object.keys(rest).length ? { allOf: [ref('RecordId')], ...rest } : ref('RecordId');
  }
  const out: Schema = { ...schema };
  if (schema.properties) out.properties = mapFields(schema.properties);
  if (schema.items && typeof schema.items === 'object') out.items = toDoc(schema.items as JsonSchema);
  return out;
}

/** The schema or null, in the form the 3.0 converter turns into `nullable`. */
function nullable(schema: Schema): Schema {
  if (typeof schema.type === 'string') return { ...schema, type: [schema.type, 'null'] };
  if (Array.isArray(schema.type)) return schema.type.includes('null') ? schema : { ...schema, type: [...schema.type, 'null'] };
  return { anyOf: [schema, { type: 'null' }] };
}

const kindSchema: Record<FieldKind, Schema> = {
  string: { type: 'string' },
  number: { type: 'number' },
  integer: { type: 'integer' },
  boolean: { type: 'boolean' },
  id: ref('RecordId'),
  any: { type: 'string' },
};

const param = (name: string): Schema => ({ $ref: `#/components/parameters/${name}` });

/** Paging parameters of every list, as components: `page`/`limit` with json-server's aliases, and the cursor. */
export function pagingParameterComponents(maxPageSize: number): Record<string, Parameter> {
  const page = { type: 'integer', minimum: 1, default: 1 };
  const limit = { type: 'integer', minimum: 1, maximum: maxPageSize, default: 10 };
  return {
    Page: { name: 'page', in: 'query', description: '1-based; past the end gives an empty `data`.', schema: page },
    PageAlias: { name: '_page', in: 'query', description: "json-server's name for `page`.", deprecated: true, schema: page },
    Limit: { name: 'limit', in: 'query', description: `Records per page, 1 to ${maxPageSize} (\`limits.maxPageSize\`).`, schema: limit },
    LimitAlias: { name: '_limit', in: 'query', description: "json-server's name for `limit`.", deprecated: true, schema: limit },
    PerPageAlias: { name: '_per_page', in: 'query', description: "json-server v1's name for `limit`.", deprecated: true, schema: limit },
    Cursor: { name: 'cursor', in: 'query', description: "A previous page's `pagination.nextCursor`; replaces `page`. 400 `INVALID_CURSOR` when it is not one.", schema: { type: 'string' } },
    Order: { name: '_order', in: 'query', description: '`asc` or `desc` for every `_sort` field, or a comma list pairing with them.', schema: { type: 'string', pattern: '^(?:asc|desc)(?:,(?:asc|desc))*$' } },
  };
}

/** References to the paging parameters; `cursor` where the list walks by one. */
export function pagingParameters(options: { cursor: boolean }): Schema[] {
  return ['Page', 'PageAlias', 'Limit', 'LimitAlias', 'PerPageAlias', ...(options.cursor ? ['Cursor'] : [])].map(param);
}

/** `_embed`/`_expand` of a collection: its relations of each kind, by name. */
function relationComponents(definition: CollectionDefinition): Record<string, Parameter> {
  const base = schemaNames(definition).record;
  const of = (kind: 'many' | 'one') => definition.relations.filter((r) => r.kind === kind).map((r) => r.name);
  const out: Record<string, Parameter> = {};
  for (const [name, names, what, key] of [
    ['_embed', of('many'), "adds each record's children", 'Embed'],
    ['_expand', of('one'), 'adds the record each one points at', 'Expand'],
  ] as const) {
    if (!names.length) continue;
    out[`${base}${key}`] = {
      name,
      in: 'query',
      description: `${what}: a comma list or repeated.`,
      style: 'form',
      explode: true,
      schema: { type: 'array', items: { type: 'string', enum: names }, uniqueItems: true },
    };
  }
  return out;
}

/**
 * The list parameters of a collection (contract section 5) as components, with the list parser's
 * bounds: `q`, `_sort`, `_embed`/`_expand`, and the field filters as one exploded object
 * (`user_id=1&title_like=x`), typed by the fields the parser accepts.
 */
export function collectionParameterComponents(definition: CollectionDefinition): Record<string, Parameter> {
  const base = schemaNames(definition).record;
  const sortable = definition.open ? undefined : [...scalarFields(definition).keys()].map(escapeRegex).join('|');
  const searched = definition.open ? 'every text value' : definition.searchable.map((f) => `\`${f}\``).join(', ');
  return {
    [`${base}Search`]: {
      name: 'q',
      in: 'query',
      description: `Full-text search over ${searched}: every word must match (a word also matches as a prefix), case-insensitive; at most ${maxSearchWords} words. Without \`_sort\`: best match first.`,
      schema: { type: 'string' },
    },
    [`${base}Sort`]: {
      name: '_sort',
      in: 'query',
      description: `Sorts by fields, a leading \`-\` for descending: \`_sort=-id\` (at most ${maxSortKeys}). Ties are broken by id.`,
      schema: sortable ? { type: 'string', pattern: `^-?(?:${sortable})(?:,-?(?:${sortable})){0,${maxSortKeys - 1}}$` } : { type: 'string' },
    },
    ...relationComponents(definition),
    [`${base}Filters`]: {
      name: 'filters',
      in: 'query',
      description: `Field filters: \`field=v\` (repeat for OR), \`field_ne\`, \`_gt\`, \`_gte\`, \`_lt\`, \`_lte\`, and \`field_like\` (case-insensitive substring, text fields). Up to ${maxValuesPerField} values a field, ${maxFilterValues} in all. An unknown field is 400 \`INVALID_QUERY\`.`,
      style: 'form',
      explode: true,
      schema: filterSchema(definition),
    },
  };
}

/** References to `_embed`/`_expand` of a collection (single-record reads take them too). */
export function relationParameters(definition: CollectionDefinition): Schema[] {
  return Object.keys(relationComponents(definition)).map(param);
}

/** References to every parameter of a collection's list. */
export function listParameters(definition: CollectionDefinition): Schema[] {
  const base = schemaNames(definition).record;
  return [...pagingParameters({ cursor: true }), param(`${base}Search`), param(`${base}Sort`), param('Order'), ...relationParameters(definition), param(`${base}Filters`)];
}

function filterSchema(definition: CollectionDefinition): Schema {
  const repeated = (schema: Schema): Schema => ({ anyOf: [schema, { type: 'array', items: schema, maxItems: maxValuesPerField }] });
  if (definition.open) {
    return { type: 'object', description: 'Any top-level or dotted field path; values are compared as the JSON type each record holds there.', additionalProperties: repeated({ type: 'string' }) };
  }
  const properties: Record<string, Schema> = {};
  for (const [field, kind] of scalarFields(definition)) {
    properties[field] = repeated(kindSchema[kind]);
    for (const op of operators) {
      if (op === 'like' && kind !== 'string') continue;
      if (kind === 'boolean' && op !== 'ne') continue;
      properties[`${field}_${op}`] = repeated(kindSchema[kind]);
    }
  }
  return { type: 'object', properties, additionalProperties: false };
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
