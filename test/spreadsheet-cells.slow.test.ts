import ExcelJS from 'exceljs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { maxRecordDepth } from '../src/engine/validate.js';
import { csvToRecords, TableError, xlsxToRecords } from '../src/formats/tables.js';
import { nestingDepth } from '../src/json-depth.js';
import { sharedStringWorkbook } from './helpers/xlsx-files.js';
import { sandboxClient, useServer } from './helpers/server.js';

/**
 * A fuzz of spreadsheet cells (issue 28): nesting depth, size and shared strings. Whatever the
 * cells hold, a table becomes records the engine can store (no deeper than maxRecordDepth, so
 * SQLite's JSON functions and JSON.stringify read them) or a TableError naming where; over HTTP,
 * never a 500, and the server keeps answering.
 */
const server = useServer();
const limits = { maxRows: 50, maxColumns: 20, maxDepth: maxRecordDepth, maxUncompressedBytes: 8_000_000, maxExpandedText: 200_000 };
const xlsxType = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** JSON text nested `depth` levels, mixing arrays and objects, with `filler` characters at the bottom. */
const nestedText = fc.record({ depth: fc.integer({ min: 0, max: 3_000 }), kinds: fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }), filler: fc.string({ maxLength: 20 }) }).map(
  ({ depth, kinds, filler }) => {
    let text = JSON.stringify(filler);
    for (let i = 0; i < depth; i++) text = kinds[i % kinds.length] ? `[${text}]` : `{"k":${text}}`;
    return text;
  },
);
/** What a user types in a cell: text, numbers, JSON (shallow or deep), long runs. */
const cell = fc.oneof(
  nestedText,
  fc.json({ maxDepth: 6 }),
  fc.string({ maxLength: 40 }),
  fc.integer().map(String),
  fc.record({ char: fc.constantFrom('x', 'é', '"', ',', '\n', '['), times: fc.integer({ min: 0, max: 20_000 }) }).map(({ char, times }) => char.repeat(times)),
);
const header = fc.constantFrom('a', 'b.c', 'd.e.f', Array.from({ length: 30 }, (_, i) => `k${i}`).join('.'));
const table = fc.record({ columns: fc.uniqueArray(header, { minLength: 1, maxLength: 4 }), rows: fc.array(fc.array(cell, { minLength: 4, maxLength: 4 }), { minLength: 1, maxLength: 4 }) });

const csvOf = ({ columns, rows }: { columns: string[]; rows: string[][] }) =>
  [columns, ...rows.map((row) => row.slice(0, columns.length))].map((row) => row.map((text) => `"${text.replace(/"/g, '""')}"`).join(',')).join('\r\n');

async function xlsxOf({ columns, rows }: { columns: string[]; rows: string[][] }): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  book.addWorksheet('s').addRows([columns, ...rows.map((row) => row.slice(0, columns.length))]);
  return Buffer.from(await book.xlsx.writeBuffer());
}

/** Records within the bound that JSON.stringify can write, or a TableError whose problems say where. */
function expectStorableOrLocated(outcome: { records?: Record<string, unknown>[]; error?: unknown }): void {
  if (outcome.records) {
    for (const record of outcome.records) {
      expect(nestingDepth(record)).toBeLessThanOrEqual(maxRecordDepth);
      expect(() => JSON.stringify(record)).not.toThrow();
    }
    return;
  }
  expect(outcome.error).toBeInstanceOf(TableError);
  for (const problem of (outcome.error as TableError).problems) expect(problem.message.length).toBeGreaterThan(0);
}

const settle = async <T,>(work: () => T | Promise<T>) => {
  try {
    return { records: (await work()) as Record<string, unknown>[] };
  } catch (error) {
    return { error };
  }
};

describe('spreadsheet cells, fuzzed', () => {
  it('CSV: any cells give storable records or located problems', async () => {
    await fc.assert(
      fc.asyncProperty(table, async (t) => expectStorableOrLocated(await settle(() => csvToRecords(Buffer.from(csvOf(t)), limits)))),
      { numRuns: 300 },
    );
  });

  it('XLSX: any cells give storable records or located problems', async () => {
    await fc.assert(
      fc.asyncProperty(table, async (t) => expectStorableOrLocated(await settle(async () => xlsxToRecords(await xlsxOf(t), limits)))),
      { numRuns: 120 },
    );
  }, 120_000);

  it('XLSX shared strings: refused exactly when the expanded text passes the bound', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 20_000 }), async (rows, length) => {
        const outcome = await settle(async () => xlsxToRecords(await sharedStringWorkbook(rows, length), limits));
        // The header `a` is one character; each row names the one shared string.
        const expanded = 1 + rows * length;
        if (expanded > limits.maxExpandedText) expect((outcome.error as TableError).message).toContain('once shared strings are expanded');
        else expect(outcome.records).toHaveLength(rows);
      }),
      { numRuns: 60 },
    );
  }, 120_000);

  it('over HTTP: never a 500, and the server keeps answering', async () => {
    const client = sandboxClient(server.api);
    await fc.assert(
      fc.asyncProperty(table, fc.boolean(), async (t, csv) => {
        const body = csv ? Buffer.from(csvOf(t)) : await xlsxOf(t);
        const res = await fetch(`${server.api}/custom/fuzz/import`, {
          method: 'POST',
          headers: { cookie: `svc_identity=${client.id}`, 'content-type': csv ? 'text/csv' : xlsxType },
          body: new Uint8Array(body),
        });
        const text = await res.text();
        expect([200, 400, 403, 413], text).toContain(res.status);
        if (res.status === 200) expect((await client.post('/sandbox/reset')).status).toBe(200);
      }),
      { numRuns: 60 },
    );
    expect((await client.get('/custom/fuzz?q=x')).status).toBe(200);
  }, 180_000);
});
