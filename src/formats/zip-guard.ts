import yauzl, { type Entry } from 'yauzl';
import { tableError, TableError } from './table-error.js';

/**
 * Inspects an XLSX (a zip of XML parts) with yauzl BEFORE exceljs sees it, because exceljs
 * inflates every part into memory and expands some ranges cell by cell: a zip bomb, a sheet of
 * 10^6 rows, or a defined name over a whole sheet would exhaust memory or hang there. Refused:
 * - not a zip, a truncated or inconsistent one, encrypted entries (yauzl's own checks);
 * - more than {@link maxEntries} entries, or declared uncompressed sizes summing past the bound;
 * - actual inflated bytes past the bound, counted while streaming each entry (yauzl also stops an
 *   entry that inflates past its declared size), so a lying header is caught after at most
 *   `maxUncompressedBytes` of output;
 * - no `[Content_Types].xml`, `xl/workbook.xml` or worksheet part;
 * - any worksheet storing more than `maxRows + 1` rows (formatted empty rows count: they are
 *   stored rows), or more than `(maxRows + 1) × maxColumns` cells in all worksheets together
 *   (exceljs loads every sheet, not only the first);
 * - defined names (print areas, filters) covering more than that many cells in all.
 */
export interface ZipBounds {
  maxRows: number;
  maxColumns: number;
  maxUncompressedBytes: number;
}

/** A workbook has a dozen parts; thousands means a hostile or broken file. */
const maxEntries = 1000;
const worksheetPart = /^xl\/worksheets\/sheet\d+\.xml$/;

export async function guardXlsxZip(bytes: Buffer, bounds: ZipBounds): Promise<void> {
  if (bytes.length < 4 || bytes.readUInt32LE(0) !== 0x04034b50) throw tableError('the file is not an XLSX workbook (not a zip archive)');
  try {
    await inspect(bytes, bounds);
  } catch (error) {
    if (error instanceof TableError) throw error;
    // yauzl's messages name the broken structure ("invalid central directory file header
    // signature"); none of them echo file content, so they are safe to pass on.
    throw tableError(`the file is not a readable XLSX workbook: ${(error as Error).message}`);
  }
}

async function inspect(bytes: Buffer, bounds: ZipBounds): Promise<void> {
  const zip = await yauzl.fromBufferPromise(bytes, { lazyEntries: true, validateEntrySizes: true });
  try {
    const entries: Entry[] = [];
    let declared = 0;
    for await (const entry of zip.eachEntry()) {
      entries.push(entry);
      declared += entry.uncompressedSize;
      if (entries.length > maxEntries) throw tableError(`the workbook has more than ${maxEntries} parts`);
      if (entry.isEncrypted()) throw tableError('the workbook is encrypted; save it without a password');
    }
    if (declared > bounds.maxUncompressedBytes) throw tooBig(bounds);
    const names = new Set(entries.map((entry) => entry.fileName));
    if (!names.has('[Content_Types].xml') || !names.has('xl/workbook.xml') || !entries.some((entry) => worksheetPart.test(entry.fileName)))
      throw tableError('the file is a zip archive but not an XLSX workbook (no workbook or worksheet part)');
    const cellBudget = (bounds.maxRows + 1) * bounds.maxColumns;
    const budget = { bytes: bounds.maxUncompressedBytes, cells: cellBudget };
    for (const entry of entries) {
      if (entry.fileName.endsWith('/')) continue;
      if (worksheetPart.test(entry.fileName)) {
        const counts = { row: 0, c: 0 };
        await readEntry(zip, entry, budget, bounds, countElements(counts, (name) => {
          if (name === 'row' && counts.row > bounds.maxRows + 1) throw tableError(`a worksheet has more than ${bounds.maxRows} data rows`);
          if (name === 'c' && --budget.cells < 0) throw tableError(`the workbook has more than ${cellBudget} cells`);
        }));
      } else if (entry.fileName === 'xl/workbook.xml') {
        const parts: Buffer[] = [];
        await readEntry(zip, entry, budget, bounds, (chunk) => parts.push(chunk));
        if (definedNameArea(Buffer.concat(parts).toString('utf8')) > cellBudget)
          throw tableError(`the workbook's defined names (print areas, filters) cover more than ${cellBudget} cells`);
      } else {
        await readEntry(zip, entry, budget, bounds, () => {});
      }
    }
  } finally {
    zip.close();
  }
}

async function readEntry(zip: yauzl.ZipFile, entry: Entry, budget: { bytes: number }, bounds: ZipBounds, onChunk: (chunk: Buffer) => void): Promise<void> {
  const stream = await zip.openReadStreamPromise(entry);
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      budget.bytes -= chunk.length;
      if (budget.bytes < 0) throw tooBig(bounds);
      onChunk(chunk);
    }
  } finally {
    stream.destroy();
  }
}

const tooBig = (bounds: ZipBounds) => tableError(`the workbook inflates to more than ${bounds.maxUncompressedBytes} bytes`);

/**
 * Counts `<row>` and `<c>` start tags (with or without a namespace prefix) across chunk
 * boundaries. XML text cannot hold a raw `<`, so every match is a tag (a comment could hold one:
 * that only over-counts, which errs on the safe side).
 */
export function countElements(counts: { row: number; c: number }, onCount: (name: 'row' | 'c') => void): (chunk: Buffer) => void {
  const tag = /<(?:\w{1,10}:)?(row|c)[\s>/]/g;
  let tail = '';
  return (chunk) => {
    const text = tail + chunk.toString('latin1');
    for (const match of text.matchAll(tag)) {
      // A tag wholly inside the tail was counted with the previous chunk.
      if (match.index + match[0].length <= tail.length) continue;
      const name = match[1] as 'row' | 'c';
      counts[name]++;
      onCount(name);
    }
    tail = text.slice(-32);
  };
}

/** Cells covered by every A1 range in the workbook's defined names (`Sheet1!$A$1:$F$40`). */
function definedNameArea(workbookXml: string): number {
  let area = 0;
  for (const [, body] of workbookXml.matchAll(/<(?:\w{1,10}:)?definedName\b[^>]*>([^<]*)</g)) {
    for (const ref of body.matchAll(/\$?([A-Z]{1,3})\$?(\d{1,7})(?::\$?([A-Z]{1,3})\$?(\d{1,7}))?/g)) {
      if (ref[3] === undefined) {
        area += 1;
        continue;
      }
      const columns = Math.abs(letterNumber(ref[3]) - letterNumber(ref[1])) + 1;
      const rows = Math.abs(Number(ref[4]) - Number(ref[2])) + 1;
      area += columns * rows;
    }
  }
  return area;
}

function letterNumber(letters: string): number {
  let n = 0;
  for (const char of letters) n = n * 26 + (char.charCodeAt(0) - 64);
  return n;
}
