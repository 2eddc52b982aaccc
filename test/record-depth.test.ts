import Database from 'better-sqlite3';
import ExcelJS from 'exceljs';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runInProcess } from './helpers/cli-in-process.js';
import { sandboxClient, startServer, useServer, type RunningServer } from './helpers/server.js';

/**
 * Issue 28, defect 1: one nesting bound (32 levels, the record itself level 1) for every way a
 * record comes in, and no stored record ever breaks a rebuild of the search index. SQLite's JSON
 * functions refuse more than 1,000 levels; a spreadsheet cell of JSON nested 2,000 deep used to
 * be stored, and a later rebuild failed `serve`, `reset`, `import --dry-run` and restores.
 */
const server = useServer();
const fresh = () => sandboxClient(server.api);
const xlsxType = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const deepArray = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
/** A value nesting `levels` levels: objects holding `{v}` and a searchable word at the bottom. */
const nested = (levels: number, leaf: unknown = 'bottomword'): unknown => {
  let value = leaf;
  for (let i = 0; i < levels; i++) value = { v: value };
  return value;
};

async function upload(client: ReturnType<typeof fresh>, name: string, body: Buffer | string, type: string) {
  const res = await fetch(`${server.api}/custom/${name}/import`, { method: 'POST', headers: { cookie: `svc_identity=${client.id}`, 'content-type': type }, body: typeof body === 'string' ? body : new Uint8Array(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, text };
}

describe('one nesting bound for every way in', () => {
  it.each([2_000, 5_000, 100_000])('a CSV cell of JSON nested %i deep is 400 INVALID_TABLE naming its cell, and nothing is stored', async (levels) => {
    const client = fresh();
    const answer = await upload(client, 'deep', `name,data\nfine,1\nbad,"${deepArray(levels)}"\n`, 'text/csv');
    expect(answer.status, answer.text).toBe(400);
    expect(answer.body).toMatchObject({ code: 'INVALID_TABLE', errors: [{ path: 'B3', row: 3, column: 2, message: expect.stringContaining('nests too deep') }] });
    expect((await client.get('/custom/deep')).body.data).toEqual([]);
  });

  it('an XLSX cell of JSON nested 2,000 deep is 400 INVALID_TABLE naming its cell', async () => {
    const book = new ExcelJS.Workbook();
    const sheet = book.addWorksheet('s');
    sheet.addRow(['name', 'data']);
    sheet.addRow(['bad', deepArray(2_000)]);
    const answer = await upload(fresh(), 'deep', Buffer.from(await book.xlsx.writeBuffer()), xlsxType);
    expect(answer.status, answer.text).toBe(400);
    expect(answer.body).toMatchObject({ code: 'INVALID_TABLE', errors: [{ path: 'B2', row: 2, column: 2 }] });
  });

  it('a spreadsheet may fill a record to exactly 32 levels (dotted column included), the same as REST', async () => {
    const client = fresh();
    // a.b puts the cell at level 3; a cell of 30 levels reaches 32.
    expect((await upload(client, 'edge', `a.b\n"${deepArray(30)}"\n`, 'text/csv')).status).toBe(200);
    expect((await upload(client, 'edge', `a.b\n"${deepArray(31)}"\n`, 'text/csv')).status).toBe(400);
    expect((await client.post('/custom/edge', nested(32))).status).toBe(200);
    expect((await client.post('/custom/edge', nested(33))).body.code).toBe('INVALID_BODY');
  });

  it("a sandbox's own export imports back over HTTP, with records 32 levels deep in it and in a snapshot", async () => {
    const source = fresh();
    expect((await source.post('/custom/deep', { top: nested(31) })).status).toBe(200);
    expect((await source.post('/sandbox/snapshots', { name: 'deep-one' })).status).toBe(200);
    const exported = await source.get('/sandbox/export');
    expect(exported.status).toBe(200);
    const target = fresh();
    const imported = await target.post('/sandbox/import', exported.body);
    expect(imported.status, imported.text).toBe(200);
    expect((await target.get('/custom/deep?q=bottomword')).body.pagination.total).toBe(1);
    expect((await target.post('/sandbox/snapshots/deep-one/restore')).status).toBe(200);
  });

  it('an export document holding a record deeper than 32 levels is refused by the import, naming the field', async () => {
    const exported = (await fresh().get('/sandbox/export')).body;
    // The record is level 7 of the document: 33 levels of record stay within the document's bound.
    exported.sandboxes[0].collections = { 'custom.deep': { created: [{ id: `local-${crypto.randomUUID()}`, _sandbox: 'created', data: nested(32) }] } };
    const answer = await fresh().post('/sandbox/import', exported);
    expect(answer.status, answer.text).toBe(422);
    expect(answer.body.errors).toEqual([{ path: '/sandboxes/0/collections/custom.deep/created/0/data', message: expect.stringContaining('deeper than 32 levels') }]);
  });
});

describe("custom routes' ctx.collection writes", () => {
  let running: RunningServer | undefined;
  afterAll(async () => {
    await running?.cleanup();
  });

  it('hold to the same bound: a 2,000-level value is refused (not stored), a 31-level one stored', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mockapi-depth-routes-'));
    const route = `async (request, ctx) => {
      let value = 'leaf';
      for (let i = 0; i < Number(ctx.query.get('levels')); i++) value = [value];
      return ctx.collection('custom.things').create({ value });
    }`;
    writeFileSync(join(dir, 'mockapi.config.mjs'), `export default { routes: { 'POST /nest': ${route} } };\n`);
    running = await startServer({ cwd: dir });
    const client = sandboxClient(running.api);
    const deep = await client.post('/nest?levels=2000');
    expect(deep.status, deep.text.slice(0, 300)).toBe(422);
    expect(deep.body.errors).toEqual([{ path: '/value', message: expect.stringContaining('deeper than 32 levels') }]);
    expect((await client.post('/nest?levels=31')).status).toBe(200);
    expect((await client.get('/custom/things')).body.pagination.total).toBe(1);
  });
});

describe('a record stored too deep by an older version breaks no rebuild', () => {
  const started: RunningServer[] = [];
  afterAll(async () => {
    for (const one of started) await one.cleanup();
  });

  it('serve after a search-field change, import --dry-run, snapshot restore and reset --all all work, and its text stays searchable', async () => {
    let running = await startServer();
    started.push(running);
    const client = sandboxClient(running.api);
    expect((await client.post('/custom/legacy', { title: 'placeholder' })).status).toBe(200);
    expect((await client.post('/sandbox/snapshots', { name: 'kept' })).status).toBe(200);
    const exported = (await client.get('/sandbox/export')).body;
    await running.stop();

    // What an older version let in: a doc nested 2,000 deep, in the overlay and in the snapshot.
    const deepDoc = (id: string) => JSON.stringify({ id, title: 'legacyword', data: JSON.parse(deepArray(2_000)), _sandbox: 'created' });
    const file = new Database(running.db);
    for (const table of ['overlay', 'snapshot_rows']) {
      const ids = file.prepare(`SELECT id FROM ${table} WHERE cid >= ${2 ** 20}`).pluck().all() as string[];
      expect(ids).toHaveLength(1);
      file.prepare(`UPDATE ${table} SET doc = ? WHERE cid >= ${2 ** 20}`).run(deepDoc(ids[0]!));
    }
    // As a change of the searchable fields would: the next open rebuilds the whole index.
    file.prepare(`UPDATE meta SET value = 'stale' WHERE key = 'search_index'`).run();
    file.close();

    const documentFile = join(running.dir, 'export.json');
    writeFileSync(documentFile, JSON.stringify(exported));
    const dryRun = await runInProcess(['import', documentFile, '--dry-run', '--db', running.db], tmpdir());
    expect(dryRun.code, dryRun.stderr + dryRun.stdout).toBe(0);

    running = await startServer({ db: running.db });
    started.push(running);
    const again = sandboxClient(running.api, client.id);
    expect((await again.get('/custom/legacy?q=legacyword')).body.pagination.total).toBe(1);
    const restored = await again.post('/sandbox/snapshots/kept/restore');
    expect(restored.status, restored.text).toBe(200);
    expect((await again.get('/custom/legacy?q=legacyword')).body.pagination.total).toBe(1);
    await running.stop();

    const reset = await runInProcess(['reset', '--all', '--db', running.db], tmpdir());
    expect(reset.code, reset.stderr + reset.stdout).toBe(0);
  });

  it('mockapi import refuses a document holding a record deeper than 32 levels, naming it', async () => {
    const running = await startServer();
    started.push(running);
    const exported = (await sandboxClient(running.api).get('/sandbox/export')).body;
    await running.stop();
    exported.sandboxes[0].collections = { 'custom.deep': { created: [{ id: `local-${crypto.randomUUID()}`, _sandbox: 'created', data: JSON.parse(deepArray(2_000)) }] } };
    const documentFile = join(running.dir, 'deep.json');
    writeFileSync(documentFile, JSON.stringify(exported));
    const result = await runInProcess(['import', documentFile, '--db', running.db], tmpdir());
    expect(result.code).not.toBe(0);
    expect(result.stderr + result.stdout).toContain('/sandboxes/0/collections/custom.deep/created/0/data');
  });
});
