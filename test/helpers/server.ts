import { afterAll, beforeAll } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const repoRoot = resolve(import.meta.dirname, '../..');
export const cliPath = join(repoRoot, 'bin/mockapi.mjs');

export interface RunningServer {
  /** e.g. http://127.0.0.1:43567 */
  url: string;
  /** `${url}/api/v1` */
  api: string;
  /** The SQLite file the server uses. */
  db: string;
  /** A temporary folder owned by this server (removed by `cleanup`). */
  dir: string;
  proc: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Sends a signal and resolves with the exit code. */
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
  /** Stops (SIGTERM) if still running and removes the temporary folder. */
  cleanup: () => Promise<void>;
}

export interface StartOptions {
  /** Extra CLI arguments after `serve --port 0 --db <file>`. */
  args?: string[];
  /** Reuse a database file (for restart tests); default: a new temp file. */
  db?: string;
  cwd?: string;
  env?: Record<string, string>;
}

/** Starts the real CLI (`mockapi serve --port 0`) on a temporary SQLite file and waits for its URL. */
export async function startServer(options: StartOptions = {}): Promise<RunningServer> {
  const dir = mkdtempSync(join(tmpdir(), 'mockapi-test-'));
  const db = options.db ?? join(dir, 'test.db');
  const proc = spawn(process.execPath, [cliPath, 'serve', '--port', '0', '--db', db, ...(options.args ?? [])], {
    cwd: options.cwd ?? dir,
    env: { ...process.env, NO_COLOR: '1', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stdout!.on('data', (chunk) => (out += chunk));
  proc.stderr!.on('data', (chunk) => (err += chunk));
  const exited = new Promise<number | null>((done) => proc.once('exit', (code) => done(code)));

  const url = await new Promise<string>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`server did not print its URL in 20 s\nstdout: ${out}\nstderr: ${err}`)), 20_000);
    const check = () => {
      const match = /http:\/\/[\w.\-[\]:]+:\d+/.exec(out);
      if (match) {
        clearTimeout(timer);
        done(match[0]);
      }
    };
    proc.stdout!.on('data', check);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`server exited with ${code} before listening\nstdout: ${out}\nstderr: ${err}`));
    });
  });

  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
    return exited;
  };
  return {
    url,
    api: `${url}/api/v1`,
    db,
    dir,
    proc,
    stdout: () => out,
    stderr: () => err,
    stop,
    cleanup: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
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
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((wait) => setTimeout(wait, 50));
  }
}
