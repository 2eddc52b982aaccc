// Starting and stopping the two kinds of server the benchmark compares.
import { fork, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const cliPath = fileURLToPath(new URL('../bin/mockapi.mjs', import.meta.url));
const referencePath = fileURLToPath(new URL('./reference-server.mjs', import.meta.url));

/**
 * `mockapi serve --port 0 --db <file>` as a child; resolves once it printed its URL. `cwd` is a
 * folder without a config file, so the defaults apply. `nodeArgs` (e.g. `--cpu-prof`) go to node,
 * `args` (e.g. `--config <file>`) to `serve`; `cli` is another checkout's bin/mockapi.mjs.
 */
export function startMockapi({ db, cwd, nodeArgs = [], args = [], cli = cliPath }) {
  const child = spawn(process.execPath, [...nodeArgs, cli, 'serve', '--port', '0', '--db', db, ...args], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const collect = (chunk) => {
      output += chunk;
      const match = /http:\/\/[\d.]+:\d+/.exec(output);
      if (match) {
        child.stdout.off('data', collect);
        resolve({ url: match[0], pid: child.pid, stop: () => stopChild(child) });
      }
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('exit', (code) => reject(new Error(`mockapi serve exited (${code}) before listening:\n${output}`)));
  });
}

/** The raw `node:http` reference as a child; `answer(answers)` sets what it replies from then on. */
export function startReference() {
  const child = fork(referencePath, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('message', ({ port }) => {
      resolve({
        url: `http://127.0.0.1:${port}`,
        pid: child.pid,
        answer: (answers) =>
          new Promise((done) => {
            child.once('message', done);
            child.send({ answers });
          }),
        stop: () => stopChild(child),
      });
    });
  });
}

/** SIGTERM and wait: `mockapi serve` exits 0 on it, which also writes a `--cpu-prof` profile. */
function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    child.removeAllListeners('exit');
    child.once('exit', () => done());
    child.kill('SIGTERM');
  });
}

/**
 * `fetchAnswer(method, path, cookie, body)` against `base`: the answer's status, headers (those a
 * reference replays) and body, for the reference to send the same bytes.
 */
export const fetchAnswerFrom = (base) => async (method, path, cookie, body) => {
  const headers = { cookie: `svc_identity=${cookie}`, ...(body ? { 'content-type': 'application/json' } : {}) };
  const response = await fetch(base + path, { method, headers, body });
  const bytes = Buffer.from(await response.arrayBuffer());
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${bytes}`);
  const kept = {};
  for (const [name, value] of response.headers) {
    if (!['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length'].includes(name)) kept[name] = value;
  }
  return { status: response.status, headers: kept, body: bytes.toString('base64') };
};
