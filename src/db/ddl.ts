import { Column, is, SQL, StringChunk } from 'drizzle-orm';
import { getTableConfig, type SQLiteColumn, type SQLiteTable } from 'drizzle-orm/sqlite-core';

/**
 * The DDL of drizzle tables, derived from them (drizzle-kit generates migrations at build time;
 * this is the small part of it a file needs at open: CREATE ... IF NOT EXISTS). It covers what
 * `schema.ts` uses: column types, NOT NULL, single and composite primary keys, AUTOINCREMENT,
 * UNIQUE, literal defaults, and indexes over columns and expressions. Anything else throws, so a
 * table never silently gets less than it declares. Identifiers are written bare, as in every file
 * made before the DDL was derived (`sqlite_master` holds the same text).
 */
export function createTableSql(table: SQLiteTable, { withoutRowid = false } = {}): string {
  const config = getTableConfig(table);
  if (config.foreignKeys.length || config.checks.length) throw new Error(`${config.name}: foreign keys and checks are not written by ddl.ts`);
  const lines = config.columns.map(columnSql);
  for (const key of config.primaryKeys) lines.push(`PRIMARY KEY (${key.columns.map(columnName).join(', ')})`);
  for (const unique of config.uniqueConstraints) lines.push(`UNIQUE (${unique.columns.map(columnName).join(', ')})`);
  return `CREATE TABLE IF NOT EXISTS ${identifier(config.name)} (\n${lines.map((line) => `  ${line}`).join(',\n')}\n)${withoutRowid ? ' WITHOUT ROWID' : ''};`;
}

/** The table's indexes, one CREATE INDEX IF NOT EXISTS each (after the tables and their upgrades: an index may name a column an upgrade adds). */
export function createIndexesSql(table: SQLiteTable): string[] {
  const config = getTableConfig(table);
  return config.indexes.map(({ config: index }) => {
    if (index.where) throw new Error(`${index.name}: partial indexes are not written by ddl.ts`);
    const columns = index.columns.map((column) => (is(column, SQL) ? sqlText(column) : columnName(column)));
    return `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS ${identifier(index.name)} ON ${identifier(config.name)} (${columns.join(', ')});`;
  });
}

/** `ALTER TABLE ... ADD COLUMN` for an upgrade step: an older file gains the column as the table declares it. */
export function addColumnSql(table: SQLiteTable, column: SQLiteColumn): string {
  return `ALTER TABLE ${identifier(getTableConfig(table).name)} ADD COLUMN ${columnSql(column)}`;
}

function columnSql(column: SQLiteColumn): string {
  const parts = [columnName(column), column.getSQLType().toUpperCase()];
  if (column.primary) {
    // As SQLite's own `PRIMARY KEY` implies it for a rowid alias; a text key was never declared NOT NULL.
    parts.push('PRIMARY KEY');
    if ('autoIncrement' in column && column.autoIncrement) parts.push('AUTOINCREMENT');
  } else if (column.notNull) {
    parts.push('NOT NULL');
  }
  if (column.isUnique) parts.push('UNIQUE');
  // hasDefault is also set for AUTOINCREMENT and $defaultFn (made by SQLite or in JavaScript): no DDL for those.
  if (column.default !== undefined) parts.push(`DEFAULT ${literal(column)}`);
  return parts.join(' ');
}

function literal(column: SQLiteColumn): string {
  const value = column.default;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'string') return `'${value.replaceAll("'", "''")}'`;
  if (is(value, SQL)) return `(${sqlText(value)})`;
  throw new Error(`${column.name}: only number, text and sql defaults are written by ddl.ts`);
}

/** An expression such as sql`-${t.seq}`, with its columns named bare (no parameters: DDL has none). */
function sqlText(expression: SQL): string {
  return expression.queryChunks
    .map((chunk) => {
      if (is(chunk, StringChunk)) return chunk.value.join('');
      if (is(chunk, Column)) return columnName(chunk as SQLiteColumn);
      if (is(chunk, SQL)) return sqlText(chunk);
      throw new Error('an index expression may hold only SQL text and columns');
    })
    .join('');
}

const columnName = (column: SQLiteColumn) => identifier(column.name);

function identifier(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`${JSON.stringify(name)}: ddl.ts writes bare lower-case identifiers only`);
  return name;
}
