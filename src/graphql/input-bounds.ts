import { GraphQLError } from 'graphql';
import { nestingDepth } from '../json-depth.js';

/**
 * Bounds on what a request sends, checked before graphql-js sees it: its parser, the literal
 * and variable coercion and the engine's copies all recurse, and a request nested thousands
 * deep overflows the stack (a 500). Both checks are iterative.
 *
 * Brackets: 10 field levels (16 for introspection) plus arguments and a record literal nested
 * as deep as REST allows (32) stay well below 64. Variables: a record (32 levels) sits one or
 * two levels inside them; the engine's own bound refuses what is too deep for a record.
 * Tokens: graphql-js's `maxTokens`, so a long flat query cannot make validation (some rules
 * compare fields pairwise) work for seconds; 2,000 selections with arguments fit well within.
 */
export const inputBounds = { brackets: 64, variableDepth: 64, tokens: 50_000 };

/** Deepest nesting of `{ ( [` in a query text, skipping strings, block strings and comments; stops past `max`. */
export function bracketDepth(query: string, max = inputBounds.brackets): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < query.length; i++) {
    const c = query[i];
    if (c === '#') {
      while (i < query.length && query[i] !== '\n' && query[i] !== '\r') i++;
    } else if (c === '"' && query.startsWith('"""', i)) {
      // A block string ends at the next unescaped `"""` (`\"""` is an escaped one).
      for (i += 3; i < query.length && !(query.startsWith('"""', i) && query[i - 1] !== '\\'); i++);
      i += 2;
    } else if (c === '"') {
      for (i++; i < query.length && query[i] !== '"' && query[i] !== '\n'; i++) if (query[i] === '\\') i++;
    } else if (c === '{' || c === '(' || c === '[') {
      if (++depth > deepest && (deepest = depth) > max) return deepest;
    } else if ((c === '}' || c === ')' || c === ']') && depth > 0) {
      depth--;
    }
  }
  return deepest;
}

/** The errors refusing a request's query text or variables before parsing, if any. */
export function checkInput(query: string, variables: unknown): GraphQLError[] | undefined {
  if (bracketDepth(query) > inputBounds.brackets) {
    return [new GraphQLError(`the query nests deeper than ${inputBounds.brackets} brackets`, { extensions: { code: 'QUERY_TOO_DEEP' } })];
  }
  if (nestingDepth(variables, inputBounds.variableDepth) > inputBounds.variableDepth) {
    return [new GraphQLError(`the variables nest deeper than ${inputBounds.variableDepth} levels`, { extensions: { code: 'VARIABLES_TOO_DEEP' } })];
  }
  return undefined;
}
