import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sharedStringWorkbook } from './helpers/xlsx-files.js';
import { sandboxClient, useServer } from './helpers/server.js';

/**
 * Issue 28, defect 3: a 7 KB XLSX whose one 1.1 MB shared string is named by 512 cells took the
 * server to about 1 GB and a 500 (every cell became its own copy in a record). The expanded text
 * is bounded before any cell becomes a value. Memory is the server process's own peak resident
 * set (VmHWM), read from /proc.
 */
// Spawned: the test reads the server process's own peak memory.
const server = useServer({ cli: true });
const xlsxType = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const peakMegabytes = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${server.proc.pid}/status`, 'utf8'))![1]) / 1024;

describe('shared strings expanded past the bound', () => {
  it('a 7 KB file naming a 1.1 MB string from 512 cells is 400 INVALID_TABLE, and the server stays small', async () => {
    const bytes = await sharedStringWorkbook(512, 1_100_000);
    expect(bytes.length).toBeLessThan(12_000);
    const client = sandboxClient(server.api);
    const before = peakMegabytes();
    const res = await fetch(`${server.api}/custom/blob/import`, { method: 'POST', headers: { cookie: `svc_identity=${client.id}`, 'content-type': xlsxType }, body: new Uint8Array(bytes) });
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(400);
    expect(body).toMatchObject({ code: 'INVALID_TABLE', detail: expect.stringContaining('once shared strings are expanded') });
    expect(peakMegabytes() - before).toBeLessThan(120);
    expect((await client.get('/custom/blob')).body.data).toEqual([]);
  });

  it('a shared string used by many cells within the bound imports', async () => {
    const client = sandboxClient(server.api);
    const res = await fetch(`${server.api}/custom/small/import`, { method: 'POST', headers: { cookie: `svc_identity=${client.id}`, 'content-type': xlsxType }, body: new Uint8Array(await sharedStringWorkbook(100, 1_000)) });
    expect(res.status, await res.clone().text()).toBe(200);
    expect((await res.json()).imported).toBe(100);
  });
});
