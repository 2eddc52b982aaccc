import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { runInProcess } from './helpers/cli-in-process.js';
import { answerChecker } from './helpers/openapi.js';
import { cliPath, startServer, type RunningServer } from './helpers/server.js';

let dir: string;
let config: string;
let server: RunningServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mockapi-openapi-cli-'));
  writeFileSync(join(dir, 'invoices.json'), JSON.stringify([{ id: 1, number: 'A-1', total: 3, user_id: 1 }]));
  config = join(dir, 'mockapi.config.mjs');
  writeFileSync(
    config,
    `export default {
      collections: { invoices: { fixture: './invoices.json', relations: { user: { belongsTo: 'users', key: 'user_id' } } } },
      limits: { maxPageSize: 50 },
      routes: { 'GET /users/featured': () => ({ featured: [1] }), 'DELETE /cache/:key': () => undefined },
    };\n`,
  );
  server = await startServer({ args: ['--config', config] });
});
afterAll(async () => {
  await server?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

describe('mockapi openapi', () => {
  // The real binary here and for `| head`; the CLI in this worker for the other cases.
  it('writes the document the server serves for the same config, 3.1 by default', async () => {
    const served = await (await fetch(`${server.api}/openapi.json`)).json();
    const run = await runCli(['openapi', '--config', config], dir);
    expect(run.code, run.stderr).toBe(0);
    const written = JSON.parse(run.stdout);
    expect(written).toEqual(served);
    expect(written.paths['/api/v1/invoices/{id}/user']).toBeDefined();
    expect(written.paths['/api/v1/cache/{key}'].delete).toBeDefined();
    expect(written.components.parameters.Limit.schema.maximum).toBe(50);
  });

  it('writes the 3.0.3 document to a file with -o and --format 3.0', async () => {
    const served = await (await fetch(`${server.api}/openapi-3.0.json`)).json();
    const out = join(dir, 'openapi-3.0.json');
    const run = await runInProcess(['openapi', '--config', config, '--format', '3.0', '-o', out], dir);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('');
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(served);
  });

  it('stops quietly when its reader stops early (| head)', async () => {
    const proc = spawn(process.execPath, [cliPath, 'openapi'], { cwd: dir });
    let stderr = '';
    proc.stderr.on('data', (chunk) => (stderr += chunk));
    proc.stdout.once('data', () => proc.stdout.destroy());
    const code = await new Promise((done) => proc.once('exit', done));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it('refuses an unknown format as bad usage', async () => {
    const run = await runInProcess(['openapi', '--format', '2.0'], dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--format.*3\.1, 3\.0/);
  });

  it('GraphQL answers follow their documented schema (GraphQL over HTTP, not problem+json)', async () => {
    const check = answerChecker(await (await fetch(`${server.api}/openapi.json`)).json());
    const requests: [string, string, RequestInit, number][] = [
      ['POST', '/graphql', { body: JSON.stringify({ query: '{ posts(limit: 1) { data { id title } } }' }) }, 200],
      ['POST', '/graphql', { body: JSON.stringify({ query: '{ nope }' }) }, 200],
      ['POST', '/graphql', { body: '{}' }, 400],
      ['POST', '/graphql', { body: '{}', headers: { accept: 'application/graphql-response+json' } }, 400],
      ['POST', '/graphql', { headers: { 'x-sandbox': 'not valid!' }, body: '{}' }, 400],
      ['GET', '/graphql?query=%7Bposts%7Bdata%7Bid%7D%7D%7D', {}, 200],
      ['GET', '/graphql?query=mutation%7BdeletePost(id%3A1)%7Bid%7D%7D', {}, 405],
    ];
    for (const [method, path, init, status] of requests) {
      const answer = await fetch(`${server.api}${path}`, { method, ...init, headers: { 'content-type': 'application/json', ...(init.headers as Record<string, string>) } });
      expect(answer.status, `${method} ${path}`).toBe(status);
      const type = answer.headers.get('content-type')!.split(';')[0]!;
      const schema = check.schemaOf(method, `/api/v1${path}`, answer.status, type)!;
      if (type.endsWith('json')) expect(check.validate(schema, await answer.json()), `${method} ${path}: ${answer.status} ${type}`).toEqual([]);
    }
  });
});
