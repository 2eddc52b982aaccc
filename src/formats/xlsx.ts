import ExcelJS from 'exceljs';
import { fromStringCell } from './cell-text.js';
import { flattenRecords } from './flatten.js';
import { ProblemList, tableError, TableError } from './table-error.js';
import { isBlankRow, readHeader, toRecord, type Value } from './unflatten.js';
import { guardXlsxZip, type ZipBounds } from './zip-guard.js';

/**
 * XLSX: one worksheet, the header in row 1 (bold, frozen), one row per record. Numbers and
 * booleans are native cells; strings are string cells even when they look like numbers (`007`
 * stays text); null is the text `null`, arrays and unsplittable objects are JSON text (see
 * flatten.ts). Reading takes the first worksheet and the cells' own types: numbers, booleans,
 * strings (then `null` and JSON text as in cell-text.ts), dates as ISO 8601 UTC strings
 * (`2024-05-01T00:00:00.000Z`), a formula as its saved result; an error cell (`#DIV/0!`) or a
 * formula never calculated is refused.
 */
export interface XlsxLimits extends ZipBounds {
  /** Levels a record may nest (the record is level 1): dotted columns plus a JSON cell's own. */
  maxDepth: number;
  /** Characters of text in all the sheet's cells together, each shared string counted once per cell naming it. */
  maxExpandedText: number;
}

export async function recordsToXlsx(records: readonly Record<string, unknown>[], sheetName = 'records'): Promise<Buffer> {
  const { columns, rows } = flattenRecords(records);
  const workbook = new ExcelJS.Workbook();
  workbook.creator = 'mockapi';
  const sheet = workbook.addWorksheet(toSheetName(sheetName), { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.addRow(columns.map(escapeText)).font = { bold: true };
  // undefined leaves the cell out entirely: an empty cell, read back as a missing field.
  sheet.addRows(rows.map((row) => row.map((cell) => (typeof cell === 'string' ? escapeText(cell) : cell))));
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

/**
 * XML 1.0 cannot hold most control characters and turns CR LF into LF, so OOXML escapes such
 * characters as `_xHHHH_` (ECMA-376 part 1, 22.9.2.19 ST_Xstring), and exceljs decodes that on
 * read but does not encode on write (it drops the characters). Encoded here, as Excel does:
 * first the `_` of any text already shaped like an escape (as `_x005F_`), then the characters.
 */
function escapeText(text: string): string {
  return text
    .replace(/_(?=x[0-9A-F]{4}_)/g, '_x005F_')
    .replace(/[\x00-\x08\x0B\x0C\x0D\x0E-\x1F\x7F]/g, (char) => `_x${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}_`);
}

/** Excel refuses sheet names over 31 characters or holding any of \ / ? * [ ] :. */
function toSheetName(name: string): string {
  return name.replace(/[\\/?*[\]:]/g, '_').slice(0, 31) || 'records';
}

/**
 * Parts exceljs would expand range by range (merged cells, validations, formats over a whole
 * column) or that carry nothing a record needs: skipped, so a small hostile part cannot make
 * exceljs allocate a cell per address.
 */
const ignoredNodes = ['mergeCells', 'dataValidations', 'conditionalFormatting', 'hyperlinks', 'extLst', 'autoFilter', 'rowBreaks', 'picture', 'drawing', 'tableParts', 'cols'];

export async function xlsxToRecords(bytes: Uint8Array, limits: XlsxLimits): Promise<Record<string, Value>[]> {
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  await guardXlsxZip(buffer, limits);
  const workbook = new ExcelJS.Workbook();
  try {
    // exceljs types its parameter as the older Buffer<ArrayBuffer>; any Buffer works.
    await workbook.xlsx.load(buffer as unknown as Parameters<typeof workbook.xlsx.load>[0], { ignoreNodes: ignoredNodes });
  } catch (error) {
    throw tableError(`the workbook cannot be read: ${String((error as Error)?.message ?? error).slice(0, 200)}`);
  }
  const sheet = workbook.worksheets[0];
  if (!sheet) throw tableError('the workbook has no worksheet');
  checkExpandedText(sheet, limits.maxExpandedText);
  return sheetToRecords(sheet, limits);
}

/**
 * A shared string is stored once and named by index from any number of cells, and each cell
 * becomes its own copy in a record (a 7 KB file of one 1.1 MB string in 512 cells is 563 MB of
 * records). So, before any cell becomes a value, the text of the sheet's cells with shared
 * strings expanded is bounded, as the zip guard bounds inflated bytes.
 */
function checkExpandedText(sheet: ExcelJS.Worksheet, max: number): void {
  let chars = 0;
  sheet.eachRow({ includeEmpty: false }, (row) => {
    row.eachCell({ includeEmpty: false }, (cell) => {
      chars += textLength(cell.value);
      if (chars > max) throw tableError(`the cells hold more than ${max} characters of text once shared strings are expanded (a string used by many cells counts once per cell)`);
    });
  });
}

function textLength(value: ExcelJS.CellValue): number {
  if (typeof value === 'string') return value.length;
  if (value === null || typeof value !== 'object' || value instanceof Date) return 0;
  if ('richText' in value) return value.richText.reduce((sum, run) => sum + run.text.length, 0);
  if ('formula' in value || 'sharedFormula' in value) return textLength(value.result as ExcelJS.CellValue);
  if ('text' in value) return textLength(value.text as ExcelJS.CellValue);
  return 0;
}

function sheetToRecords(sheet: ExcelJS.Worksheet, limits: XlsxLimits): Record<string, Value>[] {
  const problems = new ProblemList();
  const headerCells = rowValues(sheet.getRow(1), problems);
  let width = headerCells.length;
  while (width > 0 && headerCells[width - 1] === undefined) width--;
  if (width === 0) throw tableError('the first row must name the columns; it is empty', 1);
  const names = headerCells.slice(0, width).map((value) => (value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value)));
  const paths = readHeader(names, limits, problems);
  problems.throwIfAny();
  const records: Record<string, Value>[] = [];
  let dataRows = 0;
  sheet.eachRow({ includeEmpty: false }, (row, number) => {
    if (number === 1) return;
    const values = rowValues(row, problems);
    if (isBlankRow(values)) return;
    if (++dataRows > limits.maxRows) throw tableError(`the table has more than ${limits.maxRows} data rows`, number);
    const outside = values.findIndex((value, i) => i >= width && value !== undefined);
    if (outside >= 0) {
      problems.add({ row: number, column: outside + 1, message: 'the cell is right of the last named column; give its column a name in row 1' });
      return;
    }
    records.push(toRecord(paths, values.slice(0, width).concat(new Array(Math.max(0, width - values.length)).fill(undefined)), number, limits, problems));
  });
  problems.throwIfAny();
  return records;
}

/** The row's cells as values, index 0 = column A; problems for cells that hold no value. */
function rowValues(row: ExcelJS.Row, problems: ProblemList): (Value | undefined)[] {
  const values: (Value | undefined)[] = [];
  row.eachCell({ includeEmpty: false }, (cell, column) => {
    const value = fromCellValue(cell.value);
    if (value instanceof CellProblem) problems.add({ row: row.number, column, message: value.message });
    else values[column - 1] = value;
  });
  for (let i = 0; i < values.length; i++) if (!(i in values)) values[i] = undefined;
  return values;
}

class CellProblem {
  constructor(readonly message: string) {}
}

function fromCellValue(value: ExcelJS.CellValue): Value | undefined | CellProblem {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? value : new CellProblem('the number is not finite');
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') return fromStringCell(value);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? new CellProblem('the date is out of range') : value.toISOString();
  if ('error' in value) return new CellProblem(`the cell holds the error ${value.error}`);
  if ('formula' in value || 'sharedFormula' in value) {
    if (value.result === undefined) return new CellProblem('the formula has no saved result; open and save the file in a spreadsheet program');
    return fromCellValue(value.result);
  }
  if ('richText' in value) return fromStringCell(value.richText.map((run) => run.text).join(''));
  if ('text' in value) return fromCellValue(value.text as ExcelJS.CellValue);
  return new CellProblem('the cell holds a value of an unknown kind');
}
