import { CsvError } from 'csv-parse';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { fromCsvCell } from './cell-text.js';
import { flattenRecords, type Cell } from './flatten.js';
import { ProblemList, TableError, tableError } from './table-error.js';
import { isBlankRow, readHeader, toRecord, type Value } from './unflatten.js';

/**
 * CSV (RFC 4180): comma-separated, `"` quoting, CRLF between rows, UTF-8 with a byte order
 * mark. The BOM is what makes Excel read the file as UTF-8 instead of the system code page (so
 * emoji and accents survive a double-click); the importer accepts files with and without it.
 */
export interface CsvLimits {
  /** Data rows (blank rows included) beyond the header; one more is an error, found early. */
  maxRows: number;
  maxColumns: number;
  /** Levels a record may nest (the record is level 1): dotted columns plus a JSON cell's own. */
  maxDepth: number;
}

export function recordsToCsv(records: readonly Record<string, unknown>[]): string {
  const { columns, rows } = flattenRecords(records);
  return stringify([columns, ...rows.map((row) => row.map(toText))], {
    bom: true,
    record_delimiter: 'windows',
    // An empty string is quoted (`""`) so it comes back as "" rather than as a missing field.
    // A CR or LF must be quoted whatever the row delimiter, or a reader that splits on either
    // would cut the row; leading/trailing spaces are quoted for readers that trim bare cells.
    quoted_match: [/^$/, /[\r\n]/, /^\s|\s$/],
  });
}

function toText(cell: Cell): string | undefined {
  if (cell === undefined || typeof cell === 'string') return cell;
  return String(cell);
}

/** Marks a quoted empty cell, which is the empty string, not a missing field. */
const quotedEmpty = Symbol('quoted empty cell');
type RawCell = string | typeof quotedEmpty;

export function csvToRecords(bytes: Uint8Array, limits: CsvLimits): Record<string, Value>[] {
  const table = parseRows(decodeUtf8(bytes), limits.maxRows);
  const [header, ...data] = table;
  if (!header || isBlankRow(header.map(cellValue))) throw tableError('the first row must name the columns; it is empty', 1);
  if (data.length > limits.maxRows) throw tableError(`the table has more than ${limits.maxRows} data rows`, limits.maxRows + 2);
  const problems = new ProblemList();
  const paths = readHeader(header.map((cell) => (cell === quotedEmpty ? '' : cell)), limits, problems);
  problems.throwIfAny();
  const records: Record<string, Value>[] = [];
  data.forEach((cells, i) => {
    const row = i + 2;
    const values = cells.map(cellValue);
    if (isBlankRow(values)) return;
    if (cells.length !== paths.length) {
      const column = Math.min(cells.length, paths.length) + 1;
      problems.add({ row, column, message: `the row has ${cells.length} cells but the header names ${paths.length} columns` });
      return;
    }
    records.push(toRecord(paths, values, row, limits, problems));
  });
  problems.throwIfAny();
  return records;
}

function cellValue(cell: RawCell): Value | undefined {
  return cell === quotedEmpty ? fromCsvCell('', true) : fromCsvCell(cell, false);
}

function decodeUtf8(bytes: Uint8Array): string {
  try {
    // Strips one leading BOM (ignoreBOM is false), and refuses bytes that are not UTF-8 rather
    // than turning them into U+FFFD: a file saved as Latin-1 should be re-saved, not mangled.
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw tableError('the file is not UTF-8 text; save it as "CSV UTF-8"');
  }
}

/** Header + data rows as text; stops after one row too many, so a huge file is never all parsed. */
function parseRows(text: string, maxRows: number): RawCell[][] {
  try {
    return parse(text, {
      cast: (value, context) => (value === '' && context.quoting ? quotedEmpty : value),
      // Ragged rows are reported by row number below, several at a time.
      relax_column_count: true,
      // Blank lines stay rows (then skipped) so row numbers match what a spreadsheet shows.
      skip_empty_lines: false,
      to: maxRows + 2,
    }) as RawCell[][];
  } catch (error) {
    if (error instanceof CsvError) {
      const at = error as CsvError & { records?: number; column?: number };
      const row = typeof at.records === 'number' ? at.records + 1 : undefined;
      const column = typeof at.column === 'number' ? at.column + 1 : undefined;
      // One numbering: csv-parse's "at line 3" counts physical lines (a quoted cell may hold line
      // breaks; an unclosed quote ends past the last one) and "on field 1" from 0; row and column say where.
      const reason = error.message.replace(/ (at line|on field) \d+/g, '').slice(0, 200);
      throw new TableError([{ ...(row ? { row } : {}), ...(column ? { column } : {}), message: `malformed CSV: ${reason}` }]);
    }
    throw error;
  }
}
