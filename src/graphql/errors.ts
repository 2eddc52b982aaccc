import { GraphQLError } from 'graphql';
import { toHttpError } from '../http/problem.js';

/**
 * Errors leave as GraphQL errors (contract section 9), never problem+json: an engine error keeps
 * its code, the status REST would answer (`http/problem.ts`) and field paths in `extensions` (`VALIDATION_FAILED` with `errors: [{path,
 * message}]`, `FORBIDDEN`, `INVALID_QUERY`...); anything unexpected hides its internals.
 */
export function createErrorFormatter(onUnexpected: (error: unknown) => void) {
  return (error: Readonly<GraphQLError | Error>): GraphQLError | Error => {
    if (!(error instanceof GraphQLError)) return error;
    const cause = error.originalError;
    const problem = toHttpError(cause);
    if (problem) {
      return new GraphQLError(problem.message, {
        nodes: error.nodes,
        source: error.source,
        positions: error.positions,
        path: error.path,
        extensions: { code: problem.code, status: problem.status, ...(problem.errors ? { errors: problem.errors } : {}) },
      });
    }
    if (cause && !(cause instanceof GraphQLError)) {
      onUnexpected(cause);
      return new GraphQLError('the server failed to resolve this field', { nodes: error.nodes, path: error.path, extensions: { code: 'INTERNAL_ERROR' } });
    }
    if (error.extensions.code) return error;
    // Without a path it comes from parsing or validation: the request, not the data, is wrong.
    return new GraphQLError(error.message, {
      nodes: error.nodes,
      source: error.source,
      positions: error.positions,
      path: error.path,
      extensions: { ...error.extensions, code: error.path ? 'BAD_REQUEST' : error.message.startsWith('Syntax Error') ? 'GRAPHQL_PARSE_FAILED' : 'GRAPHQL_VALIDATION_FAILED' },
    });
  };
}
