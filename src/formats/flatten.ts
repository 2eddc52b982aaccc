import { toColumnName } from './column-name.js';

/**
 * Records → a table of dotted columns. The rules (the import side is unflatten.ts):
 * - Columns: `id` first when any record has one, then every other path in the order first seen,
 *   walking the records in order and each record's keys in order (depth first).
 * - A nested object becomes one column per leaf (`address.city`, `address.geo.lat`); an empty
 *   object, or one holding an empty key (no column name can say it), is one cell of JSON text.
 * - An array is one cell of JSON text (`[1,"a",{"b":2}]`), whatever it holds.
 * - `null` is the text `null`; a missing field is an empty cell. Both formats keep them apart.
 * - Strings, numbers and booleans stay typed here; each format writes them its own way.
 * - A top-level empty key gets an empty column name, which the importer refuses: the one record
 *   shape that exports but cannot come back.
 */
export type Cell = string | number | boolean | undefined;

export interface Table {
  columns: string[];
  /** One array per record, aligned with `columns`; `undefined` for a missing field. */
  rows: Cell[][];
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function flattenRecords(records: readonly Record<string, unknown>[]): Table {
  const index = new Map<string, number>();
  const columns: string[] = [];
  // Keep `id` first whatever order the keys come in; dropped below when no record has one.
  index.set('id', 0);
  columns.push('id');
  let anyId = false;
  const cellMaps = records.map((record) => {
    const cells = new Map<number, Cell>();
    walk(record as Record<string, Json>, [], (path, cell) => {
      const name = toColumnName(path);
      let at = index.get(name);
      if (at === undefined) {
        at = columns.length;
        index.set(name, at);
        columns.push(name);
      }
      if (at === 0) anyId = true;
      cells.set(at, cell);
    });
    return cells;
  });
  const from = anyId ? 0 : 1;
  const rows = cellMaps.map((cells) => {
    const row: Cell[] = new Array(columns.length - from).fill(undefined);
    for (const [at, cell] of cells) row[at - from] = cell;
    return row;
  });
  return { columns: columns.slice(from), rows };
}

function walk(object: { [key: string]: Json }, path: string[], emit: (path: string[], cell: Cell) => void): void {
  for (const [key, value] of Object.entries(object)) {
    const here = [...path, key];
    if (value === undefined) continue;
    if (isNestable(value)) walk(value, here, emit);
    else emit(here, toCell(value));
  }
}

function isNestable(value: Json): value is { [key: string]: Json } {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length > 0 && !keys.includes('');
}

function toCell(value: Json): Cell {
  if (value === null) return 'null';
  if (typeof value === 'object') return JSON.stringify(value);
  return value;
}
