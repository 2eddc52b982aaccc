import { describe, expect, it } from 'vitest';
import { csvToRecords, recordsToCsv, TableError, type TableProblem } from '../../src/formats/tables.js';
import { expected, samples } from '../helpers/format-samples.js';

const limits = { maxRows: 1000, maxColumns: 100, maxDepth: 32 };
const read = (text: string | Buffer, bounds = limits) => csvToRecords(typeof text === 'string' ? Buffer.from(text) : text, bounds);

function problemsOf(text: string | Buffer, bounds = limits): TableProblem[] {
  try {
    read(text, bounds);
  } catch (error) {
    expect(error).toBeInstanceOf(TableError);
    return (error as TableError).problems;
  }
  throw new Error('expected a TableError');
}

describe('CSV round trip', () => {
  it('gives back nested objects, unicode, separators, quotes, newlines, spaces, numbers, booleans, null, arrays and missing fields', () => {
    // Equal as JSON values; key order follows the shared column order, not each record's own.
    expect(read(recordsToCsv(samples))).toEqual(expected);
  });

  it('survives a second trip unchanged', () => {
    const once = recordsToCsv(samples);
    expect(recordsToCsv(read(once))).toBe(recordsToCsv(expected));
  });

  it('cannot keep a string that reads as another type: documented, not silent', () => {
    const records = [{ a: '42', b: 'true', c: 'null', d: '[1]', e: '{"x":1}', f: '1e+21', g: 'FALSE' }];
    expect(read(recordsToCsv(records))).toEqual([{ a: 42, b: true, c: null, d: [1], e: { x: 1 }, f: 1e21, g: false }]);
  });

  it('keeps strings that only look numeric', () => {
    const records = [{ a: '007', b: ' 5', c: '1.50', d: '+33 6 12 34 56 78', e: '1e400', f: '12345678901234567890', g: 'True' }];
    expect(read(recordsToCsv(records))).toEqual(records);
  });

  it('refuses a top-level empty key on import, the one shape that exports but cannot come back', () => {
    expect(problemsOf(recordsToCsv([{ '': 1, a: 2 }]))).toEqual([{ row: 1, column: 1, message: expect.stringContaining('empty') }]);
  });
});

describe('CSV output', () => {
  it('is RFC 4180 with a BOM and CRLF rows, quoting only what needs it', () => {
    const csv = recordsToCsv([
      { id: 'local-1', name: 'a, "b"', note: 'x\ny', empty: '', n: 1.5, t: false, none: null, sub: { k: 'v' } },
      { id: 'local-2' },
    ]);
    expect(csv).toBe('\uFEFFid,name,note,empty,n,t,none,sub.k\r\nlocal-1,"a, ""b""","x\ny","",1.5,false,null,v\r\nlocal-2,,,,,,,\r\n');
  });

  it('writes an empty table for no records', () => {
    expect(recordsToCsv([])).toBe('\uFEFF\r\n');
  });
});

describe('CSV input', () => {
  it('accepts files without a BOM and with LF rows', () => {
    expect(read('a,b.c\n1,x\n')).toEqual([{ a: 1, b: { c: 'x' } }]);
    expect(read('\uFEFFa\r\n1')).toEqual([{ a: 1 }]);
  });

  it('keeps leading and trailing spaces in cells and names', () => {
    expect(read('" a ",b\n x , y \n')).toEqual([{ ' a ': ' x ', b: ' y ' }]);
  });

  it('ignores id and _sandbox columns: imported records are created anew', () => {
    expect(read('id,_sandbox,name\nlocal-9,other,x\n')).toEqual([{ name: 'x' }]);
  });

  it('creates an empty record for a row with only ignored cells, and skips rows with no cell at all', () => {
    expect(read('id,a\nlocal-1,\n,\n\n,1\n')).toEqual([{}, { a: 1 }]);
  });

  it('reads a header alone as no records', () => {
    expect(read('a,b\r\n')).toEqual([]);
  });

  it('counts rows as a spreadsheet shows them: blank lines count, a multi-line cell does not', () => {
    expect(problemsOf('a,b\n"x\ny\nz",1\n\n1,2,3\n')).toEqual([{ row: 4, column: 3, message: 'the row has 3 cells but the header names 2 columns' }]);
  });

  it('reports every ragged row, up to 10', () => {
    const problems = problemsOf(`a,b,c\n${'1,2\n'.repeat(30)}`);
    expect(problems).toHaveLength(10);
    expect(problems[0]).toEqual({ row: 2, column: 3, message: 'the row has 2 cells but the header names 3 columns' });
    expect(problems[9].row).toBe(11);
  });

  it('refuses a row that fills both a and a.b', () => {
    expect(problemsOf('a,a.b\n1,2\n')).toEqual([{ row: 2, column: 2, message: expect.stringContaining('both a value and an object') }]);
  });

  it.each([
    ['an unclosed quote', 'a,b\n1,2\n3,"open\n', 3, 'Quote Not Closed'],
    ['an unclosed quote on the last row', 'a,b\n1,"open\n', 2, 'Quote Not Closed'],
    ['a quote inside a bare cell', 'a,b\n1,x"y\n', 2, 'Invalid Opening Quote'],
    ['text after a closing quote', 'a,b\n"x"y,1\n', 2, 'Invalid Closing Quote'],
    ['text after a closing quote below a cell of two lines', 'a,b\n"two\nlines",1\n"x"y,1\n', 3, 'Invalid Closing Quote'],
  ])('refuses %s with its row, and no other numbering', (_, text, row, reason) => {
    const [problem] = problemsOf(text);
    expect(problem.row).toBe(row);
    expect(problem.message).toMatch(new RegExp(`^malformed CSV: ${reason}`));
    // csv-parse's own "line 3" (a physical line: the end of the file, or past a cell's line breaks) and 0-based "field 1" are not the row and column.
    expect(problem.message).not.toMatch(/\b(line|field) \d/);
  });

  it.each([
    ['an empty file', ''],
    ['a BOM alone', '\uFEFF'],
    ['a blank first row', '\n1,2\n'],
    ['an all-empty header', ',,\n1,2,3\n'],
  ])('requires a header row: refuses %s', (_, text) => {
    expect(problemsOf(text)[0]).toMatchObject({ row: 1, message: expect.stringContaining('name the columns') });
  });

  it('refuses duplicate and empty header names', () => {
    expect(problemsOf('a,,a\n1,2,3\n').map((p) => p.column)).toEqual([2, 3]);
  });

  it('refuses more columns than allowed', () => {
    expect(problemsOf('a,b,c\n1,2,3\n', { maxRows: 10, maxColumns: 2, maxDepth: 32 })[0].message).toContain('at most 2');
  });

  it('refuses bytes that are not UTF-8 instead of mangling them', () => {
    expect(problemsOf(Buffer.from([0x61, 0x0a, 0xe9, 0x74, 0xe9, 0x0a]))).toEqual([{ message: expect.stringContaining('not UTF-8') }]);
  });

  it('accepts exactly maxRows data rows and refuses one more', () => {
    const rows = (n: number) => `a\n${'1\n'.repeat(n)}`;
    expect(read(rows(5), { maxRows: 5, maxColumns: 10, maxDepth: 32 })).toHaveLength(5);
    expect(problemsOf(rows(6), { maxRows: 5, maxColumns: 10, maxDepth: 32 })).toEqual([{ row: 7, message: 'the table has more than 5 data rows' }]);
  });

  it('refuses 10^6 rows without parsing them all: a broken row far past the bound is never reached', () => {
    const text = `a,b\n${'1,x\n'.repeat(500_000)}2,"never closed\n${'3,y\n'.repeat(500_000)}`;
    expect(problemsOf(text)).toEqual([{ row: 1002, message: 'the table has more than 1000 data rows' }]);
  });

  describe('nesting (the engine stores at most maxDepth levels; a deep cell is a located problem, never a stack overflow)', () => {
    const deepArray = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

    it.each([33, 2_000, 5_000, 200_000])('refuses a JSON cell nesting %i levels, at its row and column', (levels) => {
      expect(problemsOf(`name,data
ok,1
x,"${deepArray(levels)}"
`)).toEqual([{ row: 3, column: 2, message: expect.stringContaining('nests too deep') }]);
    });

    it('counts the dotted column: a.b.c puts the cell at level 3', () => {
      // The record is level 1, a and b are 2 and 3: a cell of 30 levels reaches 33.
      expect(read(`a.b.c
"${deepArray(29)}"
`)).toHaveLength(1);
      expect(problemsOf(`a.b.c
"${deepArray(30)}"
`)).toEqual([{ row: 2, column: 1, message: expect.stringContaining('nests too deep') }]);
    });

    it('refuses a header naming a field deeper than a record may nest', () => {
      const name = Array.from({ length: 33 }, (_, i) => `k${i}`).join('.');
      expect(read(`${name.split('.').slice(0, 32).join('.')}
1
`)).toHaveLength(1);
      expect(problemsOf(`x,${name}
1,2
`)).toEqual([{ row: 1, column: 2, message: expect.stringContaining('33 levels deep') }]);
    });
  });
});

