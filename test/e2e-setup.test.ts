import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { repoRoot } from './helpers/server.js';

/**
 * templates/e2e-setup.mjs end to end: the real template runs a stand-in test command (a Node
 * script that creates a record, says where it is, and then sleeps or exits), and is stopped the
 * way CI stops a job or a user presses Ctrl-C.
 */

const template = join(repoRoot, 'templates/e2e-setup.mjs');

// The stand-in test command: creates a post in sandbox `e2e-setup-test`, writes its pid and the
// API URL to ready.json, and either exits with EXIT_WITH or sleeps until a signal ends it.
const testCommand = `
const fs = require('node:fs');
(async () => {
  const answer = await fetch(process.env.API_URL + '/posts', {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: 'svc_identity=e2e-setup-test' },
    body: JSON.stringify({ user_id: 1, title: 'From The Tests', body: 'written before the stop' }),
  });
  if (!answer.ok) process.exit(9);
  if (process.env.EXIT_WITH) process.exit(Number(process.env.EXIT_WITH));
  process.on('SIGTERM', () => { fs.writeFileSync('signal', 'SIGTERM'); process.exit(0); });
  process.on('SIGINT', () => { fs.writeFileSync('signal', 'SIGINT'); process.exit(0); });
  // Written whole, then renamed: the test polls for it and must never read it half written.
  fs.writeFileSync('ready.json.part', JSON.stringify({ pid: process.pid, api: process.env.API_URL }));
  fs.renameSync('ready.json.part', 'ready.json');
  setInterval(() => {}, 1000);
})();
`;

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Setup {
  dir: string;
  temp: string;
  exited: Promise<number | null>;
  pid: number;
  output: () => string;
}

function startSetup(env: Record<string, string> = {}): Setup {
  const dir = mkdtempSync(join(tmpdir(), 'mockapi-e2e-setup-test-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  // Its own TMPDIR, so the template's temporary folder can be found (and shown to be gone).
  const temp = join(dir, 'tmp');
  mkdirSync(temp);
  const proc = spawn(process.execPath, [template, process.execPath, '-e', testCommand], {
    cwd: dir,
    env: { ...process.env, ...env, TMPDIR: temp, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  proc.stdout.on('data', (chunk) => (output += chunk));
  proc.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((done) => proc.once('exit', (code) => done(code)));
  // A test that failed midway: SIGTERM is what the template handles (a SIGKILL would orphan its
  // server and test command); SIGKILL only if it does not end.
  cleanups.push(async () => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  });
  return { dir, temp, exited, pid: proc.pid!, output: () => output };
}

async function eventually<T>(what: string, check: () => T | undefined, output: () => string): Promise<T> {
  const until = Date.now() + 20_000;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}\n${output()}`);
    await new Promise((wait) => setTimeout(wait, 50));
  }
}

/** The processes `parent` started whose command line contains `word` (Linux: read from /proc). */
function childrenOf(parent: number, word: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      // The parent pid is the 2nd field after the parenthesised command name.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parent && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(word)) found.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** The template's temporary folders (jiti keeps its cache in the same TMPDIR). */
const ownFolders = (temp: string) => readdirSync(temp).filter((name) => name.startsWith('mockapi-e2e-'));

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

function expectExported(file: string): void {
  const document = JSON.parse(readFileSync(file, 'utf8'));
  const sandbox = document.sandboxes.find((s: { id: string }) => s.id === 'e2e-setup-test');
  expect(sandbox.collections.posts.created.map((post: { title: string }) => post.title)).toEqual(['From The Tests']);
}

describe('templates/e2e-setup.mjs', () => {
  it('runs the tests against a fresh server, exports, cleans up and exits with their code', async () => {
    const setup = startSetup({ EXIT_WITH: '3' });
    expect(await setup.exited, setup.output()).toBe(3);
    expectExported(join(setup.dir, 'mockapi-export.json'));
    expect(ownFolders(setup.temp)).toEqual([]);
  });

  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)('on %s stops the tests and the server, still exports, removes its folder, exits %i', async (signal, code) => {
    const setup = startSetup({ MOCKAPI_EXPORT: 'stopped-export.json' });
    const ready = await eventually(
      'the test command',
      () => (existsSync(join(setup.dir, 'ready.json')) ? JSON.parse(readFileSync(join(setup.dir, 'ready.json'), 'utf8')) : undefined),
      setup.output,
    );
    expect(ownFolders(setup.temp)).toHaveLength(1);
    const [server] = childrenOf(setup.pid, 'serve');
    expect(server).toBeGreaterThan(0);
    expect((await fetch(`${ready.api}/posts?limit=1`)).status).toBe(200);

    process.kill(setup.pid, signal);
    expect(await setup.exited, setup.output()).toBe(code);

    expect(readFileSync(join(setup.dir, 'signal'), 'utf8')).toBe(signal);
    expect(alive(ready.pid)).toBe(false);
    expect(alive(server)).toBe(false);
    await expect(fetch(`${ready.api}/posts?limit=1`)).rejects.toThrow();
    expectExported(join(setup.dir, 'stopped-export.json'));
    expect(ownFolders(setup.temp)).toEqual([]);
  });
});
