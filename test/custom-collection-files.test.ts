import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { sandboxClient, useServer } from './helpers/server.js';
import { configuredServers } from './helpers/configured.js';
import { expected, samples } from './helpers/format-samples.js';
import { repeatedEntry, zip } from './helpers/zip-writer.js';

const server = useServer();
const fresh = () => sandboxClient(server.api);
const configured = configuredServers();
const xlsxType = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** The sandbox's records of a collection, oldest first, without what an import assigns anew. */
async function recordsOf(client: ReturnType<typeof fresh>, name: string): Promise<Record<string, unknown>[]> {
  const answer = await client.get(`/custom/${name}?limit=200`);
  expect(answer.status, answer.text).toBe(200);
  return answer.body.data.reverse().map(({ id: _id, _sandbox, ...rest }: Record<string, unknown>) => rest);
}

async function download(client: ReturnType<typeof fresh>, path: string): Promise<{ status: number; type: string | null; disposition: string | null; bytes: Buffer }> {
  const res = await fetch(`${server.api}${path}`, { headers: { cookie: `svc_identity=${client.id}` } });
  return { status: res.status, type: res.headers.get('content-type'), disposition: res.headers.get('content-disposition'), bytes: Buffer.from(await res.arrayBuffer()) };
}

async function upload(client: ReturnType<typeof fresh>, name: string, bytes: Buffer | string, type: string, api = server.api) {
  const res = await fetch(`${api}/custom/${name}/import`, { method: 'POST', headers: { cookie: `svc_identity=${client.id}`, 'content-type': type }, body: typeof bytes === 'string' ? bytes : new Uint8Array(bytes) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, text };
}

async function seeded(): Promise<ReturnType<typeof fresh>> {
  const client = fresh();
  for (const { id: _id, _sandbox, ...record } of samples) {
    const created = await client.post('/custom/people', record);
    expect(created.status, created.text).toBe(200);
  }
  return client;
}

describe('CSV and XLSX export and import of a custom collection', () => {
  it('CSV: export, then import into another sandbox gives the same records (nested objects, unicode, commas, quotes, newlines)', async () => {
    const source = await seeded();
    const file = await download(source, '/custom/people/export?format=csv');
    expect(file.status).toBe(200);
    expect(file.type).toBe('text/csv; charset=utf-8');
    expect(file.disposition).toBe('attachment; filename="people.csv"');
    const text = file.bytes.toString('utf8');
    expect(text.startsWith('\uFEFFid,')).toBe(true);
    expect(text).toContain('address.city');

    const target = fresh();
    const imported = await upload(target, 'people', file.bytes, 'text/csv');
    expect(imported.status, imported.text).toBe(200);
    expect(imported.body).toMatchObject({ collection: 'people', imported: samples.length });
    expect(await recordsOf(target, 'people')).toEqual(expected);
    // Imported records are the sandbox's own: searchable, filterable, with events.
    expect((await target.get('/custom/people?q=zurich')).body.pagination.total).toBe(1);
    expect((await target.get('/custom/people?address.city=Paris')).body.pagination.total).toBe(1);
  });

  it('XLSX: export opens in a spreadsheet reader with typed cells, and imports back to the same records', async () => {
    const source = await seeded();
    const file = await download(source, '/custom/people/export?format=xlsx');
    expect(file.status).toBe(200);
    expect(file.type).toBe(xlsxType);
    expect(file.disposition).toBe('attachment; filename="people.xlsx"');

    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(file.bytes as unknown as ArrayBuffer);
    const sheet = workbook.worksheets[0]!;
    const header = (sheet.getRow(1).values as unknown[]).slice(1);
    expect(header[0]).toBe('id');
    const column = (name: string) => header.indexOf(name) + 1;
    const ada = sheet.getRow(2);
    expect(ada.getCell(column('name')).value).toBe('Ada');
    expect(ada.getCell(column('age')).value).toBe(36);
    expect(ada.getCell(column('active')).value).toBe(true);
    expect(ada.getCell(column('address.city')).value).toBe('Zürich');
    expect(ada.getCell(column('address.geo.lat')).value).toBe(47.37);

    const target = fresh();
    const imported = await upload(target, 'people', file.bytes, xlsxType);
    expect(imported.status, imported.text).toBe(200);
    expect(await recordsOf(target, 'people')).toEqual(expected);
  });

  it('a malformed CSV is 400 INVALID_TABLE with rows and columns, and writes nothing', async () => {
    const client = fresh();
    const ragged = await upload(client, 'things', 'name,age\nAda,36\nBob\n', 'text/csv');
    expect(ragged.status).toBe(400);
    expect(ragged.body.code).toBe('INVALID_TABLE');
    expect(ragged.body.errors[0]).toMatchObject({ row: 3, message: expect.any(String) });
    const unclosed = await upload(client, 'things', 'name,age\nAda,36\n"unclosed,1\n', 'text/csv');
    expect(unclosed.status).toBe(400);
    expect(unclosed.body.errors[0]).toMatchObject({ row: 3 });
    const badHeader = await upload(client, 'things', 'name,name\n1,2\n', 'text/csv');
    expect(badHeader.status).toBe(400);
    expect(badHeader.body.errors[0]).toMatchObject({ row: 1, column: 2, path: 'B1' });
    expect((await client.get('/custom')).body.data).toEqual([]);
  });

  it('a corrupt or hostile XLSX is 400 and writes nothing', async () => {
    const client = fresh();
    const good = await download(await seeded(), '/custom/people/export?format=xlsx');
    for (const bytes of [Buffer.from('not a zip at all'), good.bytes.subarray(0, good.bytes.length >> 1), zip([])]) {
      const answer = await upload(client, 'things', bytes, xlsxType);
      expect(answer.status, answer.text).toBe(400);
      expect(answer.body.code).toBe('INVALID_TABLE');
    }
    // 200 MB of sheet in a few hundred KB.
    const bomb = zip([await repeatedEntry('xl/worksheets/sheet1.xml', ' '.repeat(1 << 20), 200, '<worksheet><sheetData>', '</sheetData></worksheet>')]);
    expect(bomb.length).toBeLessThan(1 << 20);
    const refused = await upload(client, 'things', bomb, xlsxType);
    expect(refused.status, refused.text).toBe(400);
    expect((await client.get('/custom')).body.data).toEqual([]);
    // The server keeps serving.
    expect((await client.get('/custom/people')).status).toBe(200);
  });

  it('the caps hold: limits.customRecords (403, nothing written), bodyBytes (413), the content type (415), the format (400)', async () => {
    const limited = await configured.serve({ limits: { customRecords: 3, bodyBytes: 4096 } });
    const client = sandboxClient(limited.api);
    await client.post('/custom/things', { n: 0 });
    const over = await upload(client, 'things', 'n\n1\n2\n3\n', 'text/csv', limited.api);
    expect(over.status, over.text).toBe(403);
    expect(over.body.code).toBe('QUOTA_EXCEEDED');
    expect(over.body.detail).toContain('limits.customRecords');
    expect(over.body.detail).toContain('would bring things to 4');
    const tooManyRows = await upload(client, 'other', 'n\n1\n2\n3\n4\n', 'text/csv', limited.api);
    expect(tooManyRows.status).toBe(400);
    expect((await client.get('/custom/things')).body.pagination.total).toBe(1);
    expect((await client.get('/custom')).body.data.map((c: { name: string }) => c.name)).toEqual(['things']);

    expect((await upload(client, 'things', `n\n${'x'.repeat(5000)}\n`, 'text/csv', limited.api)).status).toBe(413);
    expect((await upload(client, 'things', '{"n":1}', 'application/json', limited.api)).status).toBe(415);
    const format = await client.get('/custom/things/export?format=pdf');
    expect(format.status).toBe(400);
    expect(format.body.code).toBe('INVALID_QUERY');
    expect((await client.get('/custom/Bad/export')).status).toBe(400);
  });

  it('an empty collection exports a file with no rows', async () => {
    const client = fresh();
    const csv = await download(client, '/custom/nothing/export');
    expect(csv.status).toBe(200);
    expect(csv.bytes.toString('utf8').replace('\uFEFF', '').trim()).toBe('');
    const xlsx = await download(client, '/custom/nothing/export?format=xlsx');
    expect(xlsx.status).toBe(200);
  });
});
