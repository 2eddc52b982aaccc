import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { recordsToXlsx, TableError, xlsxToRecords, type TableProblem } from '../../src/formats/tables.js';
import { expected, samples } from '../helpers/format-samples.js';
import { entry, rezip, zip } from '../helpers/zip-writer.js';

const limits = { maxRows: 1000, maxColumns: 100, maxUncompressedBytes: 20_000_000, maxDepth: 32, maxExpandedText: 20_000_000 };
const read = (bytes: Buffer, bounds = limits) => xlsxToRecords(bytes, bounds);

async function problemsOf(bytes: Buffer, bounds = limits): Promise<TableProblem[]> {
  const error = await read(bytes, bounds).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(TableError);
  return (error as TableError).problems;
}

/** A workbook as a user would make it in a spreadsheet program. */
async function workbook(fill: (sheet: ExcelJS.Worksheet, book: ExcelJS.Workbook) => void): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  fill(book.addWorksheet('Sheet1'), book);
  return Buffer.from(await book.xlsx.writeBuffer());
}

async function open(bytes: Buffer): Promise<ExcelJS.Worksheet> {
  const book = new ExcelJS.Workbook();
  await book.xlsx.load(bytes as never);
  return book.worksheets[0];
}

describe('XLSX round trip', () => {
  it('gives back nested objects, unicode, separators, quotes, newlines, spaces, numbers, booleans, null, arrays and missing fields', async () => {
    expect(await read(await recordsToXlsx(samples))).toEqual(expected);
  });

  it('keeps strings that look like numbers, booleans or formulas, control characters and escape-shaped text', async () => {
    const records = [
      { a: '42', b: 'true', c: '007', d: '=SUM(A1:A2)', e: '1e400', f: 'FALSE', g: '-0', h: ' 5' },
      { a: 'x\u0001y\u0000z\u001f\u007f', b: 'cr\rlf\r\n', c: '_x0041_', d: '_x0041_x0042_', e: '__x0041__', f: 'a_x005F_b' },
    ];
    expect(await read(await recordsToXlsx(records))).toEqual(records);
  });

  it('cannot keep the string "null" nor JSON-shaped text: documented, not silent', async () => {
    expect(await read(await recordsToXlsx([{ a: 'null', b: '[1]', c: '{"x":1}' }]))).toEqual([{ a: null, b: [1], c: { x: 1 } }]);
  });
});

describe('XLSX output, opened by exceljs as a spreadsheet program would', () => {
  it('has a bold, frozen header row and typed cells in place', async () => {
    const sheet = await open(await recordsToXlsx([
      { id: 'local-1', name: 'Ada', age: 36, ok: true, code: '007', address: { city: 'Zürich' }, none: null, tags: ['a'] },
      { id: 'local-2', age: -1.5, address: { zip: '8000' } },
    ], 'invoices'));
    expect(sheet.name).toBe('invoices');
    expect(sheet.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    expect(sheet.getRow(1).values).toEqual([undefined, 'id', 'name', 'age', 'ok', 'code', 'address.city', 'none', 'tags', 'address.zip']);
    expect(sheet.getRow(1).font?.bold).toBe(true);
    const cell = (address: string) => sheet.getCell(address);
    expect([cell('C2').value, cell('C2').type]).toEqual([36, ExcelJS.ValueType.Number]);
    expect([cell('D2').value, cell('D2').type]).toEqual([true, ExcelJS.ValueType.Boolean]);
    expect([cell('E2').value, cell('E2').type]).toEqual(['007', ExcelJS.ValueType.String]);
    expect(cell('F2').value).toBe('Zürich');
    expect(cell('G2').value).toBe('null');
    expect(cell('H2').value).toBe('["a"]');
    expect([cell('C3').value, cell('B3').type, cell('I3').value]).toEqual([-1.5, ExcelJS.ValueType.Null, '8000']);
    expect(sheet.actualRowCount).toBe(3);
  });

  it('cuts a sheet name to what Excel accepts', async () => {
    expect((await open(await recordsToXlsx([{ a: 1 }], 'a-very-long-collection-name-over-31-chars'))).name).toBe('a-very-long-collection-name-ove');
  });
});

describe('XLSX input from a spreadsheet program', () => {
  it('reads native types: dates as ISO strings, formulas as their saved result, rich text and links as text', async () => {
    const bytes = await workbook((sheet) => {
      sheet.addRow(['when', 'sum', 'label', 'link', 'ratio', 'flag', 'shared']);
      sheet.addRow([
        new Date(Date.UTC(2024, 4, 1, 12, 30)),
        { formula: 'B3+1', result: 3 },
        { richText: [{ text: 'bold', font: { bold: true } }, { text: ' plain' }] },
        { text: 'site', hyperlink: 'https://example.com' },
        0.25,
        { formula: 'TRUE()', result: true },
        { formula: '"x"&"y"', result: 'xy' },
      ]);
    });
    expect(await read(bytes)).toEqual([
      { when: '2024-05-01T12:30:00.000Z', sum: 3, label: 'bold plain', link: 'site', ratio: 0.25, flag: true, shared: 'xy' },
    ]);
  });

  it('reads the first worksheet only and skips blank rows, keeping sheet row numbers in errors', async () => {
    const bytes = await workbook((sheet, book) => {
      sheet.addRow(['a', 'b.c']);
      sheet.addRow([1, 'x']);
      sheet.addRow([]);
      sheet.getCell('A5').value = 2;
      sheet.getCell('C6').value = 'outside';
      book.addWorksheet('Other').addRow(['ignored']);
    });
    expect(await problemsOf(bytes)).toEqual([{ row: 6, column: 3, message: expect.stringContaining('right of the last named column') }]);
  });

  it('reads sparse rows as missing fields', async () => {
    const bytes = await workbook((sheet) => {
      sheet.addRow(['a', 'b', 'c']);
      sheet.getCell('A2').value = 1;
      sheet.getCell('C3').value = 'z';
    });
    expect(await read(bytes)).toEqual([{ a: 1 }, { c: 'z' }]);
  });

  it.each([
    ['an error cell', { error: '#DIV/0!' }, 'the cell holds the error #DIV/0!'],
    ['a formula never calculated', { formula: 'A1*2' }, 'the formula has no saved result'],
  ])('refuses %s with its row and column', async (_, value, message) => {
    const bytes = await workbook((sheet) => {
      sheet.addRow(['a', 'b']);
      sheet.addRow([1, value as ExcelJS.CellValue]);
    });
    expect(await problemsOf(bytes)).toEqual([{ row: 2, column: 2, message: expect.stringContaining(message) }]);
  });

  it('requires a header in row 1 and refuses empty or repeated names', async () => {
    expect(await problemsOf(await workbook((sheet) => (sheet.getCell('A2').value = 1)))).toEqual([{ row: 1, message: expect.stringContaining('name the columns') }]);
    const bytes = await workbook((sheet) => {
      sheet.getCell('A1').value = 'a';
      sheet.getCell('C1').value = 'a';
    });
    expect((await problemsOf(bytes)).map((problem) => problem.column)).toEqual([2, 3]);
  });

  it('ignores id and _sandbox columns', async () => {
    const bytes = await workbook((sheet) => {
      sheet.addRow(['id', '_sandbox', 'n']);
      sheet.addRow(['local-1', 'sb', 1]);
    });
    expect(await read(bytes)).toEqual([{ n: 1 }]);
  });

  it('accepts exactly maxRows data rows and refuses one more', async () => {
    const rows = (n: number) => workbook((sheet) => sheet.addRows([['a'], ...Array.from({ length: n }, (_, i) => [i])]));
    expect(await read(await rows(5), { ...limits, maxRows: 5 })).toHaveLength(5);
    expect((await problemsOf(await rows(6), { ...limits, maxRows: 5 }))[0].message).toContain('more than 5 data rows');
  });

  it('refuses more columns than allowed', async () => {
    const bytes = await workbook((sheet) => sheet.addRows([['a', 'b', 'c'], [1, 2, 3]]));
    expect((await problemsOf(bytes, { ...limits, maxColumns: 2 }))[0].message).toContain('at most 2');
  });
});

describe('corrupt XLSX', () => {
  const valid = () => recordsToXlsx([{ a: 1 }]);

  it.each([
    ['empty bytes', () => Buffer.alloc(0)],
    ['text', () => Buffer.from('a,b\n1,2\n')],
    ['a CSV with a PK-looking start', () => Buffer.from('PK\u0003\u0004 not really')],
  ])('refuses %s as not a zip', async (_, make) => {
    expect(await problemsOf(make())).toEqual([{ message: expect.stringContaining('not') }]);
  });

  it('refuses a truncated file', async () => {
    const bytes = await valid();
    for (const cut of [10, 100, bytes.length / 2, bytes.length - 10]) {
      expect((await problemsOf(bytes.subarray(0, Math.floor(cut))))[0].message).toMatch(/not (a readable )?(an )?XLSX/);
    }
  });

  it('refuses a zip that is not a workbook', async () => {
    expect((await problemsOf(zip([entry('hello.txt', 'hi')])))[0].message).toContain('not an XLSX workbook');
    const noWorkbook = await rezip(await valid(), (name, text) => (name === 'xl/workbook.xml' ? undefined : text));
    expect((await problemsOf(noWorkbook))[0].message).toContain('not an XLSX workbook');
  });

  it('refuses broken XML and leaves nothing running: no unhandled rejection, no late error', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    process.on('uncaughtException', onUnhandled);
    try {
      const broken = [
        await rezip(await valid(), (name, text) => (name === 'xl/worksheets/sheet1.xml' ? text.replace('<sheetData>', '<sheetData><row><c') : text)),
        await rezip(await valid(), (name, text) => (name === 'xl/workbook.xml' ? text.slice(0, 100) : text)),
        await rezip(await valid(), (name, text) => (name === 'xl/sharedStrings.xml' ? '<sst><si><t>unclosed' : text)),
        await rezip(await valid(), (name, text) => (name === 'xl/styles.xml' ? '\u0000\u0001garbage' : text)),
        await rezip(await valid(), (name, text) => (name === '[Content_Types].xml' ? '' : text)),
      ];
      const outcomes = [];
      for (const bytes of broken) {
        outcomes.push(
          await read(bytes).then(
            (records) => records,
            (error: unknown) => (error instanceof TableError ? 'TableError' : error),
          ),
        );
      }
      // exceljs does not need [Content_Types].xml, so a broken one does no harm.
      expect(outcomes).toEqual(['TableError', 'TableError', 'TableError', 'TableError', [{ a: 1 }]]);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      process.off('uncaughtException', onUnhandled);
    }
  });
});

describe('hostile ranges that exceljs would expand cell by cell', () => {
  const withSheetXml = async (insert: string) =>
    rezip(await recordsToXlsx([{ a: 1 }]), (name, text) => (name === 'xl/worksheets/sheet1.xml' ? text.replace('</sheetData>', `</sheetData>${insert}`) : text));

  it.each([
    ['a merge over the whole sheet', '<mergeCells count="1"><mergeCell ref="A1:XFD1048576"/></mergeCells>'],
    ['a validation over the whole sheet', '<dataValidations count="1"><dataValidation type="whole" sqref="A1:XFD1048576"><formula1>1</formula1></dataValidation></dataValidations>'],
  ])('reads the values past %s', async (_, insert) => {
    expect(await read(await withSheetXml(insert))).toEqual([{ a: 1 }]);
  });

  it('refuses a defined name covering a whole sheet', async () => {
    const bytes = await rezip(await recordsToXlsx([{ a: 1 }]), (name, text) =>
      name === 'xl/workbook.xml' ? text.replace('</sheets>', '</sheets><definedNames><definedName name="all">records!$A$1:$XFD$1048576</definedName></definedNames>') : text,
    );
    expect((await problemsOf(bytes))[0].message).toContain('defined names');
  });
});
