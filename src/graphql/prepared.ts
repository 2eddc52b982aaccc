import { GraphQLError, Kind, parse, validate, visit, type DocumentNode, type GraphQLSchema } from 'graphql';
import { inputBounds } from './input-bounds.js';
import { createLimitRule, limitArguments, limitValue } from './limits.js';

/** Distinct query texts remembered; clients send the same few queries over and over. */
const maxDocuments = 500;
/** Longer texts are parsed every time rather than held in memory. */
const maxCachedQuery = 16 * 1024;
/**
 * Query text the cache holds in all. A parsed document weighs up to ~170 times its text (a node
 * and its location per token: 150 distinct 15 KB queries held 375 MB), so this bounds the cache
 * to about 45 MB; hundreds of everyday queries (under 2 KB) fit.
 */
const maxCachedText = 256 * 1024;
/** `limit` value sets remembered per document for the limit check. */
const maxVariableSets = 32;

interface Entry {
  document: DocumentNode;
  errors: readonly GraphQLError[];
  /** The variables passed as a `limit`: the only ones the limit check reads. */
  limitVariables: readonly string[];
  /** Limit check answers by those variables' values (never by the whole variable set, which may be megabytes). */
  limits: Map<string, readonly GraphQLError[]>;
}

function limitVariablesOf(document: DocumentNode): string[] {
  const names = new Set<string>();
  visit(document, {
    Argument(node) {
      if (limitArguments.includes(node.name.value) && node.value.kind === Kind.VARIABLE) names.add(node.value.name.value);
    },
  });
  return [...names];
}

/**
 * Parsing and validating a query cost several times its execution (graphql-js runs ~27 visitor
 * rules per request), and both depend only on the query text with a fixed schema: the answer is
 * kept per text (a bounded LRU). The limit check depends on the values of `limit` variables too,
 * so it is kept per set of those values. Either way the request is refused before anything runs.
 */
export function createDocumentCache(schema: GraphQLSchema) {
  const entries = new Map<string, Entry>();
  let cachedText = 0;

  const entryOf = (query: string): Entry => {
    const known = entries.get(query);
    if (known) {
      // Most recently used last, so the first key is the one to evict.
      entries.delete(query);
      entries.set(query, known);
      return known;
    }
    let document: DocumentNode;
    try {
      document = parse(query, { maxTokens: inputBounds.tokens });
    } catch (error) {
      if (error instanceof GraphQLError) return { document: undefined as never, errors: [error], limitVariables: [], limits: new Map() };
      throw error;
    }
    const errors = validate(schema, document);
    const entry = { document, errors, limitVariables: errors.length ? [] : limitVariablesOf(document), limits: new Map() };
    if (query.length <= maxCachedQuery) {
      // The least recently used go first (the first keys), until the new one fits.
      for (const oldest of entries.keys()) {
        if (entries.size < maxDocuments && cachedText + query.length <= maxCachedText) break;
        entries.delete(oldest);
        cachedText -= oldest.length;
      }
      entries.set(query, entry);
      cachedText += query.length;
    }
    return entry;
  };

  /** The parsed document, or the errors that refuse it (syntax, validation, depth, cost, aliases). */
  return (query: string, variables: Readonly<Record<string, unknown>> | null | undefined): { document: DocumentNode } | { errors: readonly GraphQLError[] } => {
    const entry = entryOf(query);
    if (entry.errors.length) return { errors: entry.errors };
    const key = entry.limitVariables.map((name) => limitValue(variables?.[name]) ?? '').join(',');
    let limits = entry.limits.get(key);
    if (!limits) {
      limits = validate(schema, entry.document, [createLimitRule(variables)]);
      if (entry.limits.size < maxVariableSets) entry.limits.set(key, limits);
    }
    return limits.length ? { errors: limits } : { document: entry.document };
  };
}
