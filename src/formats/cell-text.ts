import type { Value } from './unflatten.js';

/**
 * How a cell's text becomes a JSON value. CSV has only text, so all of this applies to it; XLSX
 * cells carry their own number and boolean types, so only {@link fromStringCell} applies there.
 */

/**
 * A number exactly when the text is the way JavaScript writes that number:
 * `String(Number(text)) === text`. So `42`, `-3.5`, `0.1`, `1e+21` are numbers, and every
 * number the exporter writes comes back unchanged; `007`, `1.50`, `+5`, ` 5`, `1e400`, `1E5`,
 * `0x1F`, `-0`, `12345678901234567890` (past 2^53, digits would be lost), `Infinity` and phone
 * numbers written with a `+`, a leading zero or separators stay strings. A bare run of digits
 * without a leading zero (`5551234567`) is a number: nothing in the text says otherwise.
 */
export function isCanonicalNumber(text: string): boolean {
  if (text === '') return false;
  const number = Number(text);
  return Number.isFinite(number) && String(number) === text;
}

/**
 * A string cell's text: `null` is null, and text that starts with `[` or `{` and parses as a
 * JSON array or object is that array or object (how flatten.ts writes arrays and objects it
 * cannot split into columns); any other text is the string itself, spaces included.
 */
export function fromStringCell(text: string): Value {
  if (text === 'null') return null;
  const first = text[0];
  if (first === '[' || first === '{') {
    try {
      const parsed = JSON.parse(text) as Value;
      if (typeof parsed === 'object' && parsed !== null) return parsed;
    } catch {
      // Not JSON after all (`[draft] notes`): it stays text.
    }
  }
  return text;
}

/**
 * A CSV cell: an unquoted empty cell is a missing field, a quoted empty cell (`""`) the empty
 * string; `true`/`false` (and Excel's `TRUE`/`FALSE`) are booleans; canonical numbers are
 * numbers; then {@link fromStringCell}. Quoting decides nothing else: `"42"` is the number 42.
 */
export function fromCsvCell(text: string, quoted: boolean): Value | undefined {
  if (text === '') return quoted ? '' : undefined;
  if (text === 'true' || text === 'TRUE') return true;
  if (text === 'false' || text === 'FALSE') return false;
  if (isCanonicalNumber(text)) return Number(text);
  return fromStringCell(text);
}
