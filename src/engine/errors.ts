/**
 * The engine's errors: what went wrong, in the domain's words, with a stable upper-snake `code`
 * and no HTTP (STYLE.md: "it throws domain errors"). `src/http/problem.ts` words each code as a
 * problem+json answer (status, title); GraphQL puts the same in its error extensions. The engine
 * returns `undefined` for a missing record where a caller may take that as an answer.
 */
export interface FieldProblem {
  /** JSON Pointer into the request body, e.g. `/address/geo/lat`; in an uploaded table, the cell (`B3`), row (`3`) or `''` for the file. */
  path: string;
  message: string;
  /** In an uploaded table (CSV, XLSX): the 1-based row and column, as a spreadsheet shows them. */
  row?: number;
  column?: number;
}

export type DomainCode =
  | 'NOT_FOUND'
  | 'INVALID_QUERY'
  | 'INVALID_CURSOR'
  | 'VALIDATION_FAILED'
  | 'CONFLICT'
  | 'QUOTA_EXCEEDED'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'INVALID_TABLE'
  | 'INVALID_NAME';

export class DomainError extends Error {
  override name = 'DomainError';
  constructor(
    readonly code: DomainCode,
    detail: string,
    readonly errors?: FieldProblem[],
  ) {
    super(detail);
  }
}

export const notFound = (detail: string) => new DomainError('NOT_FOUND', detail);

export const invalidQuery = (parameter: string, reason: string) => new DomainError('INVALID_QUERY', `query parameter "${parameter}" ${reason}`);

export const invalidCursor = (reason: string) => new DomainError('INVALID_CURSOR', `query parameter "cursor" ${reason}; start again without it`);

export const validationFailed = (errors: FieldProblem[]) =>
  new DomainError('VALIDATION_FAILED', errors.length === 1 ? `${errors[0].path} ${errors[0].message}` : `${errors.length} fields are invalid`, errors);

export const conflict = (detail: string, errors?: FieldProblem[]) => new DomainError('CONFLICT', detail, errors);

export const quotaExceeded = (detail: string) => new DomainError('QUOTA_EXCEEDED', detail);

/** The caller must identify itself first (no token where one is required). */
export const unauthorized = (detail: string) => new DomainError('UNAUTHORIZED', detail);

/** The caller is known and may not do this. */
export const forbidden = (detail: string) => new DomainError('FORBIDDEN', detail);

export const invalidTable = (detail: string, errors: FieldProblem[]) => new DomainError('INVALID_TABLE', detail, errors);

export const invalidName = (detail: string) => new DomainError('INVALID_NAME', detail);
