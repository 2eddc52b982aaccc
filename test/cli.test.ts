import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliPath, repoRoot, startServer, type CliServer } from './helpers/server.js';
import { runCli, type Run } from './helpers/cli.js';
import { refusedServe, runInProcess } from './helpers/cli-in-process.js';

const version: string = (await import(join(repoRoot, 'package.json'), { with: { type: 'json' } })).default.version;

/**
 * The CLI run in this worker (its parser, commands, report and exit code); each describe below
 * keeps a spawned run of the real binary (`spawned`) showing the process does the same.
 */
const run = (args: string[], cwd = tmpdir()) => runInProcess(args, cwd);
const spawned = (args: string[], cwd = tmpdir()) => runCli(args, cwd);

/** `mockapi serve` without the harness's `--db`, so a config file's `db` applies. */
async function serveIn(cwd: string, args: string[] = []): Promise<{ url: string; stop: () => Promise<number | null>; output: () => string }> {
  const proc = spawn(process.execPath, [cliPath, 'serve', '--port', '0', ...args], { cwd, env: { ...process.env, NO_COLOR: '1' } });
  let out = '';
  proc.stdout.on('data', (chunk) => (out += chunk));
  proc.stderr.on('data', (chunk) => (out += chunk));
  const exited = new Promise<number | null>((done) => proc.once('exit', (code) => done(code)));
  const url = await new Promise<string>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`no URL in 20 s: ${out}`)), 20_000);
    proc.stdout.on('data', () => {
      const match = /http:\/\/[\w.\-[\]:]+:\d+/.exec(out);
      if (match) {
        clearTimeout(timer);
        done(match[0]);
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`exited with ${code} before listening: ${out}`));
    });
  });
  return {
    url,
    output: () => out,
    stop: async () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      return exited;
    },
  };
}

function expectOneLineError(result: Run): void {
  const lines = result.stderr.trim().split('\n');
  expect(lines, result.stderr).toHaveLength(1);
  expect(result.stderr).toMatch(/^mockapi: /);
  expect(result.stderr).not.toMatch(/\n\s+at /);
}

function listenOn(host: string): Promise<{ server: Server; port: number }> {
  return new Promise((done) => {
    const server = createServer((_req, res) => res.end('busy'));
    server.listen(0, host, () => {
      const address = server.address();
      done({ server, port: typeof address === 'object' && address ? address.port : 0 });
    });
  });
}

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mockapi-cli-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('help and version', () => {
  it('the real binary prints the root help with exit 0', async () => {
    const result = await spawned(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: mockapi');
    expect(result.stdout).toContain('serve');
    expect(result.stdout).toContain('--version');
    expect(result.stdout).toContain('--debug');
  });

  it('prints the help of serve with every flag that works, exit 0', async () => {
    const result = await run(['serve', '--help']);
    expect(result.code).toBe(0);
    for (const flag of ['--config <file>', '--port <n>', '--host <h>', '--db <file>', '--watch', '--debug']) {
      expect(result.stdout).toContain(flag);
    }
    expect(result.stdout).toContain('--auth-required');
    expect(result.stdout).toContain('--latency <ms>');
  });

  it('`mockapi help serve` is the same help, exit 0', async () => {
    const result = await run(['help', 'serve']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('--port <n>');
  });

  it('the real binary prints the package version', async () => {
    const result = await spawned(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(version);
  });
});

describe('bad usage exits 2 with one line on stderr', () => {
  it('the real binary: exit 2, one line on stderr, nothing on stdout', async () => {
    const result = await spawned(['serve', '--no-such-option']);
    expect(result.code).toBe(2);
    expectOneLineError(result);
    expect(result.stderr).toContain("'--no-such-option'");
    expect(result.stdout).toBe('');
  });

  it('no command: the help on stderr, exit 2', async () => {
    const result = await run([]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Usage: mockapi');
    expect(result.stdout).toBe('');
  });

  it.each([
    [['serve', '--no-such-option']],
    [['--no-such-option']],
    [['serv']],
    [['no-such-command']],
    [['serve', '--port', 'abc']],
    [['serve', '--port', '70000']],
    [['serve', '--port', '-1']],
    [['serve', '--port', '12.5']],
    [['serve', '--port']],
    [['serve', '--host', 'not_a_host']],
    [['serve', '--latency', 'soon']],
    [['serve', 'extra-argument']],
  ])('mockapi %j', async (args) => {
    const result = await run(args);
    expect(result.code).toBe(2);
    expectOneLineError(result);
  });

  it.each([[['--latency']], [['--latency', '31s']], [['--latency', '400-100']], [['--latency', '-5']]])(
    'serve %j is bad usage, before anything is opened',
    async (flags) => {
      const dir = tempDir();
      const result = await refusedServe(['--port', '0', ...flags], dir);
      expect(result.code).toBe(2);
      expectOneLineError(result);
      expect(result.stderr).toContain('--latency');
      expect(result.stdout).toBe('');
      expect(existsSync(join(dir, '.mockapi'))).toBe(false);
    },
  );

  it('serve --latency delays every API answer (a request may still ask for 0), not /health', async () => {
    const slow = await startServer({ args: ['--latency', '400'] });
    try {
      const started = performance.now();
      expect((await fetch(`${slow.api}/posts?limit=1`)).status).toBe(200);
      expect(performance.now() - started).toBeGreaterThanOrEqual(380);
      const abort = new AbortController();
      const long = fetch(`${slow.api}/posts?limit=1`, { headers: { 'x-simulate-latency': '20s' }, signal: abort.signal }).then(
        () => 'long',
        () => 'aborted',
      );
      const zero = fetch(`${slow.api}/posts?limit=1`, { headers: { 'x-simulate-latency': '0' } }).then(() => 'zero');
      const health = fetch(`${slow.url}/health`).then(() => 'health');
      expect(await Promise.race([zero, long])).toBe('zero');
      expect(await Promise.race([health, long])).toBe('health');
      abort.abort();
    } finally {
      await slow.cleanup();
    }
  });

  it('names the unknown option and the unknown command', async () => {
    expect((await run(['serve', '--bogus'])).stderr).toContain("'--bogus'");
    expect((await run(['bogus'])).stderr).toContain("'bogus'");
  });
});

describe('failures exit 1 with one line on stderr', () => {
  it('a missing --config file', async () => {
    const result = await refusedServe(['--config', 'no-such.config.ts', '--port', '0'], tempDir());
    expect(result.code).toBe(1);
    expectOneLineError(result);
    expect(result.stderr).toContain('no-such.config.ts');
  });

  it('--debug adds the stack', async () => {
    const result = await refusedServe(['--config', 'no-such.config.ts', '--debug'], tempDir());
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/\n\s+at /);
  });

  it('an invalid value in the config file', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'mockapi.config.json'), JSON.stringify({ port: 70000 }));
    const result = await refusedServe(['--db', ':memory:'], dir);
    expect(result.code).toBe(1);
    expectOneLineError(result);
    expect(result.stderr).toContain('port');
  });

  it('a database folder that cannot be created', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a-file'), '');
    const result = await refusedServe(['--port', '0', '--db', join(dir, 'a-file', 'sub', 'x.db')], dir);
    expect(result.code).toBe(1);
    expectOneLineError(result);
  });

  // The real binary: exit 1 and one line from the process.
  it.each(['127.0.0.1', '0.0.0.0'])('a busy port (held on %s) names the port, never another port', async (holder) => {
    const { server, port } = await listenOn(holder);
    cleanups.push(() => new Promise((done) => server.close(done)));
    const result = await spawned(['serve', '--port', String(port), '--db', ':memory:'], tempDir());
    expect(result.code).toBe(1);
    expectOneLineError(result);
    expect(result.stderr).toContain(`port ${port}`);
    expect(result.stderr).toContain('in use');
    expect(result.stdout).not.toMatch(/listening/);
  });
});

describe('serve', () => {
  let server: CliServer | undefined;
  afterEach(async () => {
    await server?.cleanup();
    server = undefined;
  });

  it('prints the URL with the real port, answers, and exits 0 on SIGTERM', async () => {
    server = await startServer({ cli: true });
    const port = Number(new URL(server.url).port);
    expect(port).toBeGreaterThan(0);
    expect(server.stdout()).toContain(`listening on ${server.url}`);
    expect(server.stdout()).toContain(`${server.url}/api/v1`);
    expect(server.stdout()).toContain(`${server.url}/health`);
    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);
    expect(await server.stop('SIGTERM')).toBe(0);
    expect(server.stderr()).toBe('');
    expect(server.stdout().trim().split('\n')).toHaveLength(4);
  });

  it('exits 0 on SIGINT', async () => {
    server = await startServer({ cli: true });
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    expect(await server.stop('SIGINT')).toBe(0);
  });

  it('finishes a request in flight before it exits', async () => {
    server = await startServer({ cli: true });
    const { port, hostname } = new URL(server.url);
    const socket = connect(Number(port), hostname);
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk));
    const closed = new Promise((done) => socket.once('close', done));
    const body = JSON.stringify({ title: 'in flight', completed: false, user_id: 1 });
    await new Promise<void>((done) => socket.once('connect', () => done()));
    // Headers and half the body: the request is in flight when the signal arrives.
    socket.write(
      `POST /api/v1/todos HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nCookie: svc_identity=cli-in-flight\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`,
    );
    await new Promise((done) => setTimeout(done, 300));
    const exit = server.stop('SIGTERM');
    await new Promise((done) => setTimeout(done, 300));
    expect(server.proc.exitCode).toBeNull();
    socket.write(body.slice(10));
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(answer).toContain('in flight');
    expect(await exit).toBe(0);
  });

  it('an idle keep-alive connection does not hold the shutdown', async () => {
    server = await startServer({ cli: true });
    const { port, hostname } = new URL(server.url);
    const socket = connect(Number(port), hostname);
    cleanups.push(() => socket.destroy());
    await new Promise<void>((done) => socket.once('connect', () => done()));
    socket.write(`GET /health HTTP/1.1\r\nHost: ${hostname}\r\nConnection: keep-alive\r\n\r\n`);
    await new Promise((done) => socket.once('data', done));
    const started = Date.now();
    expect(await server.stop('SIGTERM')).toBe(0);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('--host localhost is accepted', async () => {
    const local = await startServer({ args: ['--host', 'localhost'] });
    cleanups.push(local.cleanup);
    expect(local.url).toMatch(/^http:\/\/localhost:\d+$/);
    expect((await fetch(`${local.url}/health`)).status).toBe(200);
  });
});

describe('config files', () => {
  it('a mockapi.config.mjs in the working folder sets the database file', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'mockapi.config.mjs'), `export default { db: './custom.db' };\n`);
    const running = await serveIn(dir);
    cleanups.push(running.stop);
    expect((await fetch(`${running.url}/health`)).status).toBe(200);
    expect(existsSync(join(dir, 'custom.db'))).toBe(true);
    expect(existsSync(join(dir, '.mockapi'))).toBe(false);
    expect(await running.stop()).toBe(0);
  });

  it("a mockapi.config.ts importing 'mockapi' loads where the package is not installed", async () => {
    const dir = tempDir();
    expect(existsSync(join(dir, 'node_modules'))).toBe(false);
    writeFileSync(
      join(dir, 'mockapi.config.ts'),
      [
        "import { defineConfig, type MockapiConfig } from 'mockapi';",
        "const db: string = './from-ts.db';",
        'export default defineConfig({ db, limits: { maxPageSize: 50 } } satisfies MockapiConfig);',
        '',
      ].join('\n'),
    );
    const running = await serveIn(dir);
    cleanups.push(running.stop);
    expect((await fetch(`${running.url}/health`)).status).toBe(200);
    expect(existsSync(join(dir, 'from-ts.db'))).toBe(true);
    expect(await running.stop()).toBe(0);
  });

  it('flags win over the file; --config names a file elsewhere', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'conf'));
    writeFileSync(join(dir, 'conf', 'my.config.mjs'), `export default { port: 1, db: './from-config.db' };\n`);
    const running = await serveIn(dir, ['--config', 'conf/my.config.mjs']);
    cleanups.push(running.stop);
    // --port 0 (from serveIn) wins over the file's port 1; db resolves beside the config file.
    expect(Number(new URL(running.url).port)).toBeGreaterThan(1);
    expect(existsSync(join(dir, 'conf', 'from-config.db'))).toBe(true);
    expect(await running.stop()).toBe(0);
  });
});
