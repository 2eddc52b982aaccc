/** The list envelope's `pagination` (contract section 5), the same for every list the API serves. */
export interface Pagination {
  page: number;
  limit: number;
  total: number;
  totalPages: number;
  hasNextPage: boolean;
  hasPrevPage: boolean;
  nextCursor: string | null;
}

/**
 * The pagination of a page that starts after `before` records of `total`, `limit` long.
 * `hasNextPage` may be given when the caller knows better (a cursor walk counts what remains);
 * `nextCursor` only counts when there is a next page.
 */
export function paginationOf(before: number, limit: number, total: number, next: { hasNextPage?: boolean; cursor?: string | null } = {}): Pagination {
  const hasNextPage = next.hasNextPage ?? before + limit < total;
  return {
    page: Math.floor(before / limit) + 1,
    limit,
    total,
    totalPages: Math.ceil(total / limit),
    hasNextPage,
    hasPrevPage: before > 0,
    nextCursor: hasNextPage ? (next.cursor ?? null) : null,
  };
}
