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
}

/** Builds a definition with the defaults filled in. */
export function defineCollection(definition: Omit<CollectionDefinition, 'foreignKeys' | 'unique' | 'searchable'> & Partial<CollectionDefinition>): CollectionDefinition {
  return { foreignKeys: [], unique: [], searchable: [], ...definition };
}
