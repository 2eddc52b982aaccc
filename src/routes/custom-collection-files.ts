import type { H3, H3Event } from 'h3';
import { contextOf } from '../http/context.js';
import { unsupportedMediaType } from '../errors.js';
import { invalidQuery, invalidTable, type FieldProblem } from '../engine/errors.js';
import { columnLetters, type TableProblem } from '../formats/table-error.js';
import { csvContentType, xlsxContentType } from '../formats/content-types.js';
import type { Runtime } from '../runtime.js';
import { maxRecordDepth } from '../engine/validate.js';
import { readBytes } from './_body.js';
import { route } from './_resource.js';
import { checkedByTheEngine } from './collections.js';
import { customNameOf } from './custom-collections.js';

/** Columns an uploaded table may have: far more than a record shows, far fewer than a hostile sheet. */
const maxColumns = 512;
/** What an XLSX may inflate to before exceljs reads it (it holds every part in memory). */
const maxUncompressedBytes = 32 * 1024 * 1024;
/** The parsers load on the first export or import: exceljs alone costs every start ~250 ms. */
const tables = () => import('../formats/tables.js');

/**
 * `GET /api/v1/custom/{name}/export?format=csv|xlsx` and `POST /api/v1/custom/{name}/import` (a
 * CSV or XLSX body, by Content-Type): a custom collection as a spreadsheet and back (contract
 * section 10). The rules of the tables are in `formats/tables.ts`; an import creates every row
 * as a `POST` would, all or none.
 */
export function addCustomCollectionFileRoutes(app: H3, runtime: Runtime): void {
  const { engine } = runtime;
  const nameOf = customNameOf;

  route(app, '/api/v1/custom/:name/export', {
    GET: {
      scope: checkedByTheEngine,
      scopeText: '{name}:read or custom:read',
      handler: async (event) => {
        const name = nameOf(event);
        // Read first: the engine refuses a caller without the scope before the format is looked at.
        const records = engine.for(contextOf(event)).customRecords(name);
        const format = event.url.searchParams.get('format') ?? 'csv';
        if (format !== 'csv' && format !== 'xlsx') throw invalidQuery('format', 'must be csv or xlsx');
        const { recordsToCsv, recordsToXlsx } = await tables();
        const body = format === 'csv' ? recordsToCsv(records) : new Uint8Array(await recordsToXlsx(records, name));
        return new Response(body, {
          headers: {
            'content-type': format === 'csv' ? csvContentType : xlsxContentType,
            'content-disposition': `attachment; filename="${name}.${format}"`,
          },
        });
      },
    },
  });

  route(app, '/api/v1/custom/:name/import', {
    POST: {
      scope: checkedByTheEngine,
      scopeText: '{name}:write or custom:write',
      // The file is read and parsed once the engine has authorized the caller.
      handler: async (event) => {
        const name = nameOf(event);
        const created = await engine.for(contextOf(event)).importCustom(name, () => recordsOf(event, runtime));
        return { message: `${created.length} record${created.length === 1 ? '' : 's'} imported into ${name}`, collection: name, imported: created.length, ids: created.map((r) => r.id) };
      },
    },
  });
}

/** Checks the upload's type, reads it and parses it into records (400 INVALID_TABLE naming the cells at fault). */
async function recordsOf(event: H3Event, runtime: Runtime): Promise<Record<string, unknown>[]> {
  const type = (event.req.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const csv = type === 'text/csv' || type === 'application/csv';
  if (!csv && type !== xlsxContentType) {
    throw unsupportedMediaType(`send the file as text/csv or ${xlsxContentType}${type ? `, not ${type}` : ''}`);
  }
  const bytes = await readBytes(event, runtime.config.limits.bodyBytes);
  // Expanded, a workbook's cells may hold no more text than it may inflate to.
  const limits = { maxRows: runtime.config.limits.customRecords, maxColumns, maxUncompressedBytes, maxDepth: maxRecordDepth, maxExpandedText: maxUncompressedBytes };
  const { csvToRecords, xlsxToRecords, TableError } = await tables();
  try {
    return csv ? csvToRecords(bytes, limits) : await xlsxToRecords(bytes, limits);
  } catch (error) {
    if (error instanceof TableError) throw invalidTable(`the ${csv ? 'CSV' : 'XLSX'} file cannot be imported: ${error.message}`, error.problems.map(located));
    throw error;
  }
}

/** A table problem as the problem's `errors` entry: the cell (`B3`), the row (`3`) or the file (`''`). */
function located(problem: TableProblem): FieldProblem {
  const { row, column, message } = problem;
  const path = row === undefined ? '' : column === undefined ? String(row) : `${columnLetters(column)}${row}`;
  return { path, ...(row === undefined ? {} : { row }), ...(column === undefined ? {} : { column }), message };
}
