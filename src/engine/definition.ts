/**
 * A collection is data, not code: the engine serves any definition the same way, so core
 * collections and the custom ones of a later layer share every rule.
 */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  description?: string;
  [keyword: string]: unknown;
}

export interface ForeignKey {
  /** Field of this collection holding the id, e.g. `user_id`. */
  field: string;
  /** Collection the id must name a visible record of, e.g. `users`. */
  references: string;
}

/**
 * A link to another collection, served as a sub-resource (`/posts/1/comments`, `/posts/1/user`)
 * and by `_embed` (many) and `_expand` (one).
 */
export interface Relation {
  /** The sub-resource path segment and the key added to each record: `comments`, `user`. */
  name: string;
  /** many: records of `collection` pointing at this one; one: the record this one points at. */
  kind: 'many' | 'one';
  collection: string;
  /** many: the other collection's field holding this record's `key`; one: this record's field holding the other's id. */
  field: string;
  /** many: the field of this record that `field` matches; `id` unless said otherwise (users' comments match by email). */
  key?: string;
}

export interface CollectionDefinition {
  /** Plural, URL-facing name: `posts`. */
  name: string;
  /** Singular, for event names and messages: `post`. */
  singular: string;
  /** Stable small integer stored in every row instead of the name. */
  cid: number;
  /** JSON Schema of the record's own fields (not `id`, not `_sandbox`). */
  fields: Record<string, JsonSchema>;
  required: string[];
  foreignKeys: ForeignKey[];
  /** Fields unique within a sandbox's view, compared case-insensitively. */
  unique: string[];
  /** Text fields covered by full-text search. */
  searchable: string[];
  /** A field the engine fills with the creation time when the client leaves it out. */
  createdAt?: string;
  relations: Relation[];
  /**
   * Any JSON object is a record (a per-sandbox custom collection): no declared fields, every
   * top-level or dotted path may be filtered and sorted, filter values compared as the JSON type
   * each record holds there, and `searchable` may be `['*']` (every string value).
   */
  open?: boolean;
  /** The event name's prefix: `post` gives `post.created`; custom collections use `custom.<name>`. */
  event?: string;
  /** Which limit bounds the records a sandbox creates in it (`createdPerCollection` unless said). */
  cap?: 'createdPerCollection' | 'customRecords';
  /**
   * The whole record's JSON Schema, when writes are validated by a schema a user gave (config-declared
   * collections) rather than by `fields`, `required` and no other keys. `fields` then only says what
   * filters, `_sort` and GraphQL know of the record.
   */
  schema?: JsonSchema;
  /** The baseline file, when it is not `<fixtures>/<name>.json` (config-declared collections). */
  fixture?: string;
}

/** Builds a definition with the defaults filled in. */
export function defineCollection(
  definition: Omit<CollectionDefinition, 'foreignKeys' | 'unique' | 'searchable' | 'relations'> & Partial<CollectionDefinition>,
): CollectionDefinition {
  return { foreignKeys: [], unique: [], searchable: [], relations: [], ...definition };
}
