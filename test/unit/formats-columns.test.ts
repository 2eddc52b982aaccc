import { describe, expect, it } from 'vitest';
import { fromCsvCell, fromStringCell, isCanonicalNumber } from '../../src/formats/cell-text.js';
import { parseColumnName, toColumnName } from '../../src/formats/column-name.js';
import { flattenRecords } from '../../src/formats/flatten.js';
import { ProblemList, TableError } from '../../src/formats/table-error.js';
import { readHeader, toRecord } from '../../src/formats/unflatten.js';

describe('column names', () => {
  it.each([
    [['a'], 'a'],
    [['address', 'city'], 'address.city'],
    [['a.b'], 'a\\.b'],
    [['a\\b'], 'a\\\\b'],
    [['x', 'a.b\\', 'c'], 'x.a\\.b\\\\.c'],
    [['日本', '🎉 key', ' sp '], '日本.🎉 key. sp '],
  ])('%j <-> %s', (path, name) => {
    expect(toColumnName(path)).toBe(name);
    expect(parseColumnName(name)).toEqual(path);
  });

  it('keeps a hand-written backslash that escapes nothing', () => {
    expect(parseColumnName('C:\\temp')).toEqual(['C:\\temp']);
  });

  it.each(['', 'a..b', '.a', 'a.', '.'])('refuses %j', (name) => {
    expect(parseColumnName(name)).toHaveProperty('problem');
  });
});

describe('flattenRecords', () => {
  it('puts id first, then columns in the order first seen across records', () => {
    const table = flattenRecords([
      { name: 'a', address: { city: 'x' }, id: 'local-1' },
      { zip: 1, name: 'b', address: { geo: { lat: 1 }, city: 'y' } },
    ]);
    expect(table.columns).toEqual(['id', 'name', 'address.city', 'zip', 'address.geo.lat']);
    expect(table.rows).toEqual([
      ['local-1', 'a', 'x', undefined, undefined],
      [undefined, 'b', 'y', 1, 1],
    ]);
  });

  it('has no id column when no record has an id', () => {
    expect(flattenRecords([{ a: 1 }])).toEqual({ columns: ['a'], rows: [[1]] });
  });

  it('writes null as text, arrays and unsplittable objects as JSON text, and leaves missing fields undefined', () => {
    const table = flattenRecords([{ n: null, list: [1, { a: [] }], empty: {}, odd: { '': 1 }, t: true }, {}]);
    expect(table.columns).toEqual(['n', 'list', 'empty', 'odd', 't']);
    expect(table.rows).toEqual([
      ['null', '[1,{"a":[]}]', '{}', '{"":1}', true],
      [undefined, undefined, undefined, undefined, undefined],
    ]);
  });

  it('is one pass: 20,000 records of 10 fields take one map lookup per cell', () => {
    const records = Array.from({ length: 20_000 }, (_, i) => ({ id: `local-${i}`, a: i, b: { c: `x${i}`, d: i % 2 === 0 } }));
    const table = flattenRecords(records);
    expect(table.columns).toEqual(['id', 'a', 'b.c', 'b.d']);
    expect(table.rows[19_999]).toEqual(['local-19999', 19_999, 'x19999', false]);
  });
});

describe('readHeader', () => {
  const read = (names: string[], maxColumns = 100) => {
    const problems = new ProblemList();
    const paths = readHeader(names, { maxColumns, maxDepth: 32 }, problems);
    return { paths, problems: problems.problems };
  };

  it('ignores id and _sandbox columns, and anything under them', () => {
    expect(read(['id', '_sandbox', 'id.x', '_sandbox.y', 'name', 'ID']).paths).toEqual([null, null, null, null, ['name'], ['ID']]);
  });

  it('refuses empty names, empty keys and two names for one field, naming row 1 and the column', () => {
    expect(read(['a', '', 'b..c', 'a', 'x\\y', 'x\\\\y']).problems).toEqual([
      { row: 1, column: 2, message: expect.stringContaining('empty') },
      { row: 1, column: 3, message: expect.stringContaining('empty key') },
      { row: 1, column: 4, message: expect.stringContaining('repeats column 1') },
      { row: 1, column: 6, message: expect.stringContaining('repeats column 5') },
    ]);
  });

  it('refuses more than maxColumns columns', () => {
    expect(read(['a', 'b', 'c'], 2).problems).toEqual([{ row: 1, message: 'the table has 3 columns; at most 2 are allowed' }]);
  });
});

describe('toRecord', () => {
  const shape = { maxColumns: 100, maxDepth: 32 };
  const build = (names: string[], values: unknown[]) => {
    const problems = new ProblemList();
    const record = toRecord(readHeader(names, shape, problems), values as never[], 7, shape, problems);
    return { record, problems: problems.problems };
  };

  it('rebuilds nested objects only where a field has a value', () => {
    expect(build(['a.b', 'a.c.d', 'e.f', 'g'], [1, 'x', undefined, false]).record).toEqual({ a: { b: 1, c: { d: 'x' } }, g: false });
  });

  it.each([
    [['a', 'a.b'], [5, 1]],
    [['a.b', 'a'], [1, 5]],
    [['a', 'a.b'], [{ x: 1 }, 1]],
    [['a.b', 'a.b.c'], [1, 2]],
  ])('refuses %j filled with %j in one row, naming the row and column', (names, values) => {
    const { problems } = build(names, values);
    expect(problems).toEqual([{ row: 7, column: 2, message: expect.stringContaining('both a value and an object') }]);
  });

  it('accepts a and a.b when only one of them has a value in the row', () => {
    expect(build(['a', 'a.b'], [undefined, 1]).record).toEqual({ a: { b: 1 } });
    expect(build(['a', 'a.b'], [5, undefined]).record).toEqual({ a: 5 });
  });

  it('keeps __proto__ and constructor as plain keys and never touches a prototype', () => {
    const { record } = build(['__proto__.polluted', 'constructor.prototype.x'], [true, 1]);
    expect(Object.getPrototypeOf(record)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.hasOwn(record, '__proto__')).toBe(true);
    expect(JSON.stringify(record)).toBe('{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}');
  });

  it('stops at 10 problems', () => {
    const problems = new ProblemList();
    expect(() => {
      for (let row = 2; row < 20; row++) problems.add({ row, message: 'bad' });
    }).toThrow(TableError);
    expect(problems.problems).toHaveLength(10);
  });
});

describe('cell text', () => {
  it.each([
    ['42', 42],
    ['-3.5', -3.5],
    ['0', 0],
    ['0.1', 0.1],
    ['1e+21', 1e21],
    ['1.5e-7', 1.5e-7],
    ['9007199254740991', 9007199254740991],
    ['5551234567', 5551234567],
  ])('%j is a number', (text, number) => {
    expect(isCanonicalNumber(text)).toBe(true);
    expect(fromCsvCell(text, false)).toBe(number);
  });

  it.each([
    '007', '1.50', '1.0', '+5', ' 5', '5 ', '1e400', '1E5', '1e5', '0x1F', '0b1', '-0', '.5', '5.', '1_000', '1,5',
    '12345678901234567890', 'Infinity', '-Infinity', 'NaN', '+33 6 12 34 56 78', '06 12 34 56 78', '0612345678', '555-123-4567', '(555) 123-4567',
  ])('%j stays a string', (text) => {
    expect(isCanonicalNumber(text)).toBe(false);
    expect(fromCsvCell(text, false)).toBe(text);
  });

  it.each([
    ['', false, undefined],
    ['', true, ''],
    ['true', false, true],
    ['TRUE', false, true],
    ['false', false, false],
    ['FALSE', false, false],
    ['True', false, 'True'],
    ['yes', false, 'yes'],
    ['null', false, null],
    ['NULL', false, 'NULL'],
    ['"42"', true, '"42"'],
    ['[1,"a"]', false, [1, 'a']],
    ['{"a":{"b":[]}}', false, { a: { b: [] } }],
    ['{}', false, {}],
    ['[draft] notes', false, '[draft] notes'],
    ['{not json}', false, '{not json}'],
    [' [1]', false, ' [1]'],
    ['"quoted"', false, '"quoted"'],
  ])('CSV %j (quoted: %s) is %j', (text, quoted, value) => {
    expect(fromCsvCell(text, quoted)).toEqual(value);
  });

  it('reads string cells without guessing numbers or booleans', () => {
    expect(fromStringCell('42')).toBe('42');
    expect(fromStringCell('true')).toBe('true');
    expect(fromStringCell('null')).toBeNull();
    expect(fromStringCell('[1]')).toEqual([1]);
  });
});
