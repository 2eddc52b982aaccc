#!/usr/bin/env node
// node e2e-setup.mjs <test command...>   e.g. node e2e-setup.mjs npx playwright test
// Serves mockapi on a free port and a fresh database, runs the command with API_URL set,
// writes every sandbox the tests touched to mockapi-export.json, stops the server and exits
// with the command's exit code. SIGINT/SIGTERM stop the command, and the export, the server's
// stop and the cleanup still happen; the exit code is then 128 + the signal's number.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { constants, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error('usage: node e2e-setup.mjs <test command> [args...]');
  process.exit(2);
}
// The installed CLI, run by this Node (not through npx, so SIGTERM reaches the server itself).
const bin = join(dirname(createRequire(import.meta.url).resolve('mockapi-sandbox/package.json')), 'bin/mockapi.mjs');
const folder = mkdtempSync(join(tmpdir(), 'mockapi-e2e-'));
const db = join(folder, 'e2e.db');

/** The first SIGINT/SIGTERM received, and the test command while it runs (to pass it on). */
let stopping;
let tests;
const interrupted = new Promise((_, fail) => {
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      stopping ??= signal;
      // Ctrl-C at a terminal already reached the whole foreground group, the tests included; a
      // second SIGINT would look like a second Ctrl-C (Playwright then quits without cleanup).
      if (!(signal === 'SIGINT' && process.stdin.isTTY)) tests?.kill(signal);
      fail(new Error(`stopped by ${signal}`));
    });
  }
});
interrupted.catch(() => {});

/** Runs a command to its end; resolves to its exit code (128 + signal number when killed). */
const run = (file, argv, env = {}, onStart = () => {}) =>
  new Promise((done) => {
    const child = spawn(file, argv, { stdio: 'inherit', env: { ...process.env, ...env }, shell: process.platform === 'win32' });
    onStart(child);
    child.once('error', () => done(1));
    child.once('exit', (status, signal) => done(status ?? 128 + (constants.signals[signal] ?? 0)));
  });

const server = spawn(process.execPath, [bin, 'serve', '--port', '0', '--db', db], { env: { ...process.env, NO_COLOR: '1' } });
server.stderr.pipe(process.stderr);
const stopped = new Promise((done) => server.once('exit', done));
let code = 1;
let ran = false;
try {
  // serve prints "✔ mockapi listening on http://127.0.0.1:<port>" once it accepts connections.
  const listening = new Promise((done, fail) => {
    let out = '';
    server.stdout.on('data', (chunk) => {
      const match = /listening on (http:\/\/\S+)/.exec((out += chunk));
      if (match) done(match[1]);
    });
    server.once('exit', (status) => fail(new Error(`mockapi exited with ${status}:\n${out}`)));
    setTimeout(() => fail(new Error(`mockapi printed no URL in 30 s:\n${out}`)), 30_000).unref();
  });
  const url = await Promise.race([listening, interrupted]);
  for (let attempt = 0; !(await fetch(`${url}/health`).catch(() => undefined))?.ok; attempt++) {
    if (attempt === 100) throw new Error(`${url}/health does not answer`);
    await Promise.race([new Promise((wait) => setTimeout(wait, 100)), interrupted]);
  }
  if (stopping) throw new Error(`stopped by ${stopping}`);
  ran = true;
  code = await run(command, args, { API_URL: `${url}/api/v1`, MOCKAPI_URL: url }, (child) => (tests = child));
  tests = undefined;
} catch (error) {
  if (!stopping) console.error(`e2e-setup: ${error.message}`);
} finally {
  // The export reads the database file, so it works even when a Ctrl-C stopped the server too.
  if (ran) await run(process.execPath, [bin, 'export', '--all', '--db', db, '-o', process.env.MOCKAPI_EXPORT ?? 'mockapi-export.json']);
  server.kill('SIGTERM');
  await stopped;
  rmSync(folder, { recursive: true, force: true });
}
process.exit(stopping ? 128 + constants.signals[stopping] : code);
