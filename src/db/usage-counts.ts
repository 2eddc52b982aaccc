import type { Sqlite } from './open.js';

/**
 * The database-wide counts `/metrics` reports, read at scrape time: each is one indexed count
 * (`sandboxes_holding`; the overlay's smallest index), milliseconds even on a busy file.
 */
export function createUsageCounts(sqlite: Sqlite) {
  const holding = sqlite.prepare(`SELECT count(*) FROM sandboxes WHERE holds = 1`).pluck();
  const overlayRows = sqlite.prepare(`SELECT count(*) FROM overlay`).pluck();
  const deliveries = sqlite.prepare(`SELECT status, count(*) AS n FROM deliveries GROUP BY status`);
  return {
    sandboxesHoldingData: () => holding.get() as number,
    overlayRows: () => overlayRows.get() as number,
    /** Stored webhook deliveries by status (`pending`, `succeeded`, `failed`). */
    deliveriesByStatus: () => new Map((deliveries.all() as { status: string; n: number }[]).map((row) => [row.status, row.n])),
  };
}
