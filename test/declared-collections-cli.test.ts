import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runInProcess } from './helpers/cli-in-process.js';
import { readFile } from './helpers/configured.js';
import { sandboxClient, startServer, type RunningServer } from './helpers/server.js';

// A CLI command run without the server's config (issue 28): the database knows which collections
// it serves, so the command neither drops them from the search index under a running server nor
// leaves them out of what it exports; a config that disagrees is named on stderr.
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const invoices = [
  { id: 1, number: 'INV-001', customer: 'Acme Corp', amount: 50 },
  { id: 2, number: 'INV-002', customer: 'Globex', amount: 100 },
];

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mockapi-declared-cli-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A server with a config declaring `invoices` (searched by customer); the CLI runs in another, empty folder. */
async function serveInvoices(): Promise<RunningServer> {
  const dir = folder();
  writeFileSync(join(dir, 'invoices.json'), JSON.stringify(invoices));
  // `notes` has neither schema nor search: its fields (and what q searches) are read from its records.
  writeFileSync(join(dir, 'notes.json'), JSON.stringify([{ id: 1, text: 'quokka', user_id: 1 }]));
  const collections = { invoices: { fixture: './invoices.json', search: ['customer'] }, notes: { fixture: './notes.json', relations: { user: { belongsTo: 'users', key: 'user_id' } } } };
  writeFileSync(join(dir, 'mockapi.config.json'), JSON.stringify({ collections }));
  const server = await startServer({ args: ['--config', join(dir, 'mockapi.config.json')], cwd: dir });
  cleanups.push(() => server.cleanup());
  return server;
}

const found = async (client: ReturnType<typeof sandboxClient>, q: string, collection = 'invoices') =>
  ((await client.get(`/${collection}?q=${q}`)).body.data as { id: number }[]).map((r) => r.id);

describe('a CLI command without the server config', () => {
  it('keeps the config-declared collections searchable on the running server, and exports them', async () => {
    const server = await serveInvoices();
    const client = sandboxClient(server.api);
    const created = await client.post('/invoices', { number: 'INV-003', customer: 'Initech', amount: 10 });
    expect(created.status, created.text).toBeLessThan(300);
    expect(await found(client, 'globex')).toEqual([2]);
    expect(await found(client, 'initech')).toEqual([created.body.id]);

    const indexBefore = readFile(server.db, (db) => db.prepare(`SELECT value FROM meta WHERE key = 'search_index'`).pluck().get());
    const elsewhere = folder();
    const run = await runInProcess(['export', '--sandbox', client.id, '--db', server.db], elsewhere);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe('');
    expect(await found(client, 'globex')).toEqual([2]);
    expect(await found(client, 'initech')).toEqual([created.body.id]);
    expect(JSON.parse(run.stdout).sandboxes[0].collections.invoices.created).toEqual([created.body]);
    expect(await found(client, 'quokka', 'notes')).toEqual([1]);
    const reset = await runInProcess(['reset', '--sandbox', client.id, '--db', server.db], elsewhere);
    expect(reset.code, reset.stderr).toBe(0);
    expect(await found(client, 'globex')).toEqual([2]);
    expect(await found(client, 'quokka', 'notes')).toEqual([1]);
    // The file's index was never rebuilt for other collections than the server's.
    expect(readFile(server.db, (db) => db.prepare(`SELECT value FROM meta WHERE key = 'search_index'`).pluck().get())).toBe(indexBefore);
  });

  it('says so when its config declares other collections, and keeps the database ones', async () => {
    const server = await serveInvoices();
    const client = sandboxClient(server.api);
    const elsewhere = folder();
    writeFileSync(join(elsewhere, 'orders.json'), '[]');
    writeFileSync(join(elsewhere, 'mockapi.config.json'), JSON.stringify({ collections: { orders: { fixture: './orders.json' } } }));
    const run = await runInProcess(['export', '--all', '--db', server.db], elsewhere);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/invoices, notes/);
    expect(run.stderr).toMatch(/orders/);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(await found(client, 'globex')).toEqual([2]);
  });
});
