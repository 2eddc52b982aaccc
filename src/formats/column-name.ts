/**
 * Column names are dotted paths into a record: `address.city` is `record.address.city`. A key
 * that itself holds a dot or a backslash is escaped with a backslash (`a\.b` is the one key
 * `a.b`, `a\\b` is the key `a\b`), so every non-empty key round-trips; a backslash before any
 * other character is kept as it is, so hand-written headers rarely need escaping at all.
 */

export function toColumnName(path: readonly string[]): string {
  return path.map((key) => key.replace(/[\\.]/g, '\\$&')).join('.');
}

/** The path a column name stands for, or a reason it stands for none (empty name or key). */
export function parseColumnName(name: string): string[] | { problem: string } {
  if (name === '') return { problem: 'the header cell is empty; every column needs a name' };
  const path: string[] = [];
  let key = '';
  for (let i = 0; i < name.length; i++) {
    const char = name[i];
    const next = name[i + 1];
    if (char === '\\' && (next === '.' || next === '\\')) {
      key += next;
      i++;
    } else if (char === '.') {
      path.push(key);
      key = '';
    } else {
      key += char;
    }
  }
  path.push(key);
  if (path.includes('')) return { problem: `column name "${name}" has an empty key (a leading, trailing or doubled dot; write \\. for a dot inside a key)` };
  return path;
}
