import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually, startServer, type CliServer } from './helpers/server.js';

// The served document follows `serve --watch`: a reload that changes the custom routes, the
// limits or the collections changes what /api/v1/openapi.json describes.

const dir = mkdtempSync(join(tmpdir(), 'mockapi-openapi-watch-'));
let server: CliServer | undefined;
afterAll(async () => {
  await server?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

describe('the OpenAPI document under serve --watch', () => {
  it('is built again after a reload changes the routes, the limits or the collections', async () => {
    const file = join(dir, 'mockapi.config.mjs');
    writeFileSync(join(dir, 'invoices.json'), JSON.stringify([{ id: 1, number: 'A-1' }]));
    writeFileSync(file, `export default { routes: { 'GET /version': () => ({ v: 1 }) } };\n`);
    server = await startServer({ args: ['--watch', '--config', file], cwd: dir, cli: true });
    await eventually('the watching line', () => server!.stdout().includes('watching'));
    const document = async () => (await fetch(`${server!.api}/openapi.json`)).json();
    expect(Object.keys((await document()).paths)).toContain('/api/v1/version');

    writeFileSync(file, `export default { limits: { maxPageSize: 40 }, routes: { 'GET /version': () => ({ v: 2 }), 'POST /reports/:kind': () => ({}) } };\n`);
    await eventually('the new route in the document', async () => (await document()).paths['/api/v1/reports/{kind}']?.post !== undefined);
    expect((await document()).components.parameters.Limit.schema.maximum).toBe(40);

    writeFileSync(file, `export default { collections: { invoices: { fixture: './invoices.json' } }, routes: { 'GET /version': () => ({ v: 3 }) } };\n`);
    await eventually('the declared collection in the document', async () => (await document()).paths['/api/v1/invoices/{id}'] !== undefined);
    const paths = Object.keys((await document()).paths);
    expect(paths).not.toContain('/api/v1/reports/{kind}');
    expect((await document()).components.parameters.Limit.schema.maximum).toBe(200);
  });
});
