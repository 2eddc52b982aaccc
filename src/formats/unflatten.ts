import { nestingDepth } from '../json-depth.js';
import { parseColumnName, toColumnName } from './column-name.js';
import type { ProblemList } from './table-error.js';

/**
 * A table's header and typed cells → records (the reverse of flatten.ts):
 * - The header is row 1; every column needs a non-empty name, no empty key (`a..b`), and no two
 *   columns may name the same path (`a\b` and `a\\b` both name the key `a\b`).
 * - `id` and `_sandbox` columns (and any `id.*`, `_sandbox.*`) are ignored: imported records are
 *   created anew, with new ids, in the importing sandbox.
 * - An absent cell (`undefined`) leaves the field out; dotted columns rebuild nested objects,
 *   created only when one of their fields has a value.
 * - A row may not give a value both to `a` and to `a.b` (`a` would be a value and an object).
 * - A record may nest at most `maxDepth` levels (the record is level 1): a column `a.b.c` puts its
 *   value at level 3, and a JSON cell adds its own nesting (checked without recursion).
 */
export type Value = null | boolean | number | string | Value[] | { [key: string]: Value };

/** A column's path, or null for a column the importer ignores. */
export type ColumnPath = string[] | null;

const ignoredKeys = new Set(['id', '_sandbox']);

/** What a table may hold: columns in the header, levels of nesting in a record. */
export interface ShapeLimits {
  maxColumns: number;
  maxDepth: number;
}

export function readHeader(names: readonly string[], limits: ShapeLimits, problems: ProblemList): ColumnPath[] {
  const { maxColumns, maxDepth } = limits;
  if (names.length > maxColumns) problems.add({ row: 1, message: `the table has ${names.length} columns; at most ${maxColumns} are allowed` });
  const seen = new Map<string, number>();
  return names.map((name, i) => {
    const column = i + 1;
    const path = parseColumnName(name);
    if (!Array.isArray(path)) {
      problems.add({ row: 1, column, message: path.problem });
      return null;
    }
    if (path.length > maxDepth) problems.add({ row: 1, column, message: `the column names a field ${path.length} levels deep; records nest at most ${maxDepth} levels` });
    const key = JSON.stringify(path);
    const first = seen.get(key);
    if (first !== undefined) problems.add({ row: 1, column, message: `column "${name}" repeats column ${first} (the same field)` });
    seen.set(key, column);
    return ignoredKeys.has(path[0]) ? null : path;
  });
}

/** True when the row has no value at all, ignored columns included: a blank row to skip. */
export function isBlankRow(values: readonly (Value | undefined)[]): boolean {
  return values.every((value) => value === undefined);
}

export function toRecord(paths: readonly ColumnPath[], values: readonly (Value | undefined)[], row: number, limits: ShapeLimits, problems: ProblemList): Record<string, Value> {
  const record: Record<string, Value> = {};
  // Objects this row built from dotted columns: only these may receive more keys. An object
  // that came whole from a JSON cell is a value, and a second column may not reach into it.
  const built = new Set<object>([record]);
  for (let i = 0; i < paths.length; i++) {
    const path = paths[i];
    const value = values[i];
    if (!path || value === undefined) continue;
    if (typeof value === 'object' && value !== null && path.length + nestingDepth(value, limits.maxDepth) > limits.maxDepth) {
      problems.add({ row, column: i + 1, message: `the cell's JSON nests too deep: records nest at most ${limits.maxDepth} levels, and this column's value starts at level ${path.length + 1}` });
      continue;
    }
    let target: Record<string, Value> = record;
    let depth = 0;
    for (; depth < path.length - 1; depth++) {
      const existing = Object.hasOwn(target, path[depth]) ? target[path[depth]] : undefined;
      if (existing === undefined) {
        const child: Record<string, Value> = {};
        put(target, path[depth], child);
        built.add(child);
        target = child;
      } else if (typeof existing === 'object' && existing !== null && built.has(existing)) {
        target = existing as Record<string, Value>;
      } else break;
    }
    if (depth < path.length - 1 || Object.hasOwn(target, path[depth])) {
      const clash = toColumnName(path.slice(0, depth + 1));
      problems.add({ row, column: i + 1, message: `"${clash}" cannot be both a value and an object: leave either "${clash}" or its dotted columns empty` });
      continue;
    }
    put(target, path[depth], value);
  }
  return record;
}

/** Defines the key as a plain own property: `__proto__` from a header must not reach a prototype. */
function put(target: Record<string, Value>, key: string, value: Value): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
