import { afterAll, beforeAll } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveInProcess } from './in-process.js';
import { spawnServe } from './spawned.js';

export { cliPath, repoRoot } from './spawned.js';

export interface RunningServer {
  /** e.g. http://127.0.0.1:43567 */
  url: string;
  /** `${url}/api/v1` */
  api: string;
  /** The SQLite file the server uses. */
  db: string;
  /** A temporary folder owned by this server (removed by `cleanup`). */
  dir: string;
  /** What the server logged: its stderr, or (in-process) the app's logged errors. */
  stderr: () => string;
  /** Stops (a signal to a spawned server; in-process: the SIGTERM shutdown) and resolves with the exit code. */
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
  /** Stops if still running and removes the temporary folder. */
  cleanup: () => Promise<void>;
}

/** A server run by the real CLI in its own process. */
export interface CliServer extends RunningServer {
  proc: ChildProcess;
  stdout: () => string;
}

/** The spawned server's output from now on: for a test on a server that tests before it used. */
export function fromHere(server: CliServer): CliServer {
  const out = server.stdout().length;
  const err = server.stderr().length;
  return { ...server, stdout: () => server.stdout().slice(out), stderr: () => server.stderr().slice(err) };
}

export interface StartOptions {
  /** Extra CLI arguments after `serve --port 0 --db <file>`. */
  args?: string[];
  /** Reuse a database file (for restart tests); default: a new temp file. */
  db?: string;
  cwd?: string;
  /** Environment of the spawned CLI (implies `cli`). */
  env?: Record<string, string>;
  /**
   * Run the built CLI in its own process, for tests of the CLI itself (its output, signals, exit
   * codes, a crash, `--watch`, which implies it). Default: the same runtime and app built in this
   * test file's worker, listening on a free port, which starts in a fraction of the time.
   */
  cli?: boolean;
}

/** Starts `mockapi serve --port 0` on a temporary SQLite file (in-process unless `cli`) and waits until it listens. */
export async function startServer(options: StartOptions & { cli: true }): Promise<CliServer>;
export async function startServer(options?: StartOptions): Promise<RunningServer>;
export async function startServer(options: StartOptions = {}): Promise<RunningServer | CliServer> {
  const dir = mkdtempSync(join(tmpdir(), 'mockapi-test-'));
  const db = options.db ?? join(dir, 'test.db');
  const args = options.args ?? [];
  const cwd = options.cwd ?? dir;
  const spawned = options.cli || options.env !== undefined || args.includes('--watch');
  let server: Awaited<ReturnType<typeof serveInProcess | typeof spawnServe>>;
  try {
    server = spawned ? await spawnServe(db, args, cwd, options.env) : await serveInProcess(db, args, cwd);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const running: RunningServer = {
    ...server,
    api: `${server.url}/api/v1`,
    db,
    dir,
    cleanup: async () => {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  if (!spawned) {
    // A test written for a spawned server learns what to change instead of reading undefined.
    for (const key of ['proc', 'stdout']) {
      Object.defineProperty(running, key, {
        get: () => {
          throw new Error(`server.${key}: this server runs in-process; start it with { cli: true } to get the process`);
        },
      });
    }
  }
  return running;
}

export interface Answer<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** A client bound to one sandbox (the `svc_identity` cookie), as a browser tab would be. */
export function sandboxClient(api: string, sandboxId = `test-${crypto.randomUUID()}`) {
  const call = async <T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer<T>> => {
    const init: RequestInit = { method, headers: { cookie: `svc_identity=${sandboxId}`, ...headers } };
    if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
    }
    const res = await fetch(`${api}${path}`, init);
    const text = await res.text();
    let parsed: any = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  };
  return {
    id: sandboxId,
    call,
    get: <T = any>(path: string, headers?: Record<string, string>) => call<T>('GET', path, undefined, headers),
    post: <T = any>(path: string, body?: unknown, headers?: Record<string, string>) => call<T>('POST', path, body, headers),
    put: <T = any>(path: string, body?: unknown, headers?: Record<string, string>) => call<T>('PUT', path, body, headers),
    patch: <T = any>(path: string, body?: unknown, headers?: Record<string, string>) => call<T>('PATCH', path, body, headers),
    delete: <T = any>(path: string, headers?: Record<string, string>) => call<T>('DELETE', path, undefined, headers),
  };
}

/**
 * Starts one server for the calling test file (beforeAll) and cleans it up (afterAll). The
 * returned object reads through to the running server, so tests write `server.api`.
 */
export function useServer(options: StartOptions & { cli: true }): CliServer;
export function useServer(options?: StartOptions): RunningServer;
export function useServer(options: StartOptions = {}): RunningServer {
  let current: RunningServer | undefined;
  beforeAll(async () => {
    current = await startServer(options);
  });
  afterAll(async () => {
    await current?.cleanup();
  });
  return new Proxy({} as RunningServer, {
    get: (_target, key) => {
      if (!current) throw new Error('the test server has not started');
      return current[key as keyof RunningServer];
    },
  });
}

/** Polls until `check` returns true (for what the server does asynchronously, e.g. a `--watch` reload). */
export async function eventually(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  // performance.now: a test may fake Date (test/helpers/clock.ts).
  const until = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((wait) => setTimeout(wait, 50));
  }
}
