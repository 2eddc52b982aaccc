import { describe, expect, it } from 'vitest';
import { TableError, xlsxToRecords } from '../../src/formats/tables.js';
import { countElements } from '../../src/formats/zip-guard.js';
import { sharedStringWorkbook } from '../helpers/xlsx-files.js';
import { entry, repeatedEntry, zip, type ZipEntry } from '../helpers/zip-writer.js';

/**
 * Hostile XLSX files are refused by the zip guard before exceljs inflates them. Memory, not time,
 * is the check: the peak resident set (maxRSS, which only grows) may not rise by more than a
 * few tens of megabytes while a file that inflates to 200 MB or holds 10^6 rows is refused.
 * This file runs in its own process, so earlier tests have not already raised the peak.
 */
const limits = { maxRows: 1000, maxColumns: 100, maxUncompressedBytes: 50_000_000, maxDepth: 32, maxExpandedText: 50_000_000 };
const megabyte = 1024 * 1024;
const sheetStart = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>';
const sheetEnd = '</sheetData></worksheet>';

function workbookWith(sheet: ZipEntry, extra: ZipEntry[] = []): Buffer {
  return zip([
    entry('[Content_Types].xml', '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>'),
    entry('xl/workbook.xml', '<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheets><sheet name="a" sheetId="1"/></sheets></workbook>'),
    sheet,
    ...extra,
  ]);
}

async function refusal(bytes: Buffer, bounds = limits): Promise<{ message: string; growth: number }> {
  const before = process.resourceUsage().maxRSS;
  const error = await xlsxToRecords(bytes, bounds).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  const growth = ((process.resourceUsage().maxRSS - before) * 1024) / megabyte;
  expect(error).toBeInstanceOf(TableError);
  return { message: (error as TableError).message, growth };
}

describe('zip bombs and huge sheets', () => {
  it('refuses a part that declares 200 MB, from the directory alone', async () => {
    const bomb = await repeatedEntry('xl/worksheets/sheet1.xml', ' '.repeat(megabyte), 200, sheetStart, sheetEnd);
    const bytes = workbookWith(bomb);
    expect(bytes.length).toBeLessThan(megabyte);
    const { message, growth } = await refusal(bytes);
    expect(message).toBe('the workbook inflates to more than 50000000 bytes');
    expect(growth).toBeLessThan(32);
  });

  it('refuses a part that lies about its size, after inflating no more than it declared', async () => {
    const bomb = await repeatedEntry('xl/worksheets/sheet1.xml', ' '.repeat(megabyte), 200, sheetStart, sheetEnd);
    const { message, growth } = await refusal(workbookWith({ ...bomb, declaredSize: 10_000 }));
    expect(message).toMatch(/^the file is not a readable XLSX workbook: too many bytes in the stream/);
    expect(growth).toBeLessThan(32);
  });

  it('refuses many parts that together declare too much', async () => {
    const part = await repeatedEntry('x', ' '.repeat(megabyte), 10);
    const parts = Array.from({ length: 8 }, (_, i) => ({ ...part, name: `xl/media/image${i}.png` }));
    const { message } = await refusal(workbookWith(entry('xl/worksheets/sheet1.xml', sheetStart + sheetEnd), parts));
    expect(message).toBe('the workbook inflates to more than 50000000 bytes');
  });

  it('refuses more than 1000 parts', async () => {
    const parts = Array.from({ length: 1001 }, (_, i) => entry(`xl/media/image${i}.png`, 'x'));
    expect((await refusal(workbookWith(entry('xl/worksheets/sheet1.xml', sheetStart + sheetEnd), parts))).message).toBe('the workbook has more than 1000 parts');
  });

  it('refuses a sheet of 10^6 rows while streaming it, before exceljs builds a single row', async () => {
    const rows = '<row><c t="n"><v>1</v></c></row>'.repeat(1000);
    const sheet = await repeatedEntry('xl/worksheets/sheet1.xml', rows, 1000, sheetStart, sheetEnd);
    expect(sheet.size).toBeGreaterThan(30_000_000);
    const { message, growth } = await refusal(workbookWith(sheet), { ...limits, maxUncompressedBytes: 100_000_000 });
    expect(message).toBe('a worksheet has more than 1000 data rows');
    expect(growth).toBeLessThan(32);
  });

  it('refuses a row of 10^6 cells (counted in all sheets together)', async () => {
    const cells = '<c t="n"><v>1</v></c>'.repeat(1000);
    const sheet = await repeatedEntry('xl/worksheets/sheet1.xml', cells, 1000, `${sheetStart}<row r="1">`, `</row>${sheetEnd}`);
    const { message, growth } = await refusal(workbookWith(sheet));
    expect(message).toBe('the workbook has more than 100100 cells');
    expect(growth).toBeLessThan(32);
  });

  it('counts namespace-prefixed rows, and lets exactly maxRows data rows through', async () => {
    const rows = (n: number) => '<x:row r="1"><x:c t="n"><x:v>12345</x:v></x:c></x:row>'.repeat(n);
    const sheet = (n: number) => entry('xl/worksheets/sheet1.xml', `${sheetStart}${rows(n)}${sheetEnd}`);
    expect((await refusal(workbookWith(sheet(1002)))).message).toBe('a worksheet has more than 1000 data rows');
    // The header and 1000 rows pass the guard (exceljs then finds no sheet in this bare workbook).
    expect((await refusal(workbookWith(sheet(1001)))).message).toBe('the workbook has no worksheet');
  });
});

describe('countElements', () => {
  const xml = '<row r="1"><c r="A1"/><c>x</c><cols/><rowBreaks/><x:row><x:c t="s"></x:c></x:row></row>';

  it('counts row and c start tags only', () => {
    const counts = { row: 0, c: 0 };
    countElements(counts, () => {})(Buffer.from(xml));
    expect(counts).toEqual({ row: 2, c: 3 });
  });

  it('counts each tag once wherever the chunks split it', () => {
    for (let cut = 0; cut <= xml.length; cut++) {
      for (const second of [cut, Math.min(xml.length, cut + 3)]) {
        const counts = { row: 0, c: 0 };
        const feed = countElements(counts, () => {});
        for (const piece of [xml.slice(0, cut), xml.slice(cut, second), xml.slice(second)]) feed(Buffer.from(piece));
        expect(counts, `cut at ${cut} and ${second}`).toEqual({ row: 2, c: 3 });
      }
    }
  });
});

describe('shared strings (issue 28, defect 3)', () => {
  it('refuses one long shared string named by many cells before any cell becomes a value', async () => {
    const bytes = await sharedStringWorkbook(512, 1_100_000);
    const { message, growth } = await refusal(bytes, { ...limits, maxColumns: 512 });
    expect(message).toBe('the cells hold more than 50000000 characters of text once shared strings are expanded (a string used by many cells counts once per cell)');
    expect(growth).toBeLessThan(32);
  });

  it('counts each cell: exactly the bound passes, one character more does not', async () => {
    // The header `a` is one character; 10 cells of 99 are 990.
    await expect(xlsxToRecords(await sharedStringWorkbook(10, 99), { ...limits, maxExpandedText: 991 })).resolves.toHaveLength(10);
    expect((await refusal(await sharedStringWorkbook(10, 99), { ...limits, maxExpandedText: 990 })).message).toContain('more than 990 characters');
  });
});
