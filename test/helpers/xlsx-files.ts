import ExcelJS from 'exceljs';
import { rezip } from './zip-writer.js';

/**
 * An XLSX of `rows` data rows whose cells (column A, under the header `a`) all name one shared
 * string of `length` characters: a few kilobytes on the wire, `rows × length` characters once
 * every cell is expanded. exceljs writes the strings to `xl/sharedStrings.xml`; the shared
 * string is swapped for the long one there, so every cell keeps referring to it.
 */
export async function sharedStringWorkbook(rows: number, length: number, fill = 'y'): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('Sheet1');
  sheet.addRow(['a']);
  for (let i = 0; i < rows; i++) sheet.addRow(['marker']);
  const bytes = Buffer.from(await book.xlsx.writeBuffer());
  return rezip(bytes, (name, text) => (name === 'xl/sharedStrings.xml' ? text.replace('<t>marker</t>', `<t>${fill.repeat(length)}</t>`) : text));
}
