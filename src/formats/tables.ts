/**
 * Records ⇄ CSV and XLSX tables, for a custom collection's export and import. Pure functions:
 * no HTTP, no engine; every refusal is a {@link TableError} with up to 10 `{row, column, message}`
 * problems, 1-based as a spreadsheet shows them (row 1 = header, column 1 = A).
 *
 * Columns. Nested objects become dotted columns (`address.geo.lat`) and come back as objects;
 * `id` comes first, then every other column in the order first seen (records in order, keys in
 * order). A key holding `.` or `\` is escaped in the column name (`a\.b`, `a\\b`). Arrays, empty
 * objects and objects holding an empty key are one cell of JSON text. `null` is the text `null`;
 * a missing field is an empty cell. On import, `id`, `_sandbox` (and `id.*`, `_sandbox.*`)
 * columns are ignored: records are created anew. A row with no value in any cell (ignored
 * columns included) is skipped; a row may not fill both `a` and `a.b`.
 *
 * Import header rules: row 1 is the header; an empty name, an empty key (`a..b`), two columns
 * naming the same field, or more than `maxColumns` columns are refused.
 *
 * CSV (RFC 4180): UTF-8 with a BOM (so Excel reads it as UTF-8), CRLF rows, comma separator,
 * `"` quoting; import accepts BOM or none, CRLF or LF, and refuses bytes that are not UTF-8,
 * malformed quoting (with the row and line) and rows whose cell count differs from the header.
 * Cell text becomes: empty → field missing; `""` (quoted empty) → empty string; `true`/`false`/
 * `TRUE`/`FALSE` → boolean; a number only when the text is exactly how JavaScript writes it
 * (`42`, `-3.5`, `1e+21`; not `007`, `1.50`, `+5`, ` 5`, `1e400`, `0x1F`, 20-digit ids); `null`
 * → null; text starting with `[`/`{` that parses as a JSON array/object → that value; anything
 * else → the string, spaces kept. So CSV cannot round-trip strings that read as another type:
 * `"42"`, `"true"`, `"null"`, `"[1]"` come back as 42, true, null, [1].
 *
 * XLSX: the first worksheet; numbers and booleans are native cells, strings are string cells
 * (so `"42"` and `"true"` round-trip); dates are read as ISO 8601 UTC strings and formulas as
 * their saved result; error cells and never-calculated formulas are refused. Only the strings
 * `"null"` and JSON-array/object-looking text do not round-trip. Before exceljs reads a byte
 * the zip is inspected (zip-guard.ts): entry count, declared and actual inflated size
 * (`maxUncompressedBytes`), stored rows per sheet (`maxRows + 1`), cells in all sheets and
 * defined-name areas (`(maxRows + 1) × maxColumns`), so a zip bomb or a sheet of 10^6 rows is a
 * TableError, not an out-of-memory; once loaded, the cells' text with each shared string counted
 * per cell naming it is held to `maxExpandedText` before any cell becomes a value.
 *
 * Both formats: more than `maxRows` data rows is an error found without parsing the rest; a
 * record nests at most `maxDepth` levels (a column `a.b` puts its cell at level 3, a JSON cell
 * adds its own), measured without recursion, so a cell nested 100,000 deep is a located problem.
 * Imported records list their keys in column order (JSON objects are unordered; equal values).
 * Not carried by either format: a top-level empty key (exported as an empty column name, which
 * import refuses) and lone UTF-16 surrogates (written as U+FFFD, as any UTF-8 text must).
 * XLSX also writes control characters as `_xHHHH_` escapes (as Excel does), so they survive;
 * Excel itself will not show a cell longer than 32,767 characters, though exceljs reads it back.
 */
export { csvToRecords, recordsToCsv, type CsvLimits } from './csv.js';
export { TableError, type TableProblem } from './table-error.js';
export type { Value } from './unflatten.js';
export { recordsToXlsx, xlsxToRecords, type XlsxLimits } from './xlsx.js';

export { csvContentType, xlsxContentType } from './content-types.js';
